import { type CodesOf, errorCode } from '../../lib/errors.js';
import { cronProblem } from './cron.js';

export const RequestPowerupCodes = {
  invalidCron: errorCode(400, 'invalid_cron', {
    message:
      'settings.schedule.requests[0].cron must have five fields (minute hour day-of-month month day-of-week), got 6.',
    param: 'settings.schedule.requests[0].cron',
  }),
} as const;

export type RequestPowerupErrorCode = CodesOf<typeof RequestPowerupCodes>;

/** Refuses a schedule whose cron expression cannot be used, naming the field (`settings.schedule.requests[i].cron`). */
export function checkSchedule(schedule: { requests?: Array<{ cron: string }> } | undefined): void {
  for (const [index, request] of (schedule?.requests ?? []).entries()) {
    const problem = cronProblem(request.cron);
    const param = `settings.schedule.requests[${index}].cron`;
    if (problem) throw RequestPowerupCodes.invalidCron.error(`${param} ${problem}.`, { param });
  }
}
