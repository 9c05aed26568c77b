import { sql } from 'drizzle-orm';
import { fromDrizzle, PgBoss, type Job, type JobInsert, type JobResult, type Queue, type SendOptions } from 'pg-boss';
import type { Db } from '../db/index.js';
import { JOB_SCHEMA, type JobStore } from '../db/job-store.js';
import { JobPool } from './pool.js';

export type JobHandler<T> = (data: T, job: Job<T>) => Promise<unknown>;
export type QueueOptions = Omit<Queue, 'name' | 'notify'>;

interface QueueSpec {
  options: QueueOptions;
  handler: JobHandler<never> | null;
  concurrency: number;
  /** Jobs one handler slot fetches at once (run side by side); 1 for jobs that hold a scarce resource (Chromium). */
  batchSize: number;
  /** Work a request waits for (scans): run whenever the process works jobs, also when background work is off. */
  onDemand: boolean;
  /** Run by a `JobPool` (each job settled on its own, `concurrency` at once) polling every `pollMs`; null: `work()`. */
  pool: { pollMs: number } | null;
}

/** How a worker runs a queue's jobs: `concurrency` at once, `batchSize` fetched per slot, `onDemand` and `pool` as in `QueueSpec`. */
export interface WorkOptions {
  concurrency?: number;
  batchSize?: number;
  onDemand?: boolean;
  pool?: { pollMs: number } | null;
}

/** What a process runs: every queue, only the queues requests wait for, or nothing (it only sends). */
export type WorkMode = 'all' | 'on-demand' | 'none';

export interface JobEngineSettings {
  /** Seconds between polls for jobs no NOTIFY announced (deferred and retried ones); ≥ 0.5. */
  pollingIntervalSeconds: number;
  /** Seconds between supervision passes: expired jobs and jobs whose worker stopped heartbeating are retried. */
  superviseIntervalSeconds: number;
  /** Name of this process in pg-boss's instance registry (its roles). */
  instanceName: string;
  onError: (error: unknown) => void;
}

/** Jobs that have not finished, by state: what `idle()` and the queue figures read. */
const UNFINISHED = ['created', 'retry', 'active'];
/** A worker that stops heartbeating for this long (it died, or lost the database) loses its job to another. */
const HEARTBEAT_SECONDS = 10;
const WATCHDOG = 'periodic-watchdog';
/** How often `call()` looks whether its job has finished. */
const CALL_POLL_MS = 100;

/** No worker finished a `call()` in time. */
export class JobTimeoutError extends Error {
  constructor(queue: string) {
    super(`no worker finished the ${queue} job in time`);
  }
}

/**
 * The one job engine: pg-boss on the application's database. Modules declare their queues and steps in their `jobs.ts`
 * (registered by `src/services.ts`), every process may send, and only processes with the worker role `start({ work: true })` run them.
 * Jobs live in the database, so they survive restarts; a job held by a process that dies is retried by another
 * once its heartbeat lapses.
 */
export class JobEngine {
  private boss: PgBoss | null = null;
  private readonly queues = new Map<string, QueueSpec>();
  private readonly periodic = new Map<string, number>();
  private working = false;
  private pools: JobPool[] = [];
  private stopping: Promise<void> | null = null;
  private readonly store: JobStore;

  constructor(
    { store }: { store: JobStore },
    private readonly settings: JobEngineSettings,
  ) {
    this.store = store;
  }

  /** Declares a queue and, for workers, how its jobs run (one at a time per job, `concurrency` per process). */
  define<T extends object>(
    name: string,
    options: QueueOptions,
    handler: JobHandler<T> | null = null,
    { concurrency = 4, batchSize = 5, onDemand = false, pool = null }: WorkOptions = {},
  ): void {
    this.queues.set(name, {
      options: { heartbeatSeconds: HEARTBEAT_SECONDS, ...options },
      handler: handler as JobHandler<never> | null,
      concurrency,
      batchSize,
      onDemand,
      pool,
    });
  }

  /**
   * Runs `run` every `intervalMs` on one worker of the whole cluster: each run queues the next (a `stately` queue
   * holds at most one waiting and one running job, so starts of many workers add nothing), and a minute watchdog
   * restarts a chain whose next job was lost (say the database was down when it was sent).
   */
  every(name: string, intervalMs: number, run: () => Promise<unknown>): void {
    this.periodic.set(name, intervalMs);
    this.define(
      name,
      { policy: 'stately', retryLimit: 1, expireInSeconds: 3600, deleteAfterSeconds: 3600 },
      async () => {
        try {
          await run();
        } catch (error) {
          this.settings.onError(error);
        } finally {
          await this.send(name, {}, { startAfter: new Date(Date.now() + intervalMs) }).catch(this.settings.onError);
        }
      },
      { concurrency: 1, batchSize: 1 },
    );
  }

  get started(): boolean {
    return this.boss !== null;
  }

