import {
  CommonCodes,
  defineErrors,
  notFound,
  outboundUrlRefused,
  planLimitReached,
  transitionNotAllowed,
} from '../../lib/errors.js';
import type { OutboundRefusedError } from '../../lib/outbound.js';

const errors = defineErrors({
  channelMissing: {
    status: 400,
    code: 'notification_channel_missing',
    message: (id: string) => `No notification channel '${id}' in this tenant.`,
    extra: { param: 'notification_channel_ids' },
    example: ['nch_01jdv3k2m8q4r7s9t0v1w2x3y4'],
  },
  /** The first of invalid_target: its example is the one documented. */
  targetFieldMissing: {
    status: 400,
    code: 'invalid_target',
    message: (field: string, targetType: string) => `A ${targetType} target needs target.${field}.`,
    extra: (field: string) => ({ param: `target.${field}` }),
    example: ['container_id', 'container'],
  },
  fieldNotForTarget: {
    status: 400,
    code: 'invalid_target',
    message: (field: string, targetType: string) => `target.${field} does not apply to a ${targetType} target.`,
    extra: (field: string) => ({ param: `target.${field}` }),
    example: ['url', 'container'],
  },
  /** A 400, not a 404: the missing object is named in the body (target.container_id / target.domain_id). */
  targetMissing: {
    status: 400,
    code: 'resource_missing',
    message: (_field: string, targetType: string, reference: string) => `No ${targetType} ${reference} in this tenant.`,
    extra: (field: string) => ({ param: `target.${field}` }),
    example: ['container_id', 'container', "'ctr_01jdv3k2m8q4r7s9t0v1w2x3y4'"],
  },
  intervalTooShort: {
    status: 400,
    code: 'interval_too_short',
    message: (minimum: number) =>
      `Your plan checks at most every ${minimum} s; interval_seconds must be at least ${minimum}.`,
    extra: (minimum: number) => ({ param: 'interval_seconds', details: { minimum } }),
    example: [60],
  },
  keywordModeRequired: {
    status: 400,
    code: 'keyword_mode_required',
    message: 'Set keyword and keyword_mode together (or neither).',
    extra: (param: 'keyword' | 'keyword_mode') => ({ param }),
    example: ['keyword_mode'],
  },
  invalidRegex: {
    status: 400,
    code: 'invalid_regex',
    message: (why: string) => `keyword is not a valid regular expression: ${why}`,
    extra: { param: 'keyword' },
    example: ['Unterminated group'],
  },
  degradedAfterTooLong: {
    status: 400,
    code: 'invalid_degraded_after',
    message: 'degraded_after_ms must be below timeout_ms.',
    extra: { param: 'degraded_after_ms' },
  },
  alreadyPaused: {
    status: 409,
    code: 'monitor_already_paused',
    message: 'The monitor is already paused.',
    extra: { details: { allowed_actions: ['resume'] } },
  },
  notPaused: {
    status: 409,
    code: 'monitor_not_paused',
    message: 'The monitor is not paused.',
    extra: { details: { allowed_actions: ['pause'] } },
  },
});

export const MonitorErrors = {
  ...errors,
  notFound: (id: string) => notFound('monitor', id),
  incidentNotFound: (id: string) => notFound('incident', id),
  planLimitReached: (limit: number) => planLimitReached('monitors', limit),
  targetRefused: (refusal: OutboundRefusedError) => outboundUrlRefused(refusal, 'Monitor target', 'target.url'),
  incidentTransitionNotAllowed: (action: string, status: string, allowed: string[]) =>
    transitionNotAllowed(action, 'an incident', status, allowed),
};

/** What the settings of a monitor can be refused for, on create and on update (each code once). */
export const MONITOR_SETTINGS_ERRORS = [
  ...Object.values(errors).filter(
    (definition, index, all) =>
      definition.status === 400 && all.findIndex((other) => other.code === definition.code) === index,
  ),
  CommonCodes.httpsRequired,
  CommonCodes.urlNotAllowed,
];
