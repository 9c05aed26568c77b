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
    readonly code: string,
    message: string,
    readonly extra: ApiErrorExtra = {},
  ) {
    super(message);
  }
}

export const invalidRequest = (code: string, message: string, param?: string, details?: Record<string, unknown>) =>
  new ApiError(400, 'invalid_request_error', code, message, { param, details });

/** Ids are about 30 characters; a longer value (a header, say) is shortened rather than echoed whole. */
const MAX_ECHOED_ID = 64;
const echoed = (id: string) => (id.length > MAX_ECHOED_ID ? `${id.slice(0, MAX_ECHOED_ID)}…` : id);

export const notFound = (resource: string, id?: string) =>
  new ApiError(
    404,
    'not_found_error',
    'resource_missing',
    id ? `No ${resource} with id '${echoed(id)}'.` : `No such ${resource}.`,
    {
      param: id ? 'id' : undefined,
    },
  );

export const forbidden = (code: string, message: string) => new ApiError(403, 'permission_error', code, message);

export const conflict = (code: string, message: string, details?: Record<string, unknown>) =>
  new ApiError(409, 'conflict_error', code, message, { details });

export const unauthenticated = (code: string, message: string) =>
  new ApiError(401, 'authentication_error', code, message, {
    headers: { 'www-authenticate': 'Bearer realm="tagport"' },
  });

/** The one answer for every plan limit (containers, monitors, client tenants). */
export const planLimitReached = (things: string, limit: number, remedy = 'delete one or upgrade') =>
  new ApiError(402, 'quota_error', 'plan_limit_reached', `Your plan allows ${limit} ${things}; ${remedy}.`, {
    details: { limit },
  });

/** Seconds a client should wait before retrying while a dependency (the database) is unreachable. */
export const RETRY_AFTER_UNAVAILABLE_SECONDS = 5;

export const serviceUnavailable = (cause?: unknown) =>
  new ApiError(
    503,
    'api_error',
    'service_unavailable',
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
