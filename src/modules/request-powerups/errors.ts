import { defineErrors } from '../../lib/errors.js';
import { cronProblem } from './cron.js';

export const RequestPowerupErrors = defineErrors({
  invalidCron: {
    status: 400,
    code: 'invalid_cron',
    message: (param: string, problem: string) => `${param} ${problem}.`,
    extra: (param: string) => ({ param }),
    example: [
      'settings.schedule.requests[0].cron',
      'must have five fields (minute hour day-of-month month day-of-week), got 6',
    ],
  },
});

/** Refuses a schedule whose cron expression cannot be used, naming the field (`settings.schedule.requests[i].cron`). */
export function checkSchedule(schedule: { requests?: Array<{ cron: string }> } | undefined): void {
  for (const [index, request] of (schedule?.requests ?? []).entries()) {
    const problem = cronProblem(request.cron);
    const param = `settings.schedule.requests[${index}].cron`;
    if (problem) throw RequestPowerupErrors.invalidCron(param, problem);
  }
}
