import {
  type ForwardJob,
  ForwardQueue,
  type ForwardQueueSettings,
  type SendResult,
  type Settled,
} from './forward-queue.js';
import type { OutgoingVendor } from '../../modules/outgoing-log/schemas.js';
import type { RuntimeMeter, RuntimeMetric } from './meter.js';
import type { OutgoingRecord, OutgoingRecorder } from './outgoing.js';

/** Forwards that failed for good since the last report, by vendor, container and reason. */
export interface ForwardFailures {
  vendor: OutgoingVendor;
  containerId: string;
  reason: string;
  count: number;
}

export type ForwardingSettings = Omit<ForwardQueueSettings, 'onSettled'> & {
  /** How long a stop waits for held forwards to be delivered before counting them as failed. */
  drainMs: number;
  /** Where each described forward's outcome goes (the outgoing log). */
  outgoing?: OutgoingRecorder;
};

const FORWARDED_METRIC: Record<OutgoingVendor, RuntimeMetric> = { ga4: 'ga4Forwarded', meta: 'metaForwarded' };
/** Distinct failure reasons kept between two reports; beyond, they are counted under one overflow line. */
const MAX_FAILURE_KEYS = 500;

/**
 * The runtime's side of the forward queue: whether there is room before a hit is acknowledged, what became of
 * each forward counted in the container's usage, and failures kept with their reasons for the log, so that a
 * forward that did not reach its vendor is never silent.
 */
export class Forwarding {
  private readonly queue: ForwardQueue;
  private failures = new Map<string, ForwardFailures>();

  constructor(
    private readonly meter: RuntimeMeter,
    private readonly settings: ForwardingSettings,
  ) {
    this.queue = new ForwardQueue({ ...settings, onSettled: (settled) => this.settled(settled) });
  }

  get accepting(): boolean {
    return this.queue.accepting;
  }

  /** Forwards waiting, in flight or waiting for a retry. */
  get held(): number {
    return this.queue.size;
  }

  /** Whether `count` more events can be acknowledged; when not, the caller answers 503 and counts the refusal. */
  admits(count: number): boolean {
    return this.queue.hasRoom(count);
  }

  /** Queues the forward of an acknowledged event. */
  forward(job: ForwardJob): void {
    if (!this.queue.enqueue(job))
      this.settled({ job, delivered: false, attempts: 0, reason: 'The gateway had stopped forwarding.', last: null });
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  stop(): Promise<void> {
    return this.queue.stop(this.settings.drainMs);
  }

  /** The failures since the last call, most frequent first. */
  takeFailures(): ForwardFailures[] {
    const failures = [...this.failures.values()].sort((a, b) => b.count - a.count);
    this.failures = new Map();
    return failures;
  }

  private settled(settled: Settled): void {
    const { job, delivered, reason } = settled;
    const record = this.settings.outgoing ? outgoingRecordOf(settled) : null;
    if (record) this.settings.outgoing?.record(record);
    if (delivered) {
      this.meter.count(job.containerId, FORWARDED_METRIC[job.vendor]);
      return;
    }
    this.meter.count(job.containerId, 'forwardsFailed');
    this.noteFailure(job, reason ?? 'unknown');
  }

  private noteFailure(job: ForwardJob, reason: string): void {
    let key = `${job.vendor}|${job.containerId}|${reason}`;
    if (!this.failures.has(key) && this.failures.size >= MAX_FAILURE_KEYS) {
      key = 'overflow';
      reason = 'other reasons (too many distinct ones to list)';
    }
    const failure = this.failures.get(key) ?? { vendor: job.vendor, containerId: job.containerId, reason, count: 0 };
    failure.count++;
    this.failures.set(key, failure);
  }
}

const STATUS_IN_REASON = /\banswered (\d{3})\b/;

/** The outgoing log's record of a settled forward; null for a job that describes nothing. */
function outgoingRecordOf({ job, delivered, attempts, reason, last }: Settled): OutgoingRecord | null {
  if (!job.outgoing) return null;
  const result = last?.result;
  // A sender that does not say the status (GA4's) names it in its reason: `GA4 answered 400`.
  const statusInReason = reason ? STATUS_IN_REASON.exec(reason)?.[1] : undefined;
  return {
    ...job.outgoing,
    containerId: job.containerId,
    vendor: job.vendor,
    status: delivered ? 'delivered' : 'failed',
    httpStatus: result?.httpStatus ?? (statusInReason ? Number(statusInReason) : null),
    error: delivered ? null : failureOf(reason, result),
    attempts,
    latencyMs: last?.latencyMs ?? null,
    at: new Date(),
  };
}

/** The vendor's own message when the failure comes from its last answer; otherwise why the queue gave up. */
function failureOf(reason: string | null, result: SendResult | undefined): string {
  const fromLastAnswer = result && result.outcome !== 'delivered' && reason?.startsWith(result.reason);
  return (fromLastAnswer && result.vendorMessage) || reason || 'unknown';
}
