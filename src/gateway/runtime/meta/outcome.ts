import type { MetaDeliveryOutcome } from '../../../modules/meta-pixels/service.js';
import type { SendResult } from '../forward-queue.js';
import { maskToken, type OutgoingDescription } from '../outgoing.js';
import type { MetaServerEvent } from './events.js';
import type { MetaPixelTarget, MetaSendResult } from './sender.js';
import { HASHED_CUSTOMER_KEYS } from './user-data.js';

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

/** The forward queue's view of a Graph answer, with Meta's status and `error.message` for the outgoing log. */
export function sendResultOf(result: MetaSendResult): SendResult {
  if (result.verdict === 'delivered') return { outcome: 'delivered', httpStatus: result.httpStatus };
  const reason = `Graph API answered ${result.httpStatus ?? 'nothing'}: ${result.error.message}`;
  const answer = { httpStatus: result.httpStatus, vendorMessage: result.error.message };
  return result.verdict === 'retry'
    ? { outcome: 'retry', reason, ...answer }
    : { outcome: 'rejected', reason, ...answer };
}

/**
 * The Graph request for one event, summarised for the outgoing log: the event as sent (the IP the anonymizer let
 * through), hashed fields named only, and the access token masked.
 */
export function metaOutgoing(target: MetaPixelTarget, event: MetaServerEvent): OutgoingDescription {
  const userData: Record<string, unknown> = { ...event.user_data };
  // Hashed customer data is shown as such: which fields went, not their digests.
  for (const field of HASHED_CUSTOMER_KEYS) if (userData[field]) userData[field] = 'sha256 (hashed)';
  return {
    destination: `meta ${target.pixelId}`,
    eventName: event.event_name,
    eventId: event.event_id,
    request: {
      pixel_id: target.pixelId,
      event_name: event.event_name,
      event_id: event.event_id,
      event_time: event.event_time,
      action_source: event.action_source,
      ...(event.event_source_url ? { event_source_url: event.event_source_url } : {}),
      user_data: userData,
      ...(event.custom_data ? { custom_data: event.custom_data } : {}),
      ...(target.testEventCode ? { test_event_code: target.testEventCode } : {}),
      access_token: maskToken(target.accessToken),
    },
    conversion: event.custom_data?.value !== undefined || event.custom_data?.order_id !== undefined,
  };
}
