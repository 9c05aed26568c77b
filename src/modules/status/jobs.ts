import type { JobDefinition } from '../../jobs/definitions.js';
import type { StatusService } from './service.js';
import { STATUS_NOTIFICATIONS, type StatusSubscriptions } from './subscriptions.js';

export function statusJobs(
  status: StatusService,
  subscriptions: StatusSubscriptions,
  { checkIntervalMs }: { checkIntervalMs: number },
): JobDefinition[] {
  return [
    {
      queue: STATUS_NOTIFICATIONS,
      options: { retryLimit: 5, retryBackoff: true, retryDelay: 10 },
      handler: subscriptions.deliver.bind(subscriptions),
      work: { concurrency: 2, batchSize: 5 },
    },
    { every: 'status-check', intervalMs: checkIntervalMs, run: () => status.evaluate() },
  ];
}
