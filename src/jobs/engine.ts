import { sql } from 'drizzle-orm';
import { fromDrizzle, PgBoss, type Job, type JobInsert, type JobResult, type Queue, type SendOptions } from 'pg-boss';
import type { Db } from '../db/index.js';
import { JOB_SCHEMA, type JobStore } from '../db/job-store.js';
import * as jobTable from './job-table.js';
import { asError, JobTimeoutError } from './errors.js';
import { JobPool } from './pool.js';
import { DueWakeups, type WakeSignals } from './wakeups.js';

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
  /**
   * Run by a `JobPool` (each job settled on its own, `concurrency` at once) polling every `pollMs` (default: the
   * backstop poll, as other queues); null: `work()`.
   */
  pool: { pollMs?: number } | null;
}

/** How a worker runs a queue's jobs: `concurrency` at once, `batchSize` fetched per slot, `onDemand` and `pool` as in `QueueSpec`. */
export interface WorkOptions {
  concurrency?: number;
  batchSize?: number;
  onDemand?: boolean;
  pool?: { pollMs?: number } | null;
}

/** What a process runs: every queue, only the queues requests wait for, or nothing (it only sends). */
export type WorkMode = 'all' | 'on-demand' | 'none';

export interface JobEngineSettings {
  /** Seconds between polls without NOTIFY (≥ 0.5); also how much later each wake-up is repeated. */
  pollingIntervalSeconds: number;
  /**
   * Seconds between polls where NOTIFY and the engine's wake-ups announce jobs (`DueWakeups`): they find what nothing
   * announced (a job deferred by a process that stopped, one retried by supervision). Default: the polling interval.
   */
  backstopPollSeconds?: number;
  /** Seconds between supervision passes: expired jobs and jobs whose worker stopped heartbeating are retried. */
  superviseIntervalSeconds: number;
  /** Name of this process in pg-boss's instance registry (its roles). */
  instanceName: string;
  onError: (error: unknown) => void;
}

