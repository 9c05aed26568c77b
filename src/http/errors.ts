import type { OutboundRefusedError } from '../lib/outbound.js';
import type { ApiKeyErrorCode } from '../modules/api-keys/errors.js';
import type { AuthErrorCode } from '../modules/auth/errors.js';
import type { ContainerErrorCode } from '../modules/containers/errors.js';
import type { DomainErrorCode } from '../modules/domains/errors.js';
import type { MetaPixelErrorCode } from '../modules/meta-pixels/errors.js';
import type { MonitorErrorCode } from '../modules/monitors/errors.js';
import type { ReportErrorCode } from '../modules/reports/errors.js';
import type { TenantErrorCode } from '../modules/tenants/errors.js';
import type { TrackingCheckerErrorCode } from '../modules/tracking-checker/errors.js';
import type { WebhookErrorCode } from '../modules/webhooks/errors.js';

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'quota_error'
  | 'api_error';

export interface ApiErrorExtra {
  param?: string;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** The underlying failure: logged with the request id, never sent to the client. */
  cause?: unknown;
}

/** An error that becomes the project's error body: {error: {type, code, message, param?, details?}, api_meta}. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly type: ErrorType,
    readonly code: ErrorCode,
    message: string,
    readonly extra: ApiErrorExtra = {},
  ) {
    super(message);
  }
}

export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 405 | 408 | 409 | 413 | 415 | 422 | 429 | 431 | 500 | 503;

const TYPE_OF_STATUS: Record<ErrorStatus, ErrorType> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'quota_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  408: 'invalid_request_error',
  409: 'conflict_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
  431: 'invalid_request_error',
  500: 'api_error',
  503: 'api_error',
};

/** One code of an error catalogue: its status and type, and the one way to build its error. */
export interface ErrorCodeDefinition<C extends string = string> {
  readonly status: ErrorStatus;
  readonly type: ErrorType;
  readonly code: C;
  error(message: string, extra?: ApiErrorExtra): ApiError;
}

/** Declares a code of a catalogue; the type follows from the status unless given. */
export function errorCode<const C extends string>(
  status: ErrorStatus,
  code: C,
  type: ErrorType = TYPE_OF_STATUS[status],
): ErrorCodeDefinition<C> {
  return {
    status,
    type,
    code,
    error: (message, extra) => new ApiError(status, type, code as ErrorCode, message, extra),
  };
}

/** The code strings of a catalogue, as a union type. */
export type CodesOf<T extends Record<string, ErrorCodeDefinition>> = T[keyof T]['code'];

/** Every code the API can answer: the cross-cutting ones below and each module's catalogue. */
export type ErrorCode =
  | CodesOf<typeof HttpCodes>
  | ApiKeyErrorCode
  | AuthErrorCode
  | ContainerErrorCode
  | DomainErrorCode
  | MetaPixelErrorCode
  | MonitorErrorCode
  | ReportErrorCode
  | TenantErrorCode
  | TrackingCheckerErrorCode
  | WebhookErrorCode;

/** Cross-cutting codes: framework and validation errors, authentication, roles, rate limits, availability. */
export const HttpCodes = {
  // 400: the request as a whole, before any module sees it
  invalidParameter: errorCode(400, 'invalid_parameter'),
  unknownParameter: errorCode(400, 'unknown_parameter'),
  invalidJson: errorCode(400, 'invalid_json'),
  emptyBody: errorCode(400, 'empty_body'),
  invalidContentLength: errorCode(400, 'invalid_content_length'),
  invalidUrl: errorCode(400, 'invalid_url'),
  pathParameterTooLong: errorCode(400, 'path_parameter_too_long'),
  invalidCharacter: errorCode(400, 'invalid_character'),
  badRequest: errorCode(400, 'bad_request'),
  malformedRequest: errorCode(400, 'malformed_request'),
  requestTimeout: errorCode(408, 'request_timeout'),
  headersTooLarge: errorCode(431, 'headers_too_large'),
  bodyTooLarge: errorCode(413, 'body_too_large'),
  unsupportedMediaType: errorCode(415, 'unsupported_media_type'),
  methodNotAllowed: errorCode(405, 'method_not_allowed'),
  routeNotFound: errorCode(404, 'route_not_found'),
  // Shared by several modules
  resourceMissing: errorCode(404, 'resource_missing'),
  planLimitReached: errorCode(402, 'plan_limit_reached'),
  periodReversed: errorCode(400, 'period_reversed'),
  periodTooLong: errorCode(400, 'period_too_long'),
  httpsRequired: errorCode(400, 'https_required'),
  urlNotAllowed: errorCode(400, 'url_not_allowed'),
  invalidTransition: errorCode(409, 'invalid_transition'),
  // 401 and 403: credentials, roles and CSRF
  missingCredentials: errorCode(401, 'missing_credentials'),
  invalidAuthorizationHeader: errorCode(401, 'invalid_authorization_header'),
  invalidApiKey: errorCode(401, 'invalid_api_key'),
  apiKeyRevoked: errorCode(401, 'api_key_revoked'),
  apiKeyExpired: errorCode(401, 'api_key_expired'),
  credentialTenantArchived: errorCode(401, 'tenant_archived'),
  insufficientRole: errorCode(403, 'insufficient_role'),
  csrfTokenInvalid: errorCode(403, 'csrf_token_invalid'),
  // 429, 500, 503
  rateLimited: errorCode(429, 'rate_limited'),
  publicScanLimit: errorCode(429, 'public_scan_limit'),
  internalError: errorCode(500, 'internal_error'),
  serviceUnavailable: errorCode(503, 'service_unavailable'),
} as const;

