import type * as queries from './queries.js';
import type { RuntimeCountsDto } from './schemas.js';

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
