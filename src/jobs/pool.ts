import type { Job, PgBoss } from 'pg-boss';

export interface JobPoolSettings {
  /** Jobs running at once in this process. */
  concurrency: number;
  /** Milliseconds between fetches while the queue has nothing due. */
  pollMs: number;
  /** How often the jobs in hand are touched, so that the supervisor does not take them back. */
  heartbeatMs: number;
  onError: (error: unknown) => void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
/** Jobs that end within this many milliseconds of each other are completed in one statement. */
const COMPLETE_EVERY_MS = 25;

/**
 * Keeps up to `concurrency` jobs of one queue running and settles each on its own (handlers' results are not kept). pg-boss's `work()` settles a
 * fetched batch as a whole, so one slow job (a monitor check waiting for its timeout) would hold back the fetch of
 * everything behind it; here a job that ends frees its slot at once and the next fetch takes exactly the free room.
 */
export class JobPool {
  private readonly running = new Map<string, Promise<void>>();
  private stopping = false;
  private loop: Promise<void> | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;
  /** Set by `poke()`: fetch again after the fetch under way instead of waiting for the next poll. */
  private poked = false;
  private finished: Array<{ id: string; retryCount: number }> = [];
  private completing: Promise<void> | null = null;

  constructor(
    private readonly boss: PgBoss,
    private readonly name: string,
    private readonly handler: (job: Job<object>) => Promise<unknown>,
    private readonly settings: JobPoolSettings,
  ) {}

  start(): void {
    this.loop = this.run();
    this.heartbeat = setInterval(() => this.touch(), this.settings.heartbeatMs);
    this.heartbeat.unref();
  }

  /**
   * Stops fetching. Graceful: the jobs in hand get `timeoutMs` to finish, what is left is failed back to the queue
   * (another worker retries it). Otherwise they stay active until their heartbeat lapses.
   */
  async stop({ graceful, timeoutMs }: { graceful: boolean; timeoutMs: number }): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    if (graceful) {
      await Promise.race([Promise.allSettled([...this.running.values()]), sleep(timeoutMs)]);
      const left = [...this.running.keys()];
      if (left.length)
        await this.boss.fail(this.name, left, { message: 'worker stopped' }).catch(this.settings.onError);
    }
    await this.completing;
    await this.complete();
    if (this.heartbeat) clearInterval(this.heartbeat);
  }

  /** Jobs may have come due: fetches now (or once more after the fetch under way) instead of at the next poll. */
  poke(): void {
    this.poked = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      this.poked = false;
      const room = this.settings.concurrency - this.running.size;
      let fetched = 0;
      if (room > 0) {
        try {
          const jobs = await this.boss.fetch<object>(this.name, { batchSize: room });
          fetched = jobs.length;
          for (const job of jobs) this.begin(job);
        } catch (error) {
          this.settings.onError(error);
        }
      }
      // A full fetch says more is due: fetch again at once while there is room, else wait for a slot.
      if (fetched === room && room > 0 && this.running.size < this.settings.concurrency) continue;
      if (this.poked && this.running.size < this.settings.concurrency) continue;
      await this.pause();
    }
  }

  /** Waits for the next poll, or until a slot frees up while every slot was taken. */
  private async pause(): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.settings.pollMs);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = null;
  }

  private begin(job: Job<object>): void {
    const settled = this.settle(job).finally(() => {
      this.running.delete(job.id);
      if (this.running.size === this.settings.concurrency - 1) this.wake?.();
    });
    this.running.set(job.id, settled);
  }

  private async settle(job: Job<object>): Promise<void> {
    const attempt = { id: job.id, retryCount: job.retryCount };
    try {
      await this.handler(job);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await this.boss.fail(this.name, attempt, { message }).catch(this.settings.onError);
      return;
    }
    this.finished.push(attempt);
    this.completing ??= sleep(COMPLETE_EVERY_MS)
      .then(() => this.complete())
      .finally(() => {
        this.completing = null;
      });
  }

  /** Completes the jobs whose handlers returned (their output is not kept). */
  private async complete(): Promise<void> {
    const attempts = this.finished.splice(0);
    if (attempts.length) await this.boss.complete(this.name, attempts).catch(this.settings.onError);
  }

  private touch(): void {
    const ids = [...this.running.keys()];
    if (ids.length) this.boss.touch(this.name, ids).catch(this.settings.onError);
  }
}
