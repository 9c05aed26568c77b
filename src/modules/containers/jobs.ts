import type { JobDefinition } from '../../jobs/definitions.js';
import type { ForwardingAlerts } from './forwarding-alerts.js';
import { CONTAINER_TRANSITIONS, type ContainerWorker } from './worker.js';

/** How often containers' forwarding losses flushed by the gateways are looked at for alerts. */
const FORWARDING_ALERTS_MS = 60_000;
/** How often running `sgtm` containers are checked for tagging servers that broke down (crash loops, pulls). */
const TAGGING_SERVER_HEALTH_MS = 30_000;

export function containerJobs(worker: ContainerWorker, forwardingAlerts: ForwardingAlerts): JobDefinition[] {
  return [
    {
      queue: CONTAINER_TRANSITIONS,
      options: { policy: 'stately', retryLimit: 5, retryBackoff: true },
      handler: worker.step.bind(worker),
      shownAs: 'container transitions',
    },
    { every: 'forwarding-alerts', intervalMs: FORWARDING_ALERTS_MS, run: () => forwardingAlerts.checkDue() },
    {
      every: 'tagging-server-health',
      intervalMs: TAGGING_SERVER_HEALTH_MS,
      run: () => worker.failBrokenTaggingServers(),
    },
  ];
}