  async start({ work }: { work: WorkMode }): Promise<void> {
    if (this.boss) return;
    const background = work === 'all';
    const boss = new PgBoss({
      ...this.store,
      schema: JOB_SCHEMA,
      migrate: true,
      supervise: work !== 'none',
      schedule: background,
      superviseIntervalSeconds: this.settings.superviseIntervalSeconds,
      monitorIntervalSeconds: this.settings.superviseIntervalSeconds,
      useListenNotify: true,
      instanceName: this.settings.instanceName,
      persistWarnings: false,
    });
    boss.on('error', (error) => this.settings.onError(asError(error)));
    await boss.start();
    this.boss = boss;
    if (background && this.periodic.size)
      this.define(WATCHDOG, { policy: 'stately', retryLimit: 0 }, () => this.watchdog(), {
        concurrency: 1,
        batchSize: 1,
      });
    for (const [name, spec] of this.queues) {
      await boss.createQueue(name, { ...spec.options, notify: true });
      const { policy: _policy, partition: _partition, ...changeable } = spec.options;
      await boss.updateQueue(name, changeable);
    }
    if (work === 'none') return;
    this.working = true;
    for (const [name, spec] of this.queues) {
      const handler = spec.handler;
      if (!handler || !(background || spec.onDemand)) continue;
      if (spec.pool) {
        this.startPool(boss, name, handler, spec.concurrency, spec.pool.pollMs);
        continue;
      }
      await boss.work<object>(
        name,
        {
          batchSize: spec.batchSize,
          // A full batch means more is waiting: fetch again at once instead of after the polling interval.
          burstWhenBatchFull: spec.batchSize > 1,
          localConcurrency: spec.concurrency,
          pollingIntervalSeconds: this.settings.pollingIntervalSeconds,
          // NOTIFY wakes workers for new jobs only; deferred and retried ones come due without one.
          notifyPollingIntervalSeconds: this.settings.pollingIntervalSeconds,
          perJobResults: true,
        },
        (batch) => Promise.all(batch.map((job) => this.settle(handler, job))),
      );
    }
    if (!background) return;
    for (const name of this.periodic.keys()) await this.send(name, {});
    if (this.periodic.size) await boss.schedule(WATCHDOG, '* * * * *');
  }

  /** Sends a job; resolves to its id, or null when the queue's policy dropped it as a duplicate. */
  async send(name: string, data: object, options: SendOptions = {}): Promise<string | null> {
    return this.requireBoss().send(name, data, options);
  }

  /**
   * Sends a job and waits for a worker to finish it: resolves to what its handler returned, rejects when it failed.
   * After `timeoutMs` the job is cancelled and `JobTimeoutError` thrown.
   */
  async call<T>(name: string, data: object, timeoutMs: number): Promise<T> {
    const boss = this.requireBoss();
    const id = await boss.send(name, data);
    if (!id) throw new Error(`the ${name} queue refused the job`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [job] = await boss.findJobs<object>(name, { id });
      if (job?.state === 'completed') return job.output as T;
      if (!job || job.state === 'failed' || job.state === 'cancelled') throw new Error(`job ${name} ${id} failed`);
      if (Date.now() > deadline) {
        await boss.cancel(name, id).catch(() => {});
        throw new JobTimeoutError(name);
      }
      await new Promise((resolve) => setTimeout(resolve, CALL_POLL_MS));
    }
  }

  /** Sends one job per item, in one statement. */
  async sendMany(name: string, items: object[]): Promise<void> {
    if (items.length)
      await this.requireBoss().insert(
        name,
        items.map((data) => ({ data })),
      );
  }

  /**
   * Inserts jobs (data and options such as `startAfter` each) inside the caller's transaction: they exist exactly
   * when what the transaction wrote commits.
   */
  async insertIn(transaction: Db, name: string, jobs: JobInsert[]): Promise<void> {
    if (jobs.length) await this.requireBoss().insert(name, jobs, { db: fromDrizzle(transaction as never, sql) });
  }

  /**
   * Stops taking jobs. Graceful: running handlers get `timeoutMs` to finish; what is still running then is failed
   * back to the queue (retried by another worker). Without grace the jobs stay active until their heartbeat lapses.
   */
  async stop({ graceful = true, timeoutMs = 10_000 }: { graceful?: boolean; timeoutMs?: number } = {}): Promise<void> {
    if (!this.boss) return;
    this.stopping ??= this.stopBoss(this.boss, graceful, timeoutMs);
    await this.stopping;
  }

  /** Handlers finishing within the grace still send jobs (a scan's webhooks): the engine stays usable until then. */
  private async stopBoss(boss: PgBoss, graceful: boolean, timeoutMs: number): Promise<void> {
    this.working = false;
    try {
      const pools = this.pools.splice(0);
      await Promise.all(pools.map((pool) => pool.stop({ graceful, timeoutMs })));
      await boss.stop({ graceful, timeout: timeoutMs, close: true });
    } finally {
      this.boss = null;
      this.stopping = null;
    }
  }

