import { type CodesOf, errorCode, CommonCodes, notFound } from '../../lib/errors.js';

export const ReportCodes = {
  invalidPeriod: errorCode(400, 'invalid_period', {
    message: 'period_start is not a valid date-time.',
    param: 'period_start',
  }),
  notReady: errorCode(409, 'report_not_ready', {
    message: 'The report is building; download it once it is ready.',
    details: { status: 'building' },
  }),
} as const;

export type ReportErrorCode = CodesOf<typeof ReportCodes>;

export const ReportErrors = {
  notFound: (id: string) => notFound('report', id),
  invalidDate: (param: 'period_start' | 'period_end') =>
    ReportCodes.invalidPeriod.error(`${param} is not a valid date-time.`, { param }),
  periodReversed: () =>
    CommonCodes.periodReversed.error('period_end must be after period_start.', { param: 'period_end' }),
  periodTooLong: (maxDays: number) =>
    CommonCodes.periodTooLong.error(`A report covers at most ${maxDays} days.`, {
      param: 'period_end',
      details: { max_days: maxDays },
    }),
  notReady: (status: string) =>
    ReportCodes.notReady.error(`The report is ${status}; download it once it is ready.`, { details: { status } }),
};
