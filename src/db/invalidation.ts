import type { Database, Unlisten } from './index.js';

const CHANNEL = 'tagport_invalidate';

export type Invalidation = { kind: string; id: string };

/**
 * Drop every cached value, of every kind. Sent to local subscribers when the LISTEN connection comes back,
 * since notifications published while it was down are lost. Every subscriber must honour it.
 */
export const EVERYTHING: Invalidation = { kind: 'all', id: '*' };
type Subscriber = (invalidation: Invalidation) => void;

/**
 * Cache invalidation for every instance: published with NOTIFY, received with LISTEN, on PGlite and
 * PostgreSQL alike. Publishers also notify local subscribers synchronously, so the writing instance
 * never serves stale data after its own write.
 */
export class InvalidationBus {
  private readonly subscribers = new Set<Subscriber>();
  private unlisten: Unlisten | null = null;

  constructor(private readonly database: Database) {}

  async start(): Promise<void> {
    this.unlisten = await this.database.listen(
      CHANNEL,
      (payload) => {
        try {
          this.deliver(JSON.parse(payload) as Invalidation);
        } catch {
          /* ignore payloads that are not ours */
        }
      },
      () => this.deliver(EVERYTHING),
    );
  }

  async stop(): Promise<void> {
    await this.unlisten?.().catch(() => {});
    this.unlisten = null;
  }

  subscribe(subscriber: Subscriber): void {
    this.subscribers.add(subscriber);
  }

  async publish(invalidation: Invalidation): Promise<void> {
    this.deliver(invalidation);
    await this.database.notify(CHANNEL, JSON.stringify(invalidation));
  }

  private deliver(invalidation: Invalidation): void {
    for (const subscriber of this.subscribers) subscriber(invalidation);
  }
}
