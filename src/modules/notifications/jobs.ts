import type { JobDefinition } from '../../jobs/definitions.js';
import { deliveryQueueOptions, type WebhookSettings } from '../webhooks/service.js';
import { NOTIFICATION_DEAD_LETTERS, NOTIFICATION_DELIVERIES } from './service.js';
import type { NotificationWorker } from './worker.js';

/** Alerts to the tenant's channels, retried like webhook deliveries, then kept 30 days as dead letters. */
export function notificationJobs(worker: NotificationWorker, settings: WebhookSettings): JobDefinition[] {
  return [
    { queue: NOTIFICATION_DEAD_LETTERS, options: { retentionSeconds: 30 * 86_400 } },
    {
      queue: NOTIFICATION_DELIVERIES,
      options: deliveryQueueOptions(settings, NOTIFICATION_DEAD_LETTERS),
      handler: worker.deliver.bind(worker),
      work: { concurrency: 2, batchSize: 5 },
      shownAs: 'notification deliveries',
    },
  ];
}
