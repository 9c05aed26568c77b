import type { JobDefinition } from '../../jobs/definitions.js';
import type { TrackingCheckerService } from './service.js';
import { ANONYMOUS_SCANS, SCANS, type ScanWorker } from './worker.js';

/**
 * Scans hold Chromium: a worker takes as many as its browser pool runs, also when background work is off (requests
 * wait for them); a scan whose worker died runs again.
 */
export function scanJobs(
  worker: ScanWorker,
  trackingChecker: TrackingCheckerService,
  { scanTimeoutMs, concurrency }: { scanTimeoutMs: number; concurrency: number },
): JobDefinition[] {
  const options = { retryLimit: 1, expireInSeconds: Math.ceil(scanTimeoutMs / 1000) + 120 };
  const work = { concurrency, batchSize: 1, onDemand: true };
  return [
    { queue: SCANS, options, handler: worker.run.bind(worker), work, shownAs: 'scans' },
    { queue: ANONYMOUS_SCANS, options, handler: worker.runAnonymous.bind(worker), work, shownAs: 'scans' },
    { every: 'interrupted-scans', intervalMs: 60_000, run: () => trackingChecker.failInterruptedScans() },
  ];
}
