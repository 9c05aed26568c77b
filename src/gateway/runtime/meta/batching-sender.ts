import type { MetaServerEvent } from './events.js';
import type { MetaEventSender } from './sink.js';
import type { MetaPixelTarget, MetaSendResult } from './sender.js';

/** Events per batched request: Graph takes 1000, but a refused batch is sent again one by one. */
export const META_BATCH_MAX_EVENTS = 100;

export interface MetaBatchSettings {
  /** How long the first event of a batch waits for others to the same pixel; 0 sends each event alone. */
  windowMs: number;
  /** Events per request at most (Graph takes up to 1000). */
  maxEvents: number;
}

interface Waiting {
  event: MetaServerEvent;
  resolve: (result: MetaSendResult) => void;
}

interface OpenBatch {
  target: MetaPixelTarget;
  waiting: Waiting[];
  timer: NodeJS.Timeout;
}

/**
 * The Conversions API takes many events in one request (`data`), each with its own user data, so events forwarded
 * to the same pixel within `windowMs` of each other go together: one request instead of one per event. Each caller
 * still gets its own event's result, so the forward queue retries, logs and counts every event as before. Graph
 * refuses a whole request for one bad event; a refused batch is therefore sent again one event at a time, so only
 * the bad event fails.
 */
export class MetaBatchingSender implements MetaEventSender {
  private readonly open = new Map<string, OpenBatch>();

  constructor(
    private readonly sender: MetaEventSender,
    private readonly settings: MetaBatchSettings,
  ) {}

  send(target: MetaPixelTarget, events: MetaServerEvent[]): Promise<MetaSendResult> {
    if (this.settings.windowMs <= 0 || events.length !== 1) return this.sender.send(target, events);
    return new Promise((resolve) => {
      const key = batchKey(target);
      let batch = this.open.get(key);
      if (!batch) {
        batch = { target, waiting: [], timer: setTimeout(() => void this.close(key), this.settings.windowMs) };
        this.open.set(key, batch);
      }
      batch.waiting.push({ event: events[0], resolve });
      if (batch.waiting.length >= this.settings.maxEvents) void this.close(key);
    });
  }

  private async close(key: string): Promise<void> {
    const batch = this.open.get(key);
    if (!batch) return;
    this.open.delete(key);
    clearTimeout(batch.timer);
    const { target, waiting } = batch;
    const result = await this.sendSafely(
      target,
      waiting.map(({ event }) => event),
    );
    if (result.verdict !== 'rejected' || waiting.length === 1) {
      for (const { resolve } of waiting) resolve(result);
      return;
    }
    await Promise.all(waiting.map(async ({ event, resolve }) => resolve(await this.sendSafely(target, [event]))));
  }

  /** The result of one request; a sender that throws is a failed attempt worth retrying, never a lost caller. */
  private async sendSafely(target: MetaPixelTarget, events: MetaServerEvent[]): Promise<MetaSendResult> {
    try {
      return await this.sender.send(target, events);
    } catch (error) {
      const message = `Could not send to the Graph API (${(error as Error)?.message ?? String(error)})`;
      return {
        verdict: 'retry',
        httpStatus: null,
        error: { message, type: null, code: null, error_subcode: null, fbtrace_id: null },
      };
    }
  }
}

/** Events share a request only when they share its credentials and test code. */
function batchKey({ pixelId, accessToken, testEventCode }: MetaPixelTarget): string {
  return `${pixelId}\n${accessToken}\n${testEventCode ?? ''}`;
}
