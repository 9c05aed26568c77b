/**
 * The HTTP edge of the errors: the application's errors (src/lib/errors.ts) under the names src/http uses, and
 * how an error is logged. It imports no module: a module's errors are AppErrors, answered and documented as such.
 */
export {
  AppError as ApiError,
  type AppErrorExtra as ApiErrorExtra,
  CommonCodes as HttpCodes,
  type CodesOf,
  type ErrorCodeDefinition,
  type ErrorDefinition,
  type ErrorExample,
  type ErrorStatus,
  type ErrorType,
  errorCode,
  errorDefinition,
  notFound,
  outboundUrlRefused,
  planLimitReached,
  RETRY_AFTER_UNAVAILABLE_SECONDS,
  serviceUnavailable,
  transitionNotAllowed,
  unauthenticated,
} from '../lib/errors.js';

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
    // The logged fields (code, errno, …) are read off any Error, whose type does not declare them.
    const value: unknown = Reflect.get(error, field);
    if (typeof value === 'string' || typeof value === 'number') logged[field] = value;
  }
  if (error instanceof AggregateError)
    logged.errors = error.errors.slice(0, 5).map((inner) => loggableError(inner, MAX_CAUSE_DEPTH));
  if (error.cause !== undefined && depth < MAX_CAUSE_DEPTH) logged.cause = loggableError(error.cause, depth + 1);
  return logged;
}
