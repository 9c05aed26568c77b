import type { JobDefinition } from '../../jobs/definitions.js';
import {
  deliveryQueueOptions,
  WEBHOOK_DEAD_LETTERS,
  WEBHOOK_DELIVERIES,
  type WebhookService,
  type WebhookSettings,
} from './service.js';

/** Deliveries retried with back-off, then kept 30 days as dead letters (listed as failed by the API). */
export function webhookJobs(webhooks: WebhookService, settings: WebhookSettings): JobDefinition[] {
  return [
    { queue: WEBHOOK_DEAD_LETTERS, options: { retentionSeconds: 30 * 86_400 } },
    {
      queue: WEBHOOK_DELIVERIES,
      options: deliveryQueueOptions(settings),
      handler: webhooks.deliver.bind(webhooks),
      work: { concurrency: 4, batchSize: 10 },
      shownAs: 'webhook deliveries',
    },
  ];
}
