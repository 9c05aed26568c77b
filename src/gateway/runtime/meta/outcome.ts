import type { MetaDeliveryOutcome } from '../../../modules/meta-pixels/service.js';
import type { MetaServerEvent } from './events.js';
import type { MetaSendResult } from './sender.js';

/**
 * The delivery record of one Graph request, for `MetaPixelService.recordDeliveries`: `delivered` as it is, `rejected`
 * as `failed`, `retry` as `retrying` unless it was the queue's last attempt (then `failed`).
 */
export function deliveryOutcome(
  metaPixelId: string,
  events: readonly MetaServerEvent[],
  result: MetaSendResult,
  lastAttempt: boolean,
): MetaDeliveryOutcome {
  const status =
    result.verdict === 'delivered' ? 'delivered' : result.verdict === 'retry' && !lastAttempt ? 'retrying' : 'failed';
  return {
    metaPixelId,
    events: events.map((event) => ({ eventId: event.event_id, eventName: event.event_name })),
    status,
    httpStatus: result.httpStatus,
    error: result.verdict === 'delivered' ? null : result.error,
  };
}
