import { CommonCodes, defineErrors, notFound } from '../../lib/errors.js';

export const ReportErrors = {
  notFound: (id: string) => notFound('report', id),
  periodReversed: () =>
    CommonCodes.periodReversed.error('period_end must be after period_start.', { param: 'period_end' }),
  periodTooLong: (maxDays: number) =>
    CommonCodes.periodTooLong.error(`A report covers at most ${maxDays} days.`, {
      param: 'period_end',
      details: { max_days: maxDays },
    }),
  ...defineErrors({
    invalidDate: {
      status: 400,
      code: 'invalid_period',
      message: (param: 'period_start' | 'period_end') => `${param} is not a valid date-time.`,
      extra: (param: 'period_start' | 'period_end') => ({ param }),
      example: ['period_start'],
    },
    notReady: {
      status: 409,
      code: 'report_not_ready',
      message: (status: string) => `The report is ${status}; download it once it is ready.`,
      extra: (status: string) => ({ details: { status } }),
      example: ['building'],
    },
  }),
};
