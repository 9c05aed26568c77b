import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.js';
import { loggableError } from './http/errors.js';
import { openConfiguredDatabase } from './process-start.js';
import { createServices, type Services } from './services.js';

/** A worker that dies is replaced after this pause (a crash loop costs one fork a second, not a busy loop). */
const RESPAWN_DELAY_MS = 1000;
const WORKER_STOP_TIMEOUT_MS = 8000;

/** What a gateway worker tells the primary once its listeners are up, or why it could not start. */
type WorkerMessage = { gatewayListening: string } | { gatewayFailed: string };

/** True in a process forked by `GatewayWorkers`: `tagport serve` then runs only the gateway. */
export const isGatewayWorker = (): boolean => cluster.isWorker;

/**
 * `GATEWAY_WORKERS` > 1: the gateway's listeners (plain and TLS) are served by that many forked processes
 * (node:cluster, connections handed out round-robin by this primary), each with its own connection to
 * PostgreSQL, its own route cache, metering buffer and upstream pool. The primary keeps the API and the
 * background workers, and replaces a gateway worker that dies. Metering reaches the database at each worker's
 * flush (GATEWAY_FLUSH_MS), so usage read through the API may lag by that much.
 */
export class GatewayWorkers {
  private readonly listening = new Set<Worker>();
  private stopping = false;

  constructor(
    private readonly count: number,
    private readonly log: {
      info(details: object, message: string): void;
      error(details: object, message: string): void;
    },
  ) {}

  /** Forks the workers; resolves with the gateway's address once every one listens, rejects if one cannot. */
  async start(): Promise<string> {
    const addresses = await Promise.all(Array.from({ length: this.count }, () => this.fork()));
    return addresses[0];
  }

  /** How many workers are serving now (the status page's Gateway check). */
  get serving(): number {
    return this.listening.size;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => Boolean(worker));
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            const timer = setTimeout(() => worker.kill('SIGKILL'), WORKER_STOP_TIMEOUT_MS);
            worker.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            worker.process.kill('SIGTERM');
          }),
      ),
    );
  }

  private fork(): Promise<string> {
    const worker = cluster.fork();
    return new Promise((resolve, reject) => {
      worker.once('message', (message: WorkerMessage) => {
        if ('gatewayFailed' in message)
          return reject(new Error(`A gateway worker failed to start: ${message.gatewayFailed}`));
        this.listening.add(worker);
        this.log.info({ worker_pid: worker.process.pid }, 'gateway worker listening');
        resolve(message.gatewayListening);
      });
      worker.once('exit', (code, signal) => {
        const wasListening = this.listening.delete(worker);
        if (!wasListening) return reject(new Error(`A gateway worker exited before listening (${signal ?? code}).`));
        if (this.stopping) return;
        this.log.error({ worker_pid: worker.process.pid, code, signal }, 'gateway worker exited; starting another');
        setTimeout(() => {
          if (!this.stopping)
            this.fork().catch((error: unknown) =>
              this.log.error({ err: loggableError(error) }, 'gateway worker restart failed'),
            );
        }, RESPAWN_DELAY_MS).unref();
      });
    });
  }
}

/**
 * The body of a gateway worker: the services on the shared PostgreSQL database (no migrations, no background
 * loops: those run in the primary), the gateway's listeners on the ports the primary shares, and a clean stop
 * (buffered metering and logs flushed) on SIGTERM or when the primary goes away.
 */
export async function serveGatewayWorker(config: Config): Promise<void> {
  const send = (message: WorkerMessage) => process.send?.(message);
  const onError = (error: unknown) => logLine(50, 'gateway worker error', { err: loggableError(error) });
  let services: Services | null = null;
  let closeDatabase: (() => Promise<void>) | null = null;
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      await services?.stop().catch(onError);
      await closeDatabase?.().catch(onError);
      process.exit(0);
    })();
    return stopping;
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => {}); // the primary gets the terminal's Ctrl-C and stops the workers itself
  process.on('disconnect', () => void stop());
  try {
    const database = await openConfiguredDatabase({ ...config, runMigrations: false });
    closeDatabase = () => database.close();
    services = createServices({ database, config: { ...config, runWorkers: false }, onError });
    await services.start();
    const address = await services.gateway.listen(config.gateway.port, config.host);
    if (services.gatewayTls && config.gateway.tlsPort != null)
      await services.gatewayTls.listen(config.gateway.tlsPort, config.host);
    send({ gatewayListening: address });
  } catch (error) {
    send({ gatewayFailed: error instanceof Error ? error.message : String(error) });
    onError(error);
    await stop();
  }
}

/** A log line in the primary's (pino's) JSON shape, on stderr; a worker has no Fastify app to log with. */
function logLine(level: number, msg: string, details: object) {
  process.stderr.write(`${JSON.stringify({ level, time: Date.now(), pid: process.pid, ...details, msg })}\n`);
}
