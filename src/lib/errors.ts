import type { OutboundRefusedError } from './outbound.js';

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'quota_error'
  | 'api_error';

export interface AppErrorExtra {
  param?: string;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** The underlying failure: logged with the request id, never sent to the client. */
  cause?: unknown;
}

/**
 * An error of the application: its code, status and type, its message and the field it is about. It knows
 * nothing of the HTTP layer, which turns any AppError into the project's error body
 * ({error: {type, code, message, param?, details?}, api_meta}).
 */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    readonly extra: AppErrorExtra = {},
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

/** One code of an error catalogue: its status and type, and its example (what the OpenAPI document shows). */
export interface ErrorDefinition<C extends string = string> {
  readonly status: ErrorStatus;
  readonly type: ErrorType;
  readonly code: C;
  readonly example?: ErrorExample;
}

/** A shared code, whose message each use writes: the definition and the one way to build its error. */
export interface ErrorCodeDefinition<C extends string = string> extends ErrorDefinition<C> {
  error(message: string, extra?: AppErrorExtra): AppError;
}

const DEFINITIONS = new Map<string, ErrorDefinition>();

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
    error: (message, extra) => new AppError(status, type, code, message, extra),
  };
  register(definition);
  return definition;
}

/** The first definition of a status and code documents it (a shared code before a module's use of it). */
function register(definition: ErrorDefinition): void {
  const key = `${definition.status} ${definition.code}`;
  if (!DEFINITIONS.has(key)) DEFINITIONS.set(key, definition);
}

/** The catalogue entry of a code answered with a status (every catalogue registers its codes as it loads). */
export const errorDefinition = (status: number, code: string): ErrorDefinition | undefined =>
  DEFINITIONS.get(`${status} ${code}`);

/** The code strings of a catalogue, as a union type. */
export type CodesOf<T extends Record<string, ErrorDefinition>> = T[keyof T]['code'];

/** Cross-cutting codes: framework and validation errors, authentication, roles, rate limits, availability. */
export const CommonCodes = {
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
  CommonCodes.resourceMissing.error(id ? `No ${resource} with id '${echoed(id)}'.` : `No such ${resource}.`, {
    param: id ? 'id' : undefined,
  });

/** 400 for a URL the outbound guard refused: `https_required`, or `otherwise` for every other reason. */
export const outboundUrlRefused = (
  refusal: OutboundRefusedError,
  what: string,
  param: string,
  otherwise: ErrorCodeDefinition = CommonCodes.urlNotAllowed,
) =>
  (refusal.code === 'https_required' ? CommonCodes.httpsRequired : otherwise).error(
    `${what} refused: ${refusal.message}`,
    {
      param,
    },
  );

/** 409 for an action the object's current state does not allow; `allowed_actions` names those it does. */
export const transitionNotAllowed = (action: string, thing: string, status: string, allowed: readonly string[]) =>
  CommonCodes.invalidTransition.error(
    `Cannot ${action} ${thing} that is ${status}; allowed: ${allowed.join(', ') || 'none'}.`,
    { details: { status, allowed_actions: allowed } },
  );

/** 401 with the challenge header. */
export const unauthenticated = (definition: ErrorCodeDefinition, message: string) =>
  definition.error(message, challenge());

/** The extra of a 401: the challenge header (`extra: challenge` in defineErrors). */
export const challenge = (): AppErrorExtra => ({ headers: { 'www-authenticate': 'Bearer realm="tagport"' } });

/** The one answer for every plan limit (containers, monitors, client tenants). */
export const planLimitReached = (things: string, limit: number, remedy = 'delete one or upgrade') =>
  CommonCodes.planLimitReached.error(`Your plan allows ${limit} ${things}; ${remedy}.`, { details: { limit } });

/** Seconds a client should wait before retrying while a dependency (the database) is unreachable. */
export const RETRY_AFTER_UNAVAILABLE_SECONDS = 5;

export const serviceUnavailable = (cause?: unknown) =>
  CommonCodes.serviceUnavailable.error(
    `The service is temporarily unavailable; retry in ${RETRY_AFTER_UNAVAILABLE_SECONDS} seconds.`,
    {
      headers: { 'retry-after': String(RETRY_AFTER_UNAVAILABLE_SECONDS) },
      cause,
    },
  );

/** What a module writes once per error: its status and code, its message, and its param and details. */
export interface ErrorSpec {
  readonly status: ErrorStatus;
  readonly code: string;
  /** The type of the status unless given. */
  readonly type?: ErrorType;
  /** The message, as is or built from the arguments of the error's factory. */
  readonly message: string | ((...args: never[]) => string);
  /** param, details, headers and cause: as are or built from the same arguments. */
  readonly extra?: AppErrorExtra | ((...args: never[]) => AppErrorExtra);
  /** The arguments the OpenAPI example is built with (the message and extra as they are when there are none). */
  readonly example?: readonly unknown[];
}

type Function_ = (...args: never[]) => unknown;
type ArgumentsOf<S extends ErrorSpec> = S['message'] extends Function_
  ? Parameters<S['message']>
  : S['extra'] extends Function_
    ? Parameters<S['extra']>
    : [];

/** An error of a module: called, it builds the error; as an object, it is the definition the OpenAPI lists. */
export type ErrorFactory<A extends unknown[], C extends string> = ((...args: A) => AppError) & ErrorDefinition<C>;

export type ErrorsOf<T extends Record<string, ErrorSpec>> = {
  readonly [K in keyof T]: ErrorFactory<ArgumentsOf<T[K]>, T[K]['code']>;
};

const build = (spec: ErrorSpec, type: ErrorType, args: unknown[]): AppError => {
  const call = <R>(value: R | ((...args: never[]) => R)) =>
    typeof value === 'function' ? (value as (...args: unknown[]) => R)(...args) : value;
  return new AppError(spec.status, type, spec.code, call(spec.message), call(spec.extra) ?? {});
};

/**
 * A module's errors, each written once: every entry is both the factory of its error and the definition of its
 * code (status, type, example), so the HTTP layer documents and answers them without knowing the module.
 */
export function defineErrors<const T extends Record<string, ErrorSpec>>(specs: T): ErrorsOf<T> {
  const errors: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const type = spec.type ?? TYPE_OF_STATUS[spec.status];
    const sample = build(spec, type, [...(spec.example ?? [])]);
    const example: ErrorExample = { message: sample.message };
    if (sample.extra.param !== undefined) example.param = sample.extra.param;
    if (sample.extra.details !== undefined) example.details = sample.extra.details;
    const factory = Object.assign((...args: unknown[]) => build(spec, type, args), {
      status: spec.status,
      type,
      code: spec.code,
      example,
    });
    Object.defineProperty(factory, 'name', { value: name });
    register(factory);
    errors[name] = factory;
  }
  return errors as ErrorsOf<T>;
}
