import type { JobDefinition } from '../../jobs/definitions.js';
import { TRACKING_DISPATCH, TRACKING_RUNS, type TrackingRuns } from './runs.js';

/** How often due runs are claimed and queued. */
const DISPATCH_MS = 5000;

/** How far ahead runs are queued: the dispatch step runs every 5 s and is picked up within a poll. */
export function trackingLookaheadMs(jobPollMs: number): number {
  return DISPATCH_MS + 2 * jobPollMs + 1000;
}

/**
 * Runs hold Chromium for a scan per page: a few at once per worker (TRACKING_MONITOR_CONCURRENCY), on their own
 * queue, so the API's scans keep the rest of the browser pool. A run whose worker died runs again.
 */
export function trackingMonitorJobs(runs: TrackingRuns, { concurrency }: { concurrency: number }): JobDefinition[] {
  return [
    {
      queue: TRACKING_RUNS,
      options: { retryLimit: 1, expireInSeconds: 900, deleteAfterSeconds: 3600 },
      handler: runs.run.bind(runs),
      work: { concurrency, batchSize: 1 },
      shownAs: 'tracking monitor runs',
    },
    { every: TRACKING_DISPATCH, intervalMs: DISPATCH_MS, run: () => runs.dispatch() },
  ];
}
