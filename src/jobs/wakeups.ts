import { randomUUID } from 'node:crypto';
import type { Queue } from 'pg-boss';
import type { Database } from '../db/index.js';

/** Due times are grouped in slots of this many milliseconds: one timer wakes every queue due in the slot. */
const SLOT_MS = 100;
/** A wake comes this late after the due time (on the database's clock), so that the time has surely come there. */
const AFTER_DUE_MS = 25;
/** Due times further ahead are left to the backstop poll (a timer cannot wait longer than ~24 days anyway). */
const HORIZON_MS = 24 * 3600_000;
/** At most this many pending slots; past it, jobs wait for the backstop poll rather than memory growing. */
const MAX_SLOTS = 20_000;
/**
 * After the database fails (an error, a lost connection), every queue is woken every short poll for this long: the
 * jobs a failed statement left behind come due unannounced when supervision retries them (a heartbeat of 10 s and
 * a supervision pass later).
 */
const RECOVERY_MS = 60_000;
/** Wakes sent to the other processes on the same database. */
const CHANNEL = 'tagport_jobs_due';

/** A queue's retry policy, as pg-boss applies it. */
type RetryPolicy = Pick<Queue, 'retryLimit' | 'retryDelay' | 'retryBackoff' | 'retryDelayMax'>;

/** What deferring a job needs from the database: LISTEN/NOTIFY, so other processes' workers wake too. */
export type WakeSignals = Pick<Database, 'listen' | 'notify'>;

/**
 * Wakes a queue's workers when a job comes due, so that workers need not poll for deferred jobs. pg-boss's NOTIFY
 * announces a job that can run at once; one deferred (`startAfter`, a retry's delay) comes due unannounced. The
 * process that deferred it knows when: it wakes its own workers then and, through the database, every other
 * process's. Due times are read on the database's clock (`clockOffsetMs`), which decides when a job may run.
 */
export class DueWakeups {
  private readonly slots = new Map<number, { timer: NodeJS.Timeout; queues: Set<string> }>();
  private readonly origin = randomUUID();
  private unlisten: (() => Promise<void>) | null = null;
  /** Between `start()` and `stop()`: what is sent or fails meanwhile is woken. */
  private active = false;
  private recovery: { until: number; timer: NodeJS.Timeout } | null = null;
  /** The database's clock minus this process's, measured when the engine starts. */
  clockOffsetMs = 0;

  constructor(
    private readonly settings: {
      /** Wakes this process's workers of a queue (a no-op for queues it does not work). */
      wake: (queue: string) => void;
      /** The queues this process works. */
      queues: () => Iterable<string>;
      /**
       * Every wake is repeated this much later (`JOB_POLL_MS`): a job due at once may have been sent in a transaction
       * that had not committed when the first wake fetched, or a due one still be held behind a running one.
       */
      shortPollMs: number;
      signals: WakeSignals | null;
      onError: (error: unknown) => void;
    },
  ) {}

  start(): void {
    this.active = true;
  }

  /** Listens for other processes' wakes; after a lost connection, as after any failure, every queue is woken. */
  async listen(): Promise<void> {
    const { signals } = this.settings;
    if (!signals || this.unlisten) return;
    this.unlisten = await signals.listen(
      CHANNEL,
      (payload) => {
        const [origin, queue] = payload.split(' ');
        if (origin !== this.origin && queue) this.settings.wake(queue);
      },
      () => this.troubled(),
    );
  }

  /**
   * The database failed: jobs may come due unannounced (what a failed statement left behind, retried by supervision),
   * so every queue is woken every short poll until `RECOVERY_MS` after the last failure.
   */
  troubled(): void {
    if (!this.active) return;
    this.wakeAll();
    const until = Date.now() + RECOVERY_MS;
    if (this.recovery) {
      this.recovery.until = until;
      return;
    }
    const timer = setInterval(() => {
      if (this.recovery && Date.now() < this.recovery.until) this.wakeAll();
      else this.endRecovery();
    }, this.settings.shortPollMs);
    timer.unref();
    this.recovery = { until, timer };
  }

