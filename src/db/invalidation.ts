import type { Database, Unlisten } from './index.js';

const CHANNEL = 'tagport_invalidate';
/** PostgreSQL refuses NOTIFY payloads of 8,000 bytes or more. */
const MAX_PAYLOAD_BYTES = 7_500;
const RESEND_FIRST_DELAY_MS = 100;
const RESEND_MAX_DELAY_MS = 2_000;

export type Invalidation = { kind: string; id: string };

/**
 * Drop every cached value, of every kind. Sent to local subscribers when the LISTEN connection comes back,
 * since notifications published while it was down are lost. Every subscriber must honour it.
 */
export const EVERYTHING: Invalidation = { kind: 'all', id: '*' };
type Subscriber = (invalidation: Invalidation) => void;
interface Queued {
  payload: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Cache invalidation for every instance: published with NOTIFY, received with LISTEN, on PGlite and
 * PostgreSQL alike. Publishers also notify local subscribers synchronously, so the writing instance
 * never serves stale data after its own write. One NOTIFY is in flight at a time and carries every invalidation
 * published meanwhile (a JSON array): NOTIFY serialises committing transactions on a cluster-wide lock, so one per
 * write would make that lock the write path's limit.
 */
export class InvalidationBus {
  private readonly subscribers = new Set<Subscriber>();
  private unlisten: Unlisten | null = null;
  private readonly queued: Queued[] = [];
  private sending = false;
  private lossTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly database: Database) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.unlisten = await this.database.listen(
      CHANNEL,
      (payload) => {
        try {
          const parsed = JSON.parse(payload) as Invalidation | Invalidation[];
          for (const invalidation of Array.isArray(parsed) ? parsed : [parsed]) this.deliver(invalidation);
        } catch {
          /* ignore payloads that are not ours */
        }
      },
      () => this.deliver(EVERYTHING),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.lossTimer) clearTimeout(this.lossTimer);
    this.lossTimer = null;
    await this.unlisten?.().catch(() => {});
    this.unlisten = null;
  }

  subscribe(subscriber: Subscriber): void {
    this.subscribers.add(subscriber);
  }

  /** Delivers locally at once; resolves when a NOTIFY carrying it has been sent. */
  publish(invalidation: Invalidation): Promise<void> {
    this.deliver(invalidation);
    return new Promise((resolve, reject) => {
      this.queued.push({ payload: JSON.stringify(invalidation), resolve, reject });
      if (!this.sending) void this.sendQueued();
    });
  }

  private async sendQueued(): Promise<void> {
    this.sending = true;
    try {
      while (this.queued.length > 0) {
        const batch = this.takeBatch();
        try {
          await this.database.notify(CHANNEL, `[${[...new Set(batch.map((item) => item.payload))].join(',')}]`);
          for (const item of batch) item.resolve();
        } catch (error) {
          for (const item of batch) item.reject(error);
          this.announceLoss();
        }
      }
    } finally {
      this.sending = false;
    }
  }

  /**
   * A NOTIFY that failed may follow a write that committed (the connection dropped in between), and the caller cannot
   * take the write back: every instance is told to drop everything instead, retried until the database takes it.
   */
  private announceLoss(delayMs = RESEND_FIRST_DELAY_MS): void {
    if (this.lossTimer || this.stopped) return;
    this.lossTimer = setTimeout(async () => {
      try {
        await this.database.notify(CHANNEL, JSON.stringify([EVERYTHING]));
        this.lossTimer = null;
      } catch {
        this.lossTimer = null;
        this.announceLoss(Math.min(RESEND_MAX_DELAY_MS, delayMs * 2));
      }
    }, delayMs);
    this.lossTimer.unref();
  }

  /** The queued invalidations that fit one payload (at least one). */
  private takeBatch(): Queued[] {
    let bytes = 2;
    let count = 0;
    while (count < this.queued.length) {
      bytes += Buffer.byteLength(this.queued[count].payload) + 1;
      if (count > 0 && bytes > MAX_PAYLOAD_BYTES) break;
      count++;
    }
    return this.queued.splice(0, count);
  }

  private deliver(invalidation: Invalidation): void {
    for (const subscriber of this.subscribers) subscriber(invalidation);
  }
}
