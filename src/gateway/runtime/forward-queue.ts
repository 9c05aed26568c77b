import type { OutgoingVendor } from '../../modules/outgoing-log/schemas.js';
import type { OutgoingDescription } from './outgoing.js';

/**
 * The built-in runtime's outbox: events waiting to be sent to a vendor (GA4, the Meta Conversions API, …), sent a
 * few at a time, retried with exponential backoff and jitter. Hits are answered before they are forwarded, so
 * nothing here slows a visitor down. Memory is bounded at the door, not here: the runtime asks `hasRoom` before it
 * acknowledges a hit and answers 503 when there is none; what it has acknowledged is always taken (`enqueue`), so
 * an acknowledged event is delivered, still held, or settled as failed with a reason; never dropped unseen.
 */

/** What the vendor answered, when the sender knows: for the outgoing log. */
export interface VendorAnswer {
  httpStatus?: number | null;
  /** The vendor's own error message (Meta's `error.message`). */
  vendorMessage?: string;
}

/** What a sender makes of one attempt. */
export type SendResult = VendorAnswer &
  (
    | { outcome: 'delivered' }
    /** Worth another attempt (network error, timeout, 429, 5xx); `afterMs` when the vendor said when. */
    | { outcome: 'retry'; reason: string; afterMs?: number }
    /** The vendor refused the event itself (4xx): sending it again would fail again. */
    | { outcome: 'rejected'; reason: string }
  );

/** Sends one event once; `signal` aborts when the attempt times out or the queue stops. */
export type Sender = (signal: AbortSignal) => Promise<SendResult>;

/**
 * Sends one event once and calls `done` exactly once, within the queue's timeout, which the transport enforces
 * itself (the GA4 lane's PipelinedSender drops a connection whose answer is late). It costs no promise, timer or
 * abort signal per event: on the hit path, that machinery cost more than the send. The queue's `abandon` setting
 * makes every such send in flight call back at a stop.
 */
export type CallbackSender = (done: (result: SendResult) => void) => void;

interface JobDescription {
  /** For usage and logs. */
  vendor: OutgoingVendor;
  containerId: string;
  /** What is sent, for the outgoing log (`runtime/outgoing.ts`); a job without one is not logged. */
  outgoing?: OutgoingDescription;
}

export type ForwardJob = JobDescription & ({ send: Sender; post?: never } | { post: CallbackSender; send?: never });

/** How a job ended: delivered, or failed for good (rejected, out of attempts, or dropped at shutdown). */
export interface Settled {
  job: ForwardJob;
  delivered: boolean;
  attempts: number;
  /** Why it failed; null when delivered. */
  reason: string | null;
  /** The last attempt's result and how long it took; null when the job was never sent. */
  last: { result: SendResult; latencyMs: number } | null;
}

export interface ForwardQueueSettings {
  /** Jobs held before `hasRoom` says no: ready, in flight and waiting for a retry together. */
  maxSize: number;
  concurrency: number;
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  /** Called once per job when it is delivered or given up. */
  onSettled: (settled: Settled) => void;
  /** At a stop, after the drain: makes the callback sends still in flight call back (closes their transport). */
  abandon?: () => void;
  onError: (error: unknown) => void;
}

const MAX_BACKOFF_MS = 300_000;
const DRAINING_RETRY_MS = 250;

interface Entry {
  job: ForwardJob;
  attempts: number;
  last: Settled['last'];
}

