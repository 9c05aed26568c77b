import type { OutboundRefusedError } from '../lib/outbound.js';
import type { ApiKeyErrorCode } from '../modules/api-keys/errors.js';
import type { AuthErrorCode } from '../modules/auth/errors.js';
import type { ContainerErrorCode } from '../modules/containers/errors.js';
import type { DomainErrorCode } from '../modules/domains/errors.js';
import type { MetaPixelErrorCode } from '../modules/meta-pixels/errors.js';
import type { RequestPowerupErrorCode } from '../modules/request-powerups/errors.js';
import type { MonitorErrorCode } from '../modules/monitors/errors.js';
import type { NotificationErrorCode } from '../modules/notifications/errors.js';
import type { ReportErrorCode } from '../modules/reports/errors.js';
import type { StatusErrorCode } from '../modules/status/errors.js';
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

/** What an error of a code looks like, shown as its example in the OpenAPI document. */
export interface ErrorExample {
  message: string;
  param?: string;
  details?: Record<string, unknown>;
}

/** One code of an error catalogue: its status and type, its example, and the one way to build its error. */
export interface ErrorCodeDefinition<C extends string = string> {
  readonly status: ErrorStatus;
  readonly type: ErrorType;
  readonly code: C;
  readonly example?: ErrorExample;
  error(message: string, extra?: ApiErrorExtra): ApiError;
}

const DEFINITIONS = new Map<string, ErrorCodeDefinition>();

/**
 * Declares a code of a catalogue, with the example the OpenAPI document shows for it (`type` is the one of
 * the status unless given, as a string before the example or in place of it).
 */
export function errorCode<const C extends string>(
  status: ErrorStatus,
  code: C,
  typeOrExample?: ErrorType | ErrorExample,
  example?: ErrorExample,
): ErrorCodeDefinition<C> {
  const type = typeof typeOrExample === 'string' ? typeOrExample : TYPE_OF_STATUS[status];
  const definition: ErrorCodeDefinition<C> = {
    status,
    type,
    code,
    example: typeof typeOrExample === 'object' ? typeOrExample : example,
    error: (message, extra) => new ApiError(status, type, code as ErrorCode, message, extra),
  };
  DEFINITIONS.set(`${status} ${code}`, definition);
  return definition;
}

/** The catalogue entry of a code answered with a status (every catalogue registers its codes as it loads). */
export const errorDefinition = (status: number, code: string): ErrorCodeDefinition | undefined =>
  DEFINITIONS.get(`${status} ${code}`);

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
  | NotificationErrorCode
  | ReportErrorCode
  | RequestPowerupErrorCode
  | StatusErrorCode
  | TenantErrorCode
  | TrackingCheckerErrorCode
  | WebhookErrorCode;

