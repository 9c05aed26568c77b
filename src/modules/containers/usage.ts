import type * as queries from './queries.js';
import type { RuntimeCountsDto, UsageDto } from './schemas.js';

/** Adding up usage rows for the usage API. */

interface UsageSums {
  requests: number;
  request_bytes: number;
  response_bytes: number;
}

/** Usage rows added up by `key`, in the order the keys first appear. */
export function sumUsage<Row extends { requests: number; requestBytes: number; responseBytes: number }>(
  rows: Row[],
  key: (row: Row) => string,
): Map<string, UsageSums> {
  const sums = new Map<string, UsageSums>();
  for (const row of rows) {
    const sum = sums.get(key(row)) ?? { requests: 0, request_bytes: 0, response_bytes: 0 };
    sum.requests += row.requests;
    sum.request_bytes += row.requestBytes;
    sum.response_bytes += row.responseBytes;
    sums.set(key(row), sum);
  }
  return sums;
}

export function runtimeCountsOf(row: Awaited<ReturnType<typeof queries.runtimeUsage>>[number]) {
  return {
    day: row.day,
    hits_received: row.hitsReceived,
    ga4_forwarded: row.ga4Forwarded,
    meta_forwarded: row.metaForwarded,
    forwards_failed: row.forwardsFailed,
    hits_refused: row.hitsRefused,
    bots_dropped: row.botsDropped,
    cookies_restored: row.cookiesRestored,
  };
}

export function sumRuntimeCounts(days: Array<RuntimeCountsDto & { day: string }>): RuntimeCountsDto {
  const totals: RuntimeCountsDto = {
    hits_received: 0,
    ga4_forwarded: 0,
    meta_forwarded: 0,
    forwards_failed: 0,
    hits_refused: 0,
    bots_dropped: 0,
    cookies_restored: 0,
  };
  for (const { day: _day, ...counts } of days)
    for (const key of Object.keys(totals) as Array<keyof RuntimeCountsDto>) totals[key] += counts[key];
  return totals;
}

type UsageRow = Awaited<ReturnType<typeof queries.usage>>[number];

/** The usage API's answer: the rows (sorted by day, hostname, status class) added up every way it shows them. */
export function usageReport({
  containerId,
  from,
  to,
  rows,
  runtimeDays,
}: {
  containerId: string;
  from: string;
  to: string;
  rows: UsageRow[];
  runtimeDays: Array<RuntimeCountsDto & { day: string }>;
}): UsageDto {
  const total = sumUsage(rows, () => 'all').get('all');
  return {
    container_id: containerId,
    from,
    to,
    total_requests: total?.requests ?? 0,
    total_request_bytes: total?.request_bytes ?? 0,
    total_response_bytes: total?.response_bytes ?? 0,
    days: [...sumUsage(rows, (row) => row.day)].map(([day, sums]) => ({ day, ...sums })),
    by_hostname: [...sumUsage(rows, (row) => row.hostname)]
      .map(([hostname, sums]) => ({ hostname, ...sums }))
      .sort((a, b) => b.requests - a.requests),
    by_status_class: Object.fromEntries(
      [...sumUsage(rows, (row) => row.statusClass)].map(([statusClass, sums]) => [statusClass, sums.requests]),
    ),
    runtime: { totals: sumRuntimeCounts(runtimeDays), days: runtimeDays },
    rows: rows.map((row) => ({
      day: row.day,
      hostname: row.hostname,
      status_class: row.statusClass,
      requests: row.requests,
      request_bytes: row.requestBytes,
      response_bytes: row.responseBytes,
    })),
  };
}
