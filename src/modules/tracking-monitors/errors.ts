import { CommonCodes, defineErrors, notFound, planLimitReached } from '../../lib/errors.js';
import { MonitorErrors } from '../monitors/errors.js';

const errors = defineErrors({
  containerMissing: {
    status: 400,
    code: 'resource_missing',
    message: (id: string) => `No container ${id} in this tenant.`,
    extra: { param: 'container_id' },
    example: ["'ctr_01jdv3k2m8q4r7s9t0v1w2x3y4'"],
  },
  intervalTooShort: {
    status: 400,
    code: 'interval_too_short',
    message: (minimum: number) =>
      `Your plan runs a tracking monitor at most every ${minimum} s; interval_seconds must be at least ${minimum}.`,
    extra: (minimum: number) => ({ param: 'interval_seconds', details: { minimum } }),
    example: [3600],
  },
  tooManyPages: {
    status: 400,
    code: 'too_many_pages',
    message: (limit: number) =>
      `Your plan scans at most ${limit} pages per run; pages and follow_links together ask for more.`,
    extra: (limit: number) => ({ param: 'pages', details: { limit } }),
    example: [10],
  },
  alreadyPaused: {
    status: 409,
    code: 'monitor_already_paused',
    message: 'The tracking monitor is already paused.',
    extra: { details: { allowed_actions: ['resume'] } },
  },
  notPaused: {
    status: 409,
    code: 'monitor_not_paused',
    message: 'The tracking monitor is not paused.',
    extra: { details: { allowed_actions: ['pause'] } },
  },
  noRunToAccept: {
    status: 409,
    code: 'no_run_to_accept',
    message: 'No run with pages to compare yet: run the monitor first (a failed run cannot be a baseline).',
    extra: { param: 'run_id' },
  },
  runNotComparable: {
    status: 409,
    code: 'run_not_comparable',
    message: (result: string) => `A ${result} run cannot be the baseline; choose a run that scanned every page.`,
    extra: { param: 'run_id' },
    example: ['failed'],
  },
});

export const TrackingMonitorErrors = {
  ...errors,
  /** The same refusal as an uptime monitor's: a channel id that is not the tenant's. */
  channelMissing: MonitorErrors.channelMissing,
  notFound: (id: string) => notFound('tracking monitor', id),
  runNotFound: (id: string) => notFound('run', id),
  planLimitReached: (limit: number) => planLimitReached('tracking monitors', limit),
  invalidPage: (index: number, why: string) =>
    CommonCodes.invalidUrl.error(`pages[${index}]: ${why}`, { param: `pages[${index}]` }),
};

/** What the settings of a tracking monitor can be refused for, on create and on update. */
export const TRACKING_MONITOR_SETTINGS_ERRORS = [
  MonitorErrors.channelMissing,
  errors.containerMissing,
  errors.intervalTooShort,
  errors.tooManyPages,
  CommonCodes.invalidUrl,
];
