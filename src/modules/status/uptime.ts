/** One UTC day of a component's self-checks; `uptime_percent` is null on a day without checks. */
export interface DayUptime {
  date: string;
  checks: number;
  failures: number;
  uptime_percent: number | null;
}

const percent = (checks: number, failures: number) =>
  checks === 0 ? null : Math.floor(((checks - failures) / checks) * 10_000) / 100;

/** The last `days` UTC days ending today, oldest first, and the uptime over all of them. */
export function uptimeDays(
  rows: Array<{ day: string; checks: number; failures: number }>,
  days: number,
  now: number,
): { uptime_percent: number | null; days: DayUptime[] } {
  const byDay = new Map(rows.map((row) => [row.day, row]));
  const list: DayUptime[] = [];
  for (let back = days - 1; back >= 0; back--) {
    const date = new Date(now - back * 86_400_000).toISOString().slice(0, 10);
    const row = byDay.get(date);
    const checks = row?.checks ?? 0;
    const failures = row?.failures ?? 0;
    list.push({ date, checks, failures, uptime_percent: percent(checks, failures) });
  }
  const checks = list.reduce((sum, day) => sum + day.checks, 0);
  const failures = list.reduce((sum, day) => sum + day.failures, 0);
  return { uptime_percent: percent(checks, failures), days: list };
}
