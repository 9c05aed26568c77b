/** No worker finished a `call()` in time. */
export class JobTimeoutError extends Error {
  constructor(queue: string) {
    super(`no worker finished the ${queue} job in time`);
  }
}

/**
 * pg-boss reports some failures as plain copies of the error (`{ ...error, message, stack, queue }`), which loggers
 * print as "[object Object]": made an Error again, with its code, so the log says what failed and 503 logic sees it.
 */
export function asError(error: unknown): unknown {
  if (error instanceof Error || typeof error !== 'object' || error === null) return error;
  const { message, stack, ...rest } = error as { message?: unknown; stack?: unknown };
  const copy = Object.assign(new Error(String(message ?? 'pg-boss error')), rest);
  if (typeof stack === 'string') copy.stack = stack;
  return copy;
}
