import { CronExpressionParser } from 'cron-parser';

/** Why a schedule's cron expression cannot be used (five fields, UTC), or null when it can. */
export function cronProblem(expression: string): string | null {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5)
    return `must have five fields (minute hour day-of-month month day-of-week), got ${fields.length}`;
  try {
    CronExpressionParser.parse(expression, { tz: 'UTC' });
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The latest time at or before `now` the expression names (to the minute), in UTC. */
export function lastDueTime(expression: string, now: Date): Date {
  // Just past `now`'s minute, so that a run due this very minute counts as due.
  const justAfter = new Date(Math.floor(now.getTime() / 60_000) * 60_000 + 1000);
  return CronExpressionParser.parse(expression, { tz: 'UTC', currentDate: justAfter }).prev().toDate();
}