  /**
   * A job of `queue` was sent to start at `startAfter` (pg-boss's forms: a Date, an ISO string, seconds from now).
   * `announced`: pg-boss's NOTIFY wakes the queue's workers for a job due at once (not a `JobPool`'s).
   */
  sent(queue: string, startAfter: Date | string | number | undefined, announced: boolean): void {
    const databaseNow = Date.now() + this.clockOffsetMs;
    const due = dueTime(startAfter, databaseNow);
    if (due !== null || !announced) this.at(queue, due ?? databaseNow);
  }

  /**
   * A job of `queue` failed on its attempt `retryCount` (0 the first): wakes for the retry pg-boss schedules. With
   * backoff its delay is random between half and all of a ceiling, so that window is woken in quarters (each wake is
   * repeated a short poll later, which also covers a failure pg-boss writes late, after the rest of the batch).
   */
  failed(queue: string, options: RetryPolicy, retryCount: number): void {
    if (retryCount >= (options.retryLimit ?? 2)) return;
    const failedAt = Date.now() + this.clockOffsetMs;
    const [low, high] = retryWindowSeconds(options, retryCount);
    for (let quarter = 0; quarter <= 4; quarter++)
      this.at(queue, failedAt + (low + ((high - low) * quarter) / 4) * 1000);
  }

  async stop(): Promise<void> {
    this.active = false;
    this.endRecovery();
    for (const { timer } of this.slots.values()) clearTimeout(timer);
    this.slots.clear();
    const unlisten = this.unlisten;
    this.unlisten = null;
    await unlisten?.().catch(this.settings.onError);
  }

  private wakeAll(): void {
    for (const queue of this.settings.queues()) this.settings.wake(queue);
  }

  private endRecovery(): void {
    if (this.recovery) clearInterval(this.recovery.timer);
    this.recovery = null;
  }

  /** Slots waiting to fire (tests). */
  get pending(): number {
    return this.slots.size;
  }

  /**
   * Wakes `queue` when a job due at `due` (on the database's clock) may run, and again one short poll later: the
   * first wake can find it still held (a periodic job's next run waits until the run before it is marked complete,
   * which a loaded process may write late), and the second keeps the bound polling gave.
   */
  private at(queue: string, due: number): void {
    const local = due - this.clockOffsetMs;
    if (local - Date.now() > HORIZON_MS) return;
    this.slot(queue, Math.max(local, Date.now()) + AFTER_DUE_MS);
    this.slot(queue, Math.max(local, Date.now()) + this.settings.shortPollMs);
  }

  private slot(queue: string, time: number): void {
    if (!this.active) return;
    const key = Math.ceil(time / SLOT_MS) * SLOT_MS;
    const existing = this.slots.get(key);
    if (existing) {
      existing.queues.add(queue);
      return;
    }
    if (this.slots.size >= MAX_SLOTS) return;
    const timer = setTimeout(() => this.fire(key), Math.max(0, key - Date.now()));
    timer.unref();
    this.slots.set(key, { timer, queues: new Set([queue]) });
  }

  private fire(key: number): void {
    const entry = this.slots.get(key);
    this.slots.delete(key);
    if (!entry) return;
    for (const queue of entry.queues) {
      this.settings.wake(queue);
      this.settings.signals?.notify(CHANNEL, `${this.origin} ${queue}`).catch(this.settings.onError);
    }
  }
}

/** The earliest and latest delay (seconds) pg-boss gives the retry after a failed attempt `retryCount`. */
export function retryWindowSeconds(options: RetryPolicy, retryCount: number): [number, number] {
  const delay = options.retryDelay ?? 0;
  if (!options.retryBackoff) return [delay, delay];
  const ceiling = Math.max(delay, 1) * 2 ** Math.min(16, retryCount + 1);
  const cap = options.retryDelayMax ?? Number.POSITIVE_INFINITY;
  return [Math.min(cap, ceiling / 2), Math.min(cap, ceiling)];
}

/**
 * When a job sent with this `startAfter` comes due (ms since the epoch, on the database's clock, which reads
 * `databaseNow`), or null when it is due at once.
 */
export function dueTime(startAfter: Date | string | number | undefined, databaseNow: number): number | null {
  if (startAfter === undefined) return null;
  const time =
    startAfter instanceof Date
      ? startAfter.getTime()
      : typeof startAfter === 'number' || /^\d+(\.\d+)?$/.test(startAfter)
        ? databaseNow + Number(startAfter) * 1000
        : Date.parse(startAfter);
  return Number.isFinite(time) && time > databaseNow ? time : null;
}
