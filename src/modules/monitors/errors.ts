import {
  type CodesOf,
  errorCode,
  CommonCodes,
  notFound,
  outboundUrlRefused,
  planLimitReached,
  transitionNotAllowed,
} from '../../lib/errors.js';
import type { OutboundRefusedError } from '../../lib/outbound.js';

export const MonitorCodes = {
  channelMissing: errorCode(400, 'notification_channel_missing', {
    message: "No notification channel 'nch_01jdv3k2m8q4r7s9t0v1w2x3y4' in this tenant.",
    param: 'notification_channel_ids',
  }),
  invalidTarget: errorCode(400, 'invalid_target', {
    message: 'A container target needs target.container_id.',
    param: 'target.container_id',
  }),
  /** A 400, not a 404: the missing object is named in the body (target.container_id / target.domain_id). */
  targetMissing: errorCode(400, 'resource_missing', {
    message: "No container 'ctr_01jdv3k2m8q4r7s9t0v1w2x3y4' in this tenant.",
    param: 'target.container_id',
  }),
  intervalTooShort: errorCode(400, 'interval_too_short', {
    message: 'Your plan checks at most every 60 s; interval_seconds must be at least 60.',
    param: 'interval_seconds',
    details: { minimum: 60 },
  }),
  keywordModeRequired: errorCode(400, 'keyword_mode_required', {
    message: 'Set keyword and keyword_mode together (or neither).',
    param: 'keyword_mode',
  }),
  invalidRegex: errorCode(400, 'invalid_regex', {
    message: 'keyword is not a valid regular expression: Unterminated group',
    param: 'keyword',
  }),
  invalidDegradedAfter: errorCode(400, 'invalid_degraded_after', {
    message: 'degraded_after_ms must be below timeout_ms.',
    param: 'degraded_after_ms',
  }),
  alreadyPaused: errorCode(409, 'monitor_already_paused', {
    message: 'The monitor is already paused.',
    details: { allowed_actions: ['resume'] },
  }),
  notPaused: errorCode(409, 'monitor_not_paused', {
    message: 'The monitor is not paused.',
    details: { allowed_actions: ['pause'] },
  }),
} as const;

export type MonitorErrorCode = CodesOf<typeof MonitorCodes>;

export const MonitorErrors = {
  notFound: (id: string) => notFound('monitor', id),
  incidentNotFound: (id: string) => notFound('incident', id),
  channelMissing: (id: string) =>
    MonitorCodes.channelMissing.error(`No notification channel '${id}' in this tenant.`, {
      param: 'notification_channel_ids',
    }),
  planLimitReached: (limit: number) => planLimitReached('monitors', limit),
  fieldNotForTarget: (field: string, targetType: string) =>
    MonitorCodes.invalidTarget.error(`target.${field} does not apply to a ${targetType} target.`, {
      param: `target.${field}`,
    }),
  targetFieldMissing: (field: string, targetType: string) =>
    MonitorCodes.invalidTarget.error(`A ${targetType} target needs target.${field}.`, { param: `target.${field}` }),
  targetMissing: (field: string, targetType: string, reference: string) =>
    MonitorCodes.targetMissing.error(`No ${targetType} ${reference} in this tenant.`, { param: `target.${field}` }),
  intervalTooShort: (minimum: number) =>
    MonitorCodes.intervalTooShort.error(
      `Your plan checks at most every ${minimum} s; interval_seconds must be at least ${minimum}.`,
      { param: 'interval_seconds', details: { minimum } },
    ),
  keywordModeRequired: (param: 'keyword' | 'keyword_mode') =>
    MonitorCodes.keywordModeRequired.error('Set keyword and keyword_mode together (or neither).', { param }),
  invalidRegex: (why: string) =>
    MonitorCodes.invalidRegex.error(`keyword is not a valid regular expression: ${why}`, { param: 'keyword' }),
  degradedAfterTooLong: () =>
    MonitorCodes.invalidDegradedAfter.error('degraded_after_ms must be below timeout_ms.', {
      param: 'degraded_after_ms',
    }),
  targetRefused: (refusal: OutboundRefusedError) => outboundUrlRefused(refusal, 'Monitor target', 'target.url'),
  alreadyPaused: () =>
    MonitorCodes.alreadyPaused.error('The monitor is already paused.', { details: { allowed_actions: ['resume'] } }),
  notPaused: () =>
    MonitorCodes.notPaused.error('The monitor is not paused.', { details: { allowed_actions: ['pause'] } }),
  incidentTransitionNotAllowed: (action: string, status: string, allowed: string[]) =>
    transitionNotAllowed(action, 'an incident', status, allowed),
};

/** What the settings of a monitor can be refused for, on create and on update. */
export const MONITOR_SETTINGS_ERRORS = [
  ...Object.values(MonitorCodes).filter((definition) => definition.status === 400),
  CommonCodes.httpsRequired,
  CommonCodes.urlNotAllowed,
];