export class ForwardQueue {
  private ready: Entry[] = [];
  /** Index of the next ready entry: shifting an array per job would be O(n). */
  private head = 0;
  private inFlight = 0;
  private readonly waiting = new Map<NodeJS.Timeout, Entry>();
  private readonly controllers = new Set<AbortController>();
  private stopped = false;
  private draining = false;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly settings: ForwardQueueSettings) {}

  /** Jobs held: ready, in flight and waiting for a retry. */
  get size(): number {
    return this.ready.length - this.head + this.inFlight + this.waiting.size;
  }

  /** False once draining for a stop: new events are refused then. */
  get accepting(): boolean {
    return !this.draining && !this.stopped;
  }

  /** Whether `count` more jobs fit under the bound: asked before an event is acknowledged. */
  hasRoom(count: number): boolean {
    return this.accepting && this.size + count <= this.settings.maxSize;
  }

  /**
   * Queues a job for an event already acknowledged: taken even past the bound (which `hasRoom` enforces at the
   * door, so the overshoot is at most the forwards of the requests in progress). False only once stopped.
   */
  enqueue(job: ForwardJob): boolean {
    if (this.stopped) return false;
    this.ready.push({ job, attempts: 0, last: null });
    this.pump();
    return true;
  }

  /** Resolves once nothing is ready, in flight or waiting for a retry. */
  idle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Refuses new events, then gives what is held up to `drainMs` to be delivered (retries waiting for their turn
   * are tried again at once); what is still held then is aborted and settled as failed, so it is counted.
   */
  async stop(drainMs = 0): Promise<void> {
    this.draining = true;
    if (drainMs > 0 && this.size > 0) {
      this.retryWaitingNow();
      await Promise.race([this.idle(), new Promise((resolve) => setTimeout(resolve, drainMs).unref())]);
    }
    this.stopped = true;
    for (const controller of this.controllers) controller.abort();
    this.settings.abandon?.();
    for (const [timer, entry] of this.waiting) {
      clearTimeout(timer);
      this.settle(entry, false, 'The gateway stopped before the event could be sent again.');
    }
    this.waiting.clear();
    for (const entry of this.ready.slice(this.head))
      this.settle(entry, false, 'The gateway stopped before the event was sent.');
    this.ready = [];
    this.head = 0;
    while (this.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    this.notifyIdle();
  }

  private pump(): void {
    if (this.stopped) return;
    while (this.inFlight < this.settings.concurrency && this.head < this.ready.length) {
      const entry = this.ready[this.head++];
      if (this.head > 1024 && this.head * 2 > this.ready.length) {
        this.ready = this.ready.slice(this.head);
        this.head = 0;
      }
      this.inFlight++;
      entry.attempts++;
      if (entry.job.post) this.post(entry);
      else void this.attempt(entry, entry.job.send);
    }
  }

  private post(entry: Entry): void {
    const started = performance.now();
    try {
      // Called as the job's method: a GA4 forward is an object whose `post` reads its own fields.
      entry.job.post?.((result) => this.finished(entry, result, started));
    } catch (error) {
      this.finished(entry, { outcome: 'retry', reason: (error as Error)?.message ?? String(error) }, started);
    }
  }

  private async attempt(entry: Entry, send: Sender): Promise<void> {
    const controller = new AbortController();
    this.controllers.add(controller);
    const timer = setTimeout(() => controller.abort(), this.settings.timeoutMs);
    const started = performance.now();
    let result: SendResult;
    try {
      result = await send(controller.signal);
    } catch (error) {
      result = {
        outcome: 'retry',
        reason: controller.signal.aborted ? 'timed out' : ((error as Error)?.message ?? String(error)),
      };
    } finally {
      clearTimeout(timer);
      this.controllers.delete(controller);
    }
    this.finished(entry, result, started);
  }

  /** One attempt is over: the job is settled or waits for its retry, and the next ready job may start. */
  private finished(entry: Entry, result: SendResult, started: number): void {
    this.inFlight--;
    entry.last = { result, latencyMs: Math.round(performance.now() - started) };
    if (result.outcome === 'delivered') this.settle(entry, true, null);
    else if (result.outcome === 'rejected') this.settle(entry, false, result.reason);
    else if (this.stopped || entry.attempts >= this.settings.maxAttempts)
      this.settle(entry, false, `${result.reason} (after ${entry.attempts} attempts)`);
    else this.retryLater(entry, result.afterMs);
    this.pump();
    this.notifyIdle();
  }

  private retryWaitingNow(): void {
    for (const [timer, entry] of this.waiting) {
      clearTimeout(timer);
      this.ready.push(entry);
    }
    this.waiting.clear();
    this.pump();
  }

  private retryLater(entry: Entry, afterMs: number | undefined): void {
    const backoff = this.settings.retryBaseMs * 2 ** (entry.attempts - 1) * (0.5 + Math.random());
    const wanted = Math.min(MAX_BACKOFF_MS, Math.max(afterMs ?? 0, backoff));
    // While draining for a stop, a long backoff would only outlast the drain: try again soon instead.
    const delay = this.draining ? Math.min(wanted, DRAINING_RETRY_MS) : wanted;
    const timer = setTimeout(() => {
      this.waiting.delete(timer);
      this.ready.push(entry);
      this.pump();
    }, delay);
    timer.unref();
    this.waiting.set(timer, entry);
  }

  private settle(entry: Entry, delivered: boolean, reason: string | null): void {
    try {
      this.settings.onSettled({ job: entry.job, delivered, attempts: entry.attempts, reason, last: entry.last });
    } catch (error) {
      this.settings.onError(error);
    }
  }

  private notifyIdle(): void {
    if (this.size > 0 || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
