import { Type, type Static } from 'typebox';
import { idPattern } from '../../lib/ids.js';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../http/schemas.js';

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const EVENT_TYPES = [
  'monitor.down',
  'monitor.up',
  'incident.opened',
  'incident.acknowledged',
  'incident.resolved',
  'container.status_changed',
  'container.forwarding_degraded',
  'domain.verified',
  'domain.failed',
  'domain.released',
  'domain.certificate_issued',
  'domain.certificate_failed',
  'domain.certificate_expiring',
  'report.ready',
  'tracking_checker.scan.completed',
  'tracking_checker.scan.failed',
  'tracking_incident.opened',
  'tracking_incident.resolved',
  'member.invited',
  'member.invitation_revoked',
  'member.joined',
  'member.role_changed',
  'member.removed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const WebhookIdParams = Type.Object({
  id: Type.String({ pattern: idPattern('webhook'), description: 'Webhook id (`whk_…`).' }),
});

const webhookProperties = {
  id: Type.String({ description: 'Webhook id (`whk_…`).' }),
  url: Type.String({ description: 'https endpoint receiving the events.' }),
  event_types: Type.Array(StringEnum(EVENT_TYPES), { description: 'Event types delivered to this endpoint.' }),
  created_at: Timestamp('When the webhook was created.'),
};

export const Webhook = Type.Object(webhookProperties, {
  $id: 'Webhook',
  additionalProperties: false,
  description: 'A webhook endpoint.',
});

export const CreatedWebhook = Type.Object(
  {
    ...webhookProperties,
    secret: Type.String({
      description:
        'Signing secret (`whsec_…`), shown only in this response. Each delivery has `Tagport-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with this secret>`; reject deliveries whose t is more than 5 minutes old.',
    }),
  },
  { $id: 'CreatedWebhook', additionalProperties: false },
);

export const CreateWebhookBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'An https URL on a public address.' }),
    event_types: Type.Array(StringEnum(EVENT_TYPES), { minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true }),
  },
  {
    additionalProperties: false,
    examples: [{ url: 'https://hooks.example.com/tagport', event_types: ['monitor.down', 'monitor.up'] }],
  },
);

export const Delivery = Type.Object(
  {
    id: Type.String({ description: 'Delivery id (`dlv_…`).' }),
    event_id: Type.String({
      description: 'Event id (`evt_…`), the same for every endpoint and retry: use it to de-duplicate.',
    }),
    event_type: StringEnum(EVENT_TYPES),
    status: StringEnum(WEBHOOK_DELIVERY_STATUSES, {
      description: 'pending: waiting for its next attempt; failed: gave up after the last retry.',
    }),
    attempts: Type.Integer(),
    last_status_code: Nullable(Type.Integer()),
    last_error: Nullable(Type.String()),
    next_attempt_at: NullableTimestamp('When the next attempt is due (null once finished).'),
    created_at: Timestamp('When the event was queued.'),
    delivered_at: NullableTimestamp('When the endpoint answered 2xx.'),
    payload: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The JSON body sent: {id, type, created_at, tenant_id, data}.',
    }),
  },
  { $id: 'WebhookDelivery', additionalProperties: false },
);

export type WebhookDto = Static<typeof Webhook>;
export type DeliveryDto = Static<typeof Delivery>;