/** A worker that stops heartbeating for this long (it died, or lost the database) loses its job to another. */
const HEARTBEAT_SECONDS = 10;
const WATCHDOG = 'periodic-watchdog';
/** How often `call()` looks whether its job has finished. */
const CALL_POLL_MS = 100;

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
  /** How this process's workers of each queue are woken (pg-boss's worker, or the pool). */
  private readonly wakers = new Map<string, () => void>();
  private readonly wakeups: DueWakeups;

  /** `signals`: the database's LISTEN/NOTIFY, so that a job deferred here wakes other processes' workers when due. */
  constructor(
    { store, signals = null }: { store: JobStore; signals?: WakeSignals | null },
    private readonly settings: JobEngineSettings,
  ) {
    this.store = store;
    this.wakeups = new DueWakeups({
      wake: (queue) => this.wakers.get(queue)?.(),
      queues: () => this.wakers.keys(),
      shortPollMs: settings.pollingIntervalSeconds * 1000,
      signals,
      onError: this.reportError,
    });
  }

  /** An error of the engine or a job: reported, and workers look for jobs often for a while (`troubled()`). */
  private readonly reportError = (error: unknown): void => {
    this.wakeups.troubled();
    this.settings.onError(error);
  };

  private get backstopPollSeconds(): number {
    return Math.max(this.settings.pollingIntervalSeconds, this.settings.backstopPollSeconds ?? 0);
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
          await this.send(name, {}, { startAfter: new Date(Date.now() + intervalMs) }).catch(this.reportError);
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
    boss.on('error', (error) => this.reportError(asError(error)));
    await boss.start();
    this.boss = boss;
    this.wakeups.start();
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
    // Wake-ups read due times on the database's clock: also a process that only sends (its wakes go to the others).
    this.wakeups.clockOffsetMs = await jobTable.databaseClockOffset(boss.getDb());
    if (work === 'none') return;
    this.working = true;
    for (const [name, spec] of this.queues) {
      const handler = spec.handler;
      if (!handler || !(background || spec.onDemand)) continue;
      if (spec.pool) {
        this.startPool(boss, name, handler, spec.concurrency, spec.pool.pollMs ?? this.backstopPollSeconds * 1000);
        continue;
      }
      const workId = await boss.work<object>(
        name,
        {
          batchSize: spec.batchSize,
          // A full batch means more is waiting: fetch again at once instead of after the polling interval.
          burstWhenBatchFull: spec.batchSize > 1,
          localConcurrency: spec.concurrency,
          pollingIntervalSeconds: this.settings.pollingIntervalSeconds,
          // NOTIFY wakes workers for new jobs only; deferred and retried ones are woken by `wakeups`.
          notifyPollingIntervalSeconds: this.backstopPollSeconds,
          perJobResults: true,
        },
        (batch) => Promise.all(batch.map((job) => this.settle(handler, job, () => this.retryWake(name, job)))),
      );
      this.wakers.set(name, () => boss.notifyWorker(workId));
    }
    await this.wakeups.listen();
    if (!background) return;
    for (const name of this.periodic.keys()) await this.send(name, {});
    if (this.periodic.size) await boss.schedule(WATCHDOG, '* * * * *');
  }

  /** Sends a job; resolves to its id, or null when the queue's policy dropped it as a duplicate. */
  async send(name: string, data: object, options: SendOptions = {}): Promise<string | null> {
    const id = await this.requireBoss().send(name, data, options);
    if (id) this.wakeups.sent(name, options.startAfter, this.announced(name));
    return id;
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
    if (!items.length) return;
    await this.requireBoss().insert(
      name,
      items.map((data) => ({ data })),
    );
    this.wakeups.sent(name, undefined, this.announced(name));
  }

  /**
   * Inserts jobs (data and options such as `startAfter` each) inside the caller's transaction: they exist exactly
   * when what the transaction wrote commits.
   */
  async insertIn(transaction: Db, name: string, jobs: JobInsert[]): Promise<void> {
    if (!jobs.length) return;
    await this.requireBoss().insert(name, jobs, { db: fromDrizzle(transaction as never, sql) });
    for (const job of jobs) this.wakeups.sent(name, job.startAfter, this.announced(name));
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
    this.wakers.clear();
    try {
      const pools = this.pools.splice(0);
      await Promise.all(pools.map((pool) => pool.stop({ graceful, timeoutMs })));
      await boss.stop({ graceful, timeout: timeoutMs, close: true });
    } finally {
      await this.wakeups.stop();
      this.boss = null;
      this.stopping = null;
    }
  }

  /** Jobs of these queues that have not finished (waiting, retrying or running), for tests and the status page. */
  async unfinished(names: string[]): Promise<number> {
    return jobTable.countUnfinished(this.requireBoss().getDb(), names);
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
  async backlog(names: string[]): Promise<jobTable.QueueBacklog[]> {
    return jobTable.queueBacklog(this.requireBoss().getDb(), names);
  }

  get isWorking(): boolean {
    return this.working;
  }

  /** Runs one job of a batch: its own outcome, so one failure does not fail (and retry) the others. */
  private async settle(handler: JobHandler<never>, job: Job<object>, onFailure: () => void): Promise<JobResult> {
    try {
      return { id: job.id, status: 'completed', output: await handler(job.data as never, job as never) };
    } catch (error) {
      onFailure();
      return {
        id: job.id,
        status: 'failed',
        output: { message: error instanceof Error ? error.message : String(error) },
      };
    }
  }

  /** Whether pg-boss's NOTIFY wakes workers of `name` for a new job: its `work()` does, a `JobPool` does not. */
  private announced(name: string): boolean {
    return !this.queues.get(name)?.pool;
  }

  /** A job of `name` failed here: its retry, if it has one, comes due unannounced. */
  private retryWake(name: string, job: Job<object>): void {
    const options = this.queues.get(name)?.options;
    if (options) this.wakeups.failed(name, options, job.retryCount);
  }

  private startPool(boss: PgBoss, name: string, handler: JobHandler<never>, concurrency: number, pollMs: number) {
    const run = async (job: Job<object>) => {
      try {
        return await handler(job.data as never, job as never);
      } catch (error) {
        this.retryWake(name, job);
        throw error;
      }
    };
    const pool = new JobPool(boss, name, run, {
      concurrency,
      pollMs,
      heartbeatMs: (HEARTBEAT_SECONDS * 1000) / 2,
      onError: this.reportError,
    });
    pool.start();
    this.pools.push(pool);
    this.wakers.set(name, () => pool.poke());
  }

  private async watchdog(): Promise<void> {
    const names = [...this.periodic.keys()];
    const alive = await jobTable.queuesWithUnfinished(this.requireBoss().getDb(), names);
    for (const name of names) if (!alive.has(name)) await this.send(name, {});
  }

  private requireBoss(): PgBoss {
    if (!this.boss) throw new Error('the job engine is not started');
    return this.boss;
  }
}