  /** Jobs of these queues that have not finished (waiting, retrying or running), for tests and the status page. */
  async unfinished(names: string[]): Promise<number> {
    const { rows } = await this.requireBoss()
      .getDb()
      .executeSql(
        `select count(*)::int as count from ${JOB_SCHEMA}.job where name = any($1::text[]) and state::text = any($2::text[])`,
        [names, UNFINISHED],
      );
    return rows[0].count as number;
  }

  /**
   * Runs the jobs of `name` that are due, here and now, until none is left (tests and processes without the worker
   * role use it to drive a queue step by step). Failures are retried as a worker would.
   */
  async runQueued(name: string, { parallel = false }: { parallel?: boolean } = {}): Promise<number> {
    const boss = this.requireBoss();
    const handler = this.queues.get(name)?.handler;
    if (!handler) throw new Error(`no handler for queue ${name}`);
    let ran = 0;
    const runOne = async (job: Job<object>) => {
      try {
        await handler(job.data as never, job as never);
        await boss.complete(name, job.id);
      } catch (error) {
        await boss.fail(name, job.id, { message: error instanceof Error ? error.message : String(error) });
      }
    };
    for (let jobs = await boss.fetch<object>(name, { batchSize: 20 }); jobs.length; jobs = await boss.fetch(name)) {
      ran += jobs.length;
      if (parallel) await Promise.all(jobs.map(runOne));
      else for (const job of jobs) await runOne(job);
    }
    return ran;
  }

  /** Waits until no job of these queues is waiting, retrying or running (tests). */
  async idle(names: string[], timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.unfinished(names)) > 0) {
      if (Date.now() > deadline) throw new Error(`jobs of ${names.join(', ')} still unfinished`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Waiting jobs (ready to run) and the wait of the oldest, per queue: the figures on the status page. */
  async backlog(
    names: string[],
  ): Promise<{ name: string; waiting: number; running: number; oldestWaitSeconds: number }[]> {
    const { rows } = await this.requireBoss()
      .getDb()
      .executeSql(
        `select name,
                count(*) filter (where state::text in ('created', 'retry') and start_after <= now())::int as waiting,
                count(*) filter (where state::text = 'active')::int as running,
                coalesce(extract(epoch from now() - min(start_after) filter (where state::text in ('created', 'retry') and start_after <= now())), 0)::float as wait
           from ${JOB_SCHEMA}.job where name = any($1::text[]) and state::text = any($2::text[]) group by name`,
        [names, UNFINISHED],
      );
    const byName = new Map(rows.map((row) => [row.name as string, row]));
    return names.map((name) => {
      const row = byName.get(name);
      return {
        name,
        waiting: row?.waiting ?? 0,
        running: row?.running ?? 0,
        oldestWaitSeconds: Math.round((row?.wait ?? 0) * 10) / 10,
      };
    });
  }

  get isWorking(): boolean {
    return this.working;
  }

  /** Runs one job of a batch: its own outcome, so one failure does not fail (and retry) the others. */
  private async settle(handler: JobHandler<never>, job: Job<object>): Promise<JobResult> {
    try {
      return { id: job.id, status: 'completed', output: await handler(job.data as never, job as never) };
    } catch (error) {
      return {
        id: job.id,
        status: 'failed',
        output: { message: error instanceof Error ? error.message : String(error) },
      };
    }
  }

  private startPool(boss: PgBoss, name: string, handler: JobHandler<never>, concurrency: number, pollMs: number) {
    const pool = new JobPool(boss, name, (job) => handler(job.data as never, job as never), {
      concurrency,
      pollMs,
      heartbeatMs: (HEARTBEAT_SECONDS * 1000) / 2,
      onError: this.settings.onError,
    });
    pool.start();
    this.pools.push(pool);
  }

  private async watchdog(): Promise<void> {
    const names = [...this.periodic.keys()];
    const { rows } = await this.requireBoss()
      .getDb()
      .executeSql(
        `select distinct name from ${JOB_SCHEMA}.job where name = any($1::text[]) and state::text = any($2::text[])`,
        [names, UNFINISHED],
      );
    const alive = new Set(rows.map((row) => row.name as string));
    for (const name of names) if (!alive.has(name)) await this.send(name, {});
  }

  private requireBoss(): PgBoss {
    if (!this.boss) throw new Error('the job engine is not started');
    return this.boss;
  }
}

/**
 * pg-boss reports some failures as plain copies of the error (`{ ...error, message, stack, queue }`), which loggers
 * print as "[object Object]": made an Error again, with its code, so the log says what failed and 503 logic sees it.
 */
function asError(error: unknown): unknown {
  if (error instanceof Error || typeof error !== 'object' || error === null) return error;
  const { message, stack, ...rest } = error as { message?: unknown; stack?: unknown };
  const copy = Object.assign(new Error(String(message ?? 'pg-boss error')), rest);
  if (typeof stack === 'string') copy.stack = stack;
  return copy;
}
