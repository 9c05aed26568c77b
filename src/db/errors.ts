/**
 * The one place that decides whether an error means "the database cannot be reached right now" (answered
 * 503 and shown on the status page) rather than a bug or bad data (answered 500).
 */

/** Socket errors of the PostgreSQL connection (node-postgres passes them through). */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * SQLSTATEs of a server that is going away or not accepting connections: class 08 (connection exception),
 * admin/crash shutdown, "the database system is starting up / shutting down", too many connections.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** node-postgres, pg-pool and PGlite raise these as plain Errors without a code. */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /is not queryable$/,
  /^Cannot use a pool after calling end on the pool$/,
  /^PGlite is clos(ed|ing)$/,
];

function isUnavailableCause(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (SOCKET_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))
  )
    return true;
  return UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(error.message));
}

/** True when the error, or one of its causes (Drizzle wraps driver errors), is a database connection failure. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current = error; current && !seen.has(current); current = (current as { cause?: unknown }).cause) {
    seen.add(current);
    if (isUnavailableCause(current)) return true;
    if (current instanceof AggregateError && current.errors.some(isUnavailableCause)) return true;
  }
  return false;
}
