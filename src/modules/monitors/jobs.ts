import type { JobDefinition } from '../../jobs/definitions.js';
import type { JobEngine } from '../../jobs/engine.js';
import { MONITOR_CHECKS, MONITOR_DISPATCH, type MonitorChecks } from './checks.js';

/** How often due monitor checks are claimed and queued (each check job is woken when due: see `DueWakeups`). */
const DISPATCH_MS = 1000;

/** How far ahead checks are queued: the dispatch job runs every second and is picked up within a poll. */
export function dispatchLookaheadMs(jobPollMs: number): number {
  return DISPATCH_MS + 2 * jobPollMs + 1000;
}

/** Checks are short and many: a pool settles each on its own, so a target that hangs holds one slot, not a batch. */
export function monitorJobs(checks: MonitorChecks, { concurrency }: { concurrency: number }): JobDefinition[] {
  return [
    {
      queue: MONITOR_CHECKS,
      options: { retryLimit: 1, expireInSeconds: 60, deleteAfterSeconds: 600 },
      handler: checks.run.bind(checks),
      work: { concurrency, pool: {} },
      shownAs: 'monitor checks',
    },
    { every: MONITOR_DISPATCH, intervalMs: DISPATCH_MS, run: () => checks.dispatch() },
  ];
}

/** How late monitor checks are: the most overdue unclaimed monitor, or the oldest check job waiting to run. */
export async function monitoringLag(jobs: JobEngine, checks: MonitorChecks): Promise<number> {
  const [queue] = await jobs.backlog([MONITOR_CHECKS]);
  return Math.max(await checks.overdueSeconds(), queue.oldestWaitSeconds);
}
