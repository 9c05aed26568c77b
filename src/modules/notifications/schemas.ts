import { Type, type Static } from 'typebox';
import { idPattern } from '../../lib/ids.js';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../http/schemas.js';

export const CHANNEL_TYPES = ['email', 'slack', 'webhook'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/**
 * What a channel can be told about. Incident events of a monitor (uptime or tracking) go to the monitor's channels
 * only.
 */
export const NOTIFICATION_EVENT_TYPES = [
  'incident.opened',
  'incident.acknowledged',
  'incident.resolved',
  'certificate.failed',
  'container.failed',
  'container.forwarding_degraded',
  'tracking_incident.opened',
  'tracking_incident.resolved',
] as const;
export type NotificationEventType = (typeof NOTIFICATION_EVENT_TYPES)[number];
/** A delivery's event: a notification event, or the test sent on request. */
export const DELIVERY_EVENT_TYPES = [...NOTIFICATION_EVENT_TYPES, 'test'] as const;
export type DeliveryEventType = (typeof DELIVERY_EVENT_TYPES)[number];
export const NOTIFICATION_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export const ChannelIdParams = Type.Object({
  id: Type.String({ pattern: idPattern('notificationChannel'), description: 'Channel id (`nch_…`).' }),
});

const ChannelName = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'A name for people.' });
const Target = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    '`email`: the address alerts are sent to. `slack`: the incoming-webhook URL (Slack, Mattermost, or Discord with `/slack` at the end); a secret, shown masked afterwards. `webhook`: an https URL receiving signed JSON events.',
});
const EventTypes = Type.Array(StringEnum(NOTIFICATION_EVENT_TYPES), {
  minItems: 1,
  maxItems: NOTIFICATION_EVENT_TYPES.length,
  uniqueItems: true,
  description:
    'What the channel is told about (default: everything). Incident events of a monitor reach only the channels chosen on that monitor (`notification_channel_ids`); certificate and container failures reach every channel of the tenant that subscribes to them. `certificate.failed` covers a certificate that could not be issued and one near expiry because its renewals keep failing.',
});

const channelProperties = {
  id: Type.String({ description: 'Channel id (`nch_…`).' }),
  name: ChannelName,
  type: StringEnum(CHANNEL_TYPES, {
    description: '`email`, `slack` (Slack-compatible incoming webhook) or `webhook` (signed JSON).',
  }),
  target: Type.String({
    description: 'The email address or URL; a Slack URL is masked (`https://hooks.slack.com/…a1b2`).',
  }),
  event_types: Type.Array(StringEnum(NOTIFICATION_EVENT_TYPES)),
  created_at: Timestamp('When the channel was created.'),
  updated_at: Timestamp('When the channel was last changed.'),
};

export const NotificationChannel = Type.Object(channelProperties, {
  $id: 'NotificationChannel',
  additionalProperties: false,
  description: 'Where alerts go: an email address, a Slack-compatible incoming webhook or a signed webhook.',
});

export const CreatedNotificationChannel = Type.Object(
  {
    ...channelProperties,
    signing_secret: Nullable(Type.String(), {
      description:
        '`webhook` channels: the signing secret (`whsec_…`), shown only in this response; deliveries carry `Tagport-Signature` as webhooks do. Null for other types.',
    }),
  },
  { $id: 'CreatedNotificationChannel', additionalProperties: false },
);

export const CreateChannelBody = Type.Object(
  {
    name: ChannelName,
    type: StringEnum(CHANNEL_TYPES),
    target: Target,
    event_types: Type.Optional(EventTypes),
  },
  {
    additionalProperties: false,
    examples: [
      { name: 'On-call', type: 'email', target: 'oncall@example.com' },
      {
        name: '#alerts',
        type: 'slack',
        target: 'https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXX',
        event_types: ['incident.opened', 'incident.resolved'],
      },
    ],
  },
);

export const UpdateChannelBody = Type.Object(
  { name: Type.Optional(ChannelName), target: Type.Optional(Target), event_types: Type.Optional(EventTypes) },
  { additionalProperties: false, minProperties: 1, examples: [{ event_types: ['incident.opened'] }] },
);

export const NotificationDelivery = Type.Object(
  {
    id: Type.String({ description: 'Delivery id (`ntf_…`).' }),
    channel_id: Type.String(),
    event_id: Type.String({ description: 'The event notified; the same for every channel told about it.' }),
    event_type: StringEnum(DELIVERY_EVENT_TYPES),
    title: Type.String({ description: 'The subject of the email, the first line of the chat message.' }),
    status: StringEnum(NOTIFICATION_DELIVERY_STATUSES, {
      description: 'pending: waiting for its next attempt; failed: gave up after the last retry.',
    }),
    attempts: Type.Integer(),
    last_status_code: Nullable(Type.Integer({ description: 'The HTTP status of the last attempt (URLs only).' })),
    last_error: Nullable(Type.String()),
    next_attempt_at: NullableTimestamp('When the next attempt is due (null once finished).'),
    created_at: Timestamp('When the notification was queued.'),
    delivered_at: NullableTimestamp('When it was accepted by the mail server or the endpoint.'),
  },
  { $id: 'NotificationDelivery', additionalProperties: false },
);

export type ChannelDto = Static<typeof NotificationChannel>;
export type CreatedChannelDto = Static<typeof CreatedNotificationChannel>;
export type CreateChannelInput = Static<typeof CreateChannelBody>;
export type UpdateChannelInput = Static<typeof UpdateChannelBody>;
export type NotificationDeliveryDto = Static<typeof NotificationDelivery>;
