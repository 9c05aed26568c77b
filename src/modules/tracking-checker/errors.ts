import { CommonCodes, defineErrors, notFound } from '../../lib/errors.js';
import type { ScanTargetRefusedError, ScanTargetUnreachableError } from '../../scanner/errors.js';

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
  stillQueued: (id: string) =>
    CommonCodes.serviceUnavailable.error(
      `No worker finished the scan in time; it goes on: fetch it with GET /api/v1/tracking-checker/scans/${id}/.`,
      { headers: { 'retry-after': '30' }, details: { scan_id: id } },
    ),
  ...defineErrors({
    /**
     * 422 for a page that could not be loaded, the code of the scanner's error: the message describes the
     * target; what failed on our side is only logged.
     */
    targetUnreachable: {
      status: 422,
      code: 'target_unreachable',
      message: (error: Pick<ScanTargetUnreachableError, 'message' | 'cause'>, _scanId?: string) => error.message,
      extra: (error: Pick<ScanTargetUnreachableError, 'message' | 'cause'>, scanId?: string) => ({
        param: 'url',
        details: scanId ? { scan_id: scanId } : undefined,
        cause: error.cause,
      }),
      example: [{ message: 'shop.example.com did not answer within 15 s.' }],
    },
    quotaExceeded: {
      status: 429,
      code: 'scan_quota_exceeded',
      type: 'quota_error',
      message: (limit: number, _windowSeconds: number, resetSeconds: number) =>
        `The hourly scan quota of ${limit} is used up; a slot frees in ${resetSeconds} s.`,
      extra: (limit: number, windowSeconds: number, resetSeconds: number) => ({
        headers: { 'retry-after': String(resetSeconds) },
        details: { limit, window_seconds: windowSeconds, retry_after_seconds: resetSeconds },
      }),
      example: [60, 3600, 1260],
    },
    /** Also the code stored with a scan that failed for a reason of ours. */
    failed: {
      status: 409,
      code: 'scan_failed',
      message: (error: { message?: string } | null) => `The scan failed: ${error?.message ?? 'unknown error'}.`,
      extra: (error: { message?: string } | null) => ({ details: { error } }),
      example: [{ message: 'the browser could not be started' }],
    },
  }),
};