/** 404 for an object that does not exist or belongs to another tenant. */
/** Ids are about 30 characters; a longer value (a header, say) is shortened rather than echoed whole. */
const MAX_ECHOED_ID = 64;
const echoed = (id: string) => (id.length > MAX_ECHOED_ID ? `${id.slice(0, MAX_ECHOED_ID)}…` : id);

export const notFound = (resource: string, id?: string) =>
  HttpCodes.resourceMissing.error(id ? `No ${resource} with id '${echoed(id)}'.` : `No such ${resource}.`, {
    param: id ? 'id' : undefined,
  });

/** 400 for a URL the outbound guard refused: `https_required`, or `otherwise` for every other reason. */
export const outboundUrlRefused = (
  refusal: OutboundRefusedError,
  what: string,
  param: string,
  otherwise: ErrorCodeDefinition = HttpCodes.urlNotAllowed,
) =>
  (refusal.code === 'https_required' ? HttpCodes.httpsRequired : otherwise).error(
    `${what} refused: ${refusal.message}`,
    {
      param,
    },
  );

/** 409 for an action the object's current state does not allow; `allowed_actions` names those it does. */
export const transitionNotAllowed = (action: string, thing: string, status: string, allowed: readonly string[]) =>
  HttpCodes.invalidTransition.error(
    `Cannot ${action} ${thing} that is ${status}; allowed: ${allowed.join(', ') || 'none'}.`,
    { details: { status, allowed_actions: allowed } },
  );

/** 401 with the challenge header. */
export const unauthenticated = (definition: ErrorCodeDefinition, message: string) =>
  definition.error(message, { headers: { 'www-authenticate': 'Bearer realm="tagport"' } });

/** The one answer for every plan limit (containers, monitors, client tenants). */
export const planLimitReached = (things: string, limit: number, remedy = 'delete one or upgrade') =>
  HttpCodes.planLimitReached.error(`Your plan allows ${limit} ${things}; ${remedy}.`, { details: { limit } });

/** Seconds a client should wait before retrying while a dependency (the database) is unreachable. */
export const RETRY_AFTER_UNAVAILABLE_SECONDS = 5;

export const serviceUnavailable = (cause?: unknown) =>
  HttpCodes.serviceUnavailable.error(
    `The service is temporarily unavailable; retry in ${RETRY_AFTER_UNAVAILABLE_SECONDS} seconds.`,
    {
      headers: { 'retry-after': String(RETRY_AFTER_UNAVAILABLE_SECONDS) },
      cause,
    },
  );

/**
 * Fields of an error that are safe to log. Everything else is dropped: Drizzle's `params` (a new key's
 * token_hash, a webhook's secret), pg's `detail` and `where` (the conflicting values), and whatever a
 * library attaches (request options, sockets, bodies).
 */
const LOGGED_FIELDS = [
  'code',
  'errno',
  'syscall',
  'statusCode',
  'severity',
  'constraint',
  'table',
  'column',
  'routine',
] as const;
const MAX_CAUSE_DEPTH = 4;

/** Drizzle writes the statement's parameters into the message too: `Failed query: <sql>\nparams: <values>`. */
function loggableMessage(message: string): string {
  return message.replace(/\nparams: [\s\S]*$/, '').slice(0, 2000);
}

export interface LoggedError {
  type: string;
  message: string;
  stack: string;
  [field: string]: unknown;
}

/** The pino `err` serializer: type, message, code, stack and cause chain of an error, without its data. */
export function loggableError(error: unknown, depth = 0): LoggedError {
  if (!(error instanceof Error)) return { type: typeof error, message: loggableMessage(String(error)), stack: '' };
  const message = loggableMessage(error.message);
  const type = error.constructor?.name || error.name;
  const frames = error.stack?.split('\n').filter((line) => line.startsWith('    at ')) ?? [];
  const logged: LoggedError = { type, message, stack: [`${type}: ${message}`, ...frames].join('\n') };
  for (const field of LOGGED_FIELDS) {
    const value = (error as unknown as Record<string, unknown>)[field];
    if (typeof value === 'string' || typeof value === 'number') logged[field] = value;
  }
  if (error instanceof AggregateError)
    logged.errors = error.errors.slice(0, 5).map((inner) => loggableError(inner, MAX_CAUSE_DEPTH));
  if (error.cause !== undefined && depth < MAX_CAUSE_DEPTH) logged.cause = loggableError(error.cause, depth + 1);
  return logged;
}
