import type { FastifyBaseLogger } from 'fastify';

type LogMethod = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
type Bindings = Record<string, unknown>;
/** A pino logger: Fastify's logger type leaves out pino's isLevelEnabled. */
type PinoLogger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

const isPino = (logger: FastifyBaseLogger): logger is PinoLogger =>
  'isLevelEnabled' in logger && typeof logger.isLevelEnabled === 'function';

/**
 * The per-request logger, created only when a request actually logs at an enabled level. Pino builds a
 * child (with the request id) per request otherwise, which cost ~10 µs on every request; most requests
 * never log anything above the configured level.
 */
class LazyRequestLogger {
  private real: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: PinoLogger,
    private readonly bindings: Bindings,
    private readonly options: Bindings,
  ) {}

  private get logger(): FastifyBaseLogger {
    this.real ??= this.parent.child(this.bindings, this.options);
    return this.real;
  }

  get level(): string {
    return this.parent.level;
  }

  isLevelEnabled(level: string): boolean {
    return this.parent.isLevelEnabled(level);
  }

  private log(level: LogMethod, args: unknown[]): void {
    if (this.isLevelEnabled(level)) (this.logger[level] as (...values: unknown[]) => void)(...args);
  }

  // Prototype methods, not arrow-function fields: one object per request, no closures.
  trace(...args: unknown[]) {
    this.log('trace', args);
  }
  debug(...args: unknown[]) {
    this.log('debug', args);
  }
  info(...args: unknown[]) {
    this.log('info', args);
  }
  warn(...args: unknown[]) {
    this.log('warn', args);
  }
  error(...args: unknown[]) {
    this.log('error', args);
  }
  fatal(...args: unknown[]) {
    this.log('fatal', args);
  }
  silent() {}
  child(bindings: Bindings, options?: Bindings) {
    return this.logger.child(bindings, options);
  }
}

/** Fastify `childLoggerFactory`: lazy for pino, unless the route sets its own log level (or logging is off). */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, options: object): FastifyBaseLogger {
  if (!isPino(logger) || (options && Object.keys(options).length > 0)) return logger.child(bindings, options);
  // Cast: the lazy logger implements what Fastify calls on a request logger, not pino's whole Logger type.
  return new LazyRequestLogger(logger, bindings, options as Bindings) as unknown as FastifyBaseLogger;
}
