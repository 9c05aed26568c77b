import type { Database } from '../../db/index.js';
import * as queries from './queries.js';
import { answerProblem, type GatewaySender, sendProblem } from './sender.js';

export interface DelayedDeliverySettings {
  /** How long after its due time a request is retried (5xx, connection errors) before it is failed for good. */
  retryWindowMs: number;
  /** Days delivered and failed requests are kept, then removed. */
  keepDeliveredDays: number;
  keepFailedDays: number;
}

export const DEFAULT_DELAYED_DELIVERY: DelayedDeliverySettings = {
  retryWindowMs: 3_600_000,
  keepDeliveredDays: 3,
  keepFailedDays: 7,
};

/** Requests claimed at once, and sent side by side. */
const CLAIM_BATCH = 20;
/** A claimed request is taken again by another worker only this long after its claim (the worker died). */
const CLAIM_LEASE_MS = 5 * 60_000;
const FIRST_RETRY_MS = 30_000;
const LONGEST_RETRY_MS = 10 * 60_000;
const DELETE_BATCH = 1000;
const DAY_MS = 86_400_000;

/** Statuses worth another try: the container or its tagging server may be back later. */
const retryable = (status: number) => status >= 500 || status === 408 || status === 429;

/**
 * Sends held requests when due (a periodic job's step), through the gateway, with `X-Tagport-Delayed-By`. 2xx and 3xx
 * answers deliver; other 4xx fail at once (sending again would get the same); 5xx, 408, 429 and connection errors
 * are retried with doubling backoff until `retryWindowMs` after the due time, then failed with the last reason.
 */
export class DelayedDelivery {
  constructor(
    private readonly deps: { database: Database; sender: GatewaySender },
    private readonly settings: DelayedDeliverySettings = DEFAULT_DELAYED_DELIVERY,
  ) {}

  /** Delivers every request due at `now`; returns how many were attempted. */
  async deliverDue(now = new Date()): Promise<number> {
    let attempted = 0;
    for (;;) {
      const claimed = await queries.claimDue(this.deps.database.db, now, CLAIM_LEASE_MS, CLAIM_BATCH);
      await Promise.all(claimed.map((request) => this.attempt(request, now)));
      attempted += claimed.length;
      if (claimed.length < CLAIM_BATCH) return attempted;
    }
  }

  /** Removes delivered and failed requests kept long enough; returns how many. */
  async prune(now = new Date()): Promise<number> {
    const db = this.deps.database.db;
    let removed = 0;
    for (const [status, days] of [
      ['delivered', this.settings.keepDeliveredDays],
      ['failed', this.settings.keepFailedDays],
    ] as const) {
      const before = new Date(now.getTime() - days * DAY_MS);
      for (let deleted = DELETE_BATCH; deleted === DELETE_BATCH; removed += deleted)
        deleted = await queries.deleteSettled(db, status, before, DELETE_BATCH);
    }
    return removed;
  }

  private async attempt(request: queries.ClaimedRequest, now: Date): Promise<void> {
    const headers = [...request.headers, 'x-tagport-delayed-by', String(request.delayMinutes)];
    let httpStatus: number | null = null;
    let problem: string | null = null;
    try {
      const answer = await this.deps.sender.send({ ...request, headers });
      httpStatus = answer.status;
      if (answer.status >= 400) problem = answerProblem(answer);
    } catch (error) {
      problem = sendProblem(error);
    }
    const db = this.deps.database.db;
    const settledAt = new Date(Math.max(Date.now(), now.getTime()));
    if (problem === null)
      return queries.settle(db, request.id, { status: 'delivered', httpStatus, error: null }, settledAt, null);
    const retryAt = new Date(now.getTime() + Math.min(FIRST_RETRY_MS * 2 ** (request.attempts - 1), LONGEST_RETRY_MS));
    const giveUp =
      (httpStatus !== null && !retryable(httpStatus)) ||
      retryAt.getTime() > request.dueAt.getTime() + this.settings.retryWindowMs;
    await queries.settle(
      db,
      request.id,
      { status: giveUp ? 'failed' : 'pending', httpStatus, error: problem },
      settledAt,
      retryAt,
    );
  }
}
