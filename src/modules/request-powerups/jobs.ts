import type { JobDefinition } from '../../jobs/definitions.js';
import type { RequestPowerupService } from './service.js';

/** How often due delayed requests and schedules are looked for (a schedule's due minute is not missed). */
const DUE_REQUESTS_MS = 10_000;

/** Request Delay and Schedule: due requests are sent through the gateway; settings are read on every run. */
export function requestPowerupJobs(
  powerups: RequestPowerupService,
  { intervalMs }: { intervalMs: number },
): JobDefinition[] {
  return [
    { every: 'delayed-requests', intervalMs: DUE_REQUESTS_MS, run: () => powerups.delivery.deliverDue() },
    { every: 'schedules', intervalMs: DUE_REQUESTS_MS, run: () => powerups.scheduler.runDue() },
    { every: 'request-powerups-retention', intervalMs, run: () => powerups.prune() },
  ];
}
