import { type CodesOf, errorCode, CommonCodes, notFound } from '../../lib/errors.js';
import type { ScanTargetRefusedError, ScanTargetUnreachableError } from '../../scanner/errors.js';

export const TrackingCheckerCodes = {
  /** Same code as the scanner's error: the page could not be loaded. */
  targetUnreachable: errorCode(422, 'target_unreachable', {
    message: 'shop.example.com did not answer within 15 s.',
    param: 'url',
  }),
  scanQuotaExceeded: errorCode(429, 'scan_quota_exceeded', 'quota_error', {
    message: 'The hourly scan quota of 60 is used up; a slot frees in 1260 s.',
    details: { limit: 60, window_seconds: 3600, retry_after_seconds: 1260 },
  }),
  scanInProgress: errorCode(409, 'scan_in_progress', {
    message: 'The scan is still running; its result is returned by the POST that started it.',
  }),
  /** Also the code stored with a scan that failed for a reason of ours. */
  scanFailed: errorCode(409, 'scan_failed', {
    message: 'The scan failed: the browser could not be started.',
    details: { error: { message: 'the browser could not be started' } },
  }),
} as const;

export type TrackingCheckerErrorCode = CodesOf<typeof TrackingCheckerCodes>;

export const TrackingCheckerErrors = {
  notFound: (id: string) => notFound('scan', id),
  invalidUrl: (why: string) => CommonCodes.invalidUrl.error(why, { param: 'url' }),
  unsupportedLanguage: (tag: string, supported: readonly string[]) =>
    CommonCodes.invalidParameter.error(
      `The language '${tag.slice(0, 35)}' is not supported; use one of: ${supported.join(', ')} (a tag like de-DE uses de).`,
      { param: 'language', details: { location: 'body', allowed_values: supported } },
    ),
  urlNotAllowed: (refusal: ScanTargetRefusedError) =>
    CommonCodes.urlNotAllowed.error(refusal.message, { param: 'url', details: { reason: refusal.code } }),
  /** 422 for a page that could not be loaded: the message describes the target; what failed on our side is only logged. */
  targetUnreachable: (error: ScanTargetUnreachableError, scanId?: string) =>
    TrackingCheckerCodes.targetUnreachable.error(error.message, {
      param: 'url',
      details: scanId ? { scan_id: scanId } : undefined,
      cause: error.cause,
    }),
  quotaExceeded: (limit: number, windowSeconds: number, resetSeconds: number) =>
    TrackingCheckerCodes.scanQuotaExceeded.error(
      `The hourly scan quota of ${limit} is used up; a slot frees in ${resetSeconds} s.`,
      {
        headers: { 'retry-after': String(resetSeconds) },
        details: { limit, window_seconds: windowSeconds, retry_after_seconds: resetSeconds },
      },
    ),
  inProgress: () =>
    TrackingCheckerCodes.scanInProgress.error(
      'The scan is still running; its result is returned by the POST that started it.',
    ),
  stillQueued: (id: string) =>
    CommonCodes.serviceUnavailable.error(
      `No worker finished the scan in time; it goes on: fetch it with GET /api/v1/tracking-checker/scans/${id}/.`,
      { headers: { 'retry-after': '30' }, details: { scan_id: id } },
    ),
  failed: (error: { message?: string } | null) =>
    TrackingCheckerCodes.scanFailed.error(`The scan failed: ${error?.message ?? 'unknown error'}.`, {
      details: { error },
    }),
};