/** Cross-cutting codes: framework and validation errors, authentication, roles, rate limits, availability. */
export const HttpCodes = {
  // 400: the request as a whole, before any module sees it
  invalidParameter: errorCode(400, 'invalid_parameter', {
    message: "The query parameter 'page_size' must be <= 100.",
    param: 'page_size',
    details: { location: 'querystring' },
  }),
  unknownParameter: errorCode(400, 'unknown_parameter', {
    message: "Unknown field 'colour'.",
    param: 'colour',
    details: { location: 'body' },
  }),
  invalidJson: errorCode(400, 'invalid_json', { message: 'The request body is not valid JSON.' }),
  emptyBody: errorCode(400, 'empty_body', {
    message: 'The request has Content-Type application/json but an empty body.',
  }),
  invalidContentLength: errorCode(400, 'invalid_content_length', {
    message: 'The Content-Length header does not match the body.',
  }),
  invalidUrl: errorCode(400, 'invalid_url', { message: 'The request URL is malformed (an invalid percent-encoding).' }),
  pathParameterTooLong: errorCode(400, 'path_parameter_too_long', {
    message: 'A path parameter is longer than 200 characters.',
  }),
  invalidCharacter: errorCode(400, 'invalid_character', {
    message: "The field 'name' contains the control character U+0000, which is not allowed.",
    param: 'name',
    details: { location: 'body', character: 'U+0000' },
  }),
  badRequest: errorCode(400, 'bad_request', {
    message: 'The request could not be processed; check its method, headers and body.',
  }),
  invalidCursor: errorCode(400, 'invalid_cursor', {
    message: 'starting_after is not the id of an object in this list.',
    param: 'starting_after',
  }),
  conflictingPagination: errorCode(400, 'conflicting_pagination', {
    message: 'Send page or starting_after, not both.',
    param: 'page',
  }),
  malformedRequest: errorCode(400, 'malformed_request', {
    message: 'The request is not valid HTTP/1.1 (request line or headers).',
  }),
  requestTimeout: errorCode(408, 'request_timeout', { message: 'The request was not received in time.' }),
  headersTooLarge: errorCode(431, 'headers_too_large', { message: 'The request headers are too large.' }),
  bodyTooLarge: errorCode(413, 'body_too_large', { message: 'The request body is larger than the limit of 1 MB.' }),
  unsupportedMediaType: errorCode(415, 'unsupported_media_type', {
    message: 'Send the request body as application/json.',
  }),
  methodNotAllowed: errorCode(405, 'method_not_allowed', {
    message: 'PUT is not allowed on /api/containers/; allowed: GET, POST.',
  }),
  routeNotFound: errorCode(404, 'route_not_found', { message: 'No route GET /api/containerz/.' }),
  // Shared by several modules
  resourceMissing: errorCode(404, 'resource_missing', {
    message: "No container with id 'ctr_01jdv3k2m8q4r7s9t0v1w2x3y4'.",
    param: 'id',
  }),
  planLimitReached: errorCode(402, 'plan_limit_reached', {
    message: 'Your plan allows 3 containers; delete one or upgrade.',
    details: { limit: 3 },
  }),
  periodReversed: errorCode(400, 'period_reversed', { message: 'from must not be after to.', param: 'from' }),
  periodTooLong: errorCode(400, 'period_too_long', { message: 'At most 366 days at a time.', param: 'to' }),
  httpsRequired: errorCode(400, 'https_required', {
    message: 'upstream_url refused: Only https URLs are allowed.',
    param: 'upstream_url',
  }),
  urlNotAllowed: errorCode(400, 'url_not_allowed', {
    message: 'Refused 10.0.0.7: private address.',
    param: 'url',
    details: { reason: 'private_address' },
  }),
  invalidTransition: errorCode(409, 'invalid_transition', {
    message: 'Cannot stop a container that is stopped; allowed: start, delete.',
    details: { status: 'stopped', allowed_actions: ['start', 'delete'] },
  }),
  // 401 and 403: credentials, roles and CSRF
  missingCredentials: errorCode(401, 'missing_credentials', {
    message: 'Send an API key in the header "Authorization: Bearer tgp_…".',
  }),
  invalidAuthorizationHeader: errorCode(401, 'invalid_authorization_header', {
    message: 'Use the header "Authorization: Bearer tgp_…".',
  }),
  invalidApiKey: errorCode(401, 'invalid_api_key', { message: 'The API key is not valid.' }),
  apiKeyRevoked: errorCode(401, 'api_key_revoked', { message: 'The API key has been revoked.' }),
  apiKeyExpired: errorCode(401, 'api_key_expired', { message: 'The API key has expired.' }),
  credentialTenantArchived: errorCode(401, 'tenant_archived', { message: 'The tenant of this API key is archived.' }),
  insufficientRole: errorCode(403, 'insufficient_role', {
    message: 'This operation needs the admin role or higher; this API key has the member role.',
    details: { required_role: 'admin', role: 'member' },
  }),
  csrfTokenInvalid: errorCode(403, 'csrf_token_invalid', {
    message: 'Missing or invalid CSRF token: send the token from GET /api/auth/session in the X-CSRF-Token header.',
  }),
  // 429, 500, 503
  rateLimited: errorCode(429, 'rate_limited', {
    message: 'Rate limit of 100 requests per minute exceeded; retry in 17 s.',
    details: { limit: 100, window_seconds: 60, retry_after_seconds: 17 },
  }),
  publicScanLimit: errorCode(429, 'public_scan_limit', {
    message: 'The public checker allows 10 scans per hour per address; retry in 1260 s, or use the API with a key.',
  }),
  internalError: errorCode(500, 'internal_error', {
    message: 'An unexpected error occurred. Quote the request id if you contact us.',
  }),
  serviceUnavailable: errorCode(503, 'service_unavailable', {
    message: 'The service is temporarily unavailable; retry in 5 seconds.',
  }),
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
