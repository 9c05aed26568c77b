import { Type, type Static } from 'typebox';
import { idPattern } from '../../lib/ids.js';
import { Nullable, PaginationQuery, StringEnum, Timestamp } from '../../http/schemas.js';

export const MetaPixelParams = Type.Object({
  id: Type.String({ pattern: idPattern('container'), description: 'Container id (`ctr_…`).' }),
  pixel: Type.String({
    pattern: idPattern('metaPixel'),
    description: 'Meta pixel id in Tagport (`mpx_…`), not the pixel id Meta gave.',
    examples: ['mpx_01jdv3k2m8q4r7s9t0v1w2x3y4'],
  }),
});

const PixelId = Type.String({
  pattern: '^[0-9]{5,20}$',
  description: 'The pixel (dataset) id from Meta Events Manager: digits only.',
  examples: ['1234567890123456'],
});

const TestEventCode = Type.String({
  pattern: '^[A-Za-z0-9_-]{1,64}$',
  description: 'From Events Manager → Test events: events are sent with it and show there instead of in the reports.',
  examples: ['TEST4711'],
});

const metaPixelProperties = {
  id: Type.String({ description: 'Meta pixel id in Tagport (`mpx_…`).' }),
  container_id: Type.String({ description: 'The container forwarding to the pixel.' }),
  pixel_id: PixelId,
  access_token_last4: Type.String({ description: 'Last four characters of the access token.', examples: ['x9Yz'] }),
  test_event_code: Nullable(TestEventCode, { description: 'The test event code events are sent with, or null.' }),
  created_at: Timestamp('When the pixel was added.'),
};

export const MetaPixel = Type.Object(metaPixelProperties, {
  additionalProperties: false,
  description: 'A Meta pixel the container forwards events to. The access token is never returned after creation.',
});

export const CreatedMetaPixel = Type.Object(
  {
    ...metaPixelProperties,
    access_token: Type.String({
      description: 'The access token as stored, shown only in this response; afterwards only its last four characters.',
      examples: ['EAAGm0PX4ZCpsBAxxxxxxxxxxxxx'],
    }),
  },
  { additionalProperties: false, description: 'The new Meta pixel, with its access token shown this one time.' },
);

const AccessToken = (description: string) =>
  Type.String({ minLength: 20, maxLength: 1000, pattern: '^[A-Za-z0-9_|.-]+$', description });

export const CreateMetaPixelBody = Type.Object(
  {
    pixel_id: PixelId,
    access_token: AccessToken(
      'A Conversions API access token for the pixel (Events Manager → Settings → Generate access token). Stored encrypted with SECRETS_KEY.',
    ),
    test_event_code: Type.Optional(TestEventCode),
  },
  {
    additionalProperties: false,
    examples: [
      { pixel_id: '1234567890123456', access_token: 'EAAGm0PX4ZCpsBAxxxxxxxxxxxxx', test_event_code: 'TEST4711' },
    ],
  },
);

export const UpdateMetaPixelBody = Type.Object(
  {
    access_token: Type.Optional(
      AccessToken(
        'A new access token replacing the stored one (for example when it expired). Stored encrypted with SECRETS_KEY and never shown; responses show only its last four characters.',
      ),
    ),
    test_event_code: Type.Optional(
      Nullable(TestEventCode, { description: 'The test event code events are sent with; null to send them without.' }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ access_token: 'EAAGm0PX4ZCpsBAyyyyyyyyyyyyy' }, { test_event_code: null }],
  },
);

export const DELIVERY_STATUSES = ['delivered', 'retrying', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

const GraphError = Type.Object(
  {
    message: Type.String(),
    type: Nullable(Type.String(), { description: 'Graph error type, e.g. `OAuthException`.' }),
    code: Nullable(Type.Integer(), { description: 'Graph error code, e.g. 100 (invalid parameter), 190 (token).' }),
    error_subcode: Nullable(Type.Integer()),
    fbtrace_id: Nullable(Type.String(), { description: 'Quote it to Meta support.' }),
  },
  { additionalProperties: false, description: "The Graph API's error, as Meta sent it." },
);

export const MetaEventDelivery = Type.Object(
  {
    event_id: Type.String({ description: 'The event id Meta deduplicates on (shared with the browser pixel).' }),
    event_name: Type.String({ description: 'The Meta event name sent, e.g. `Purchase`.', examples: ['Purchase'] }),
    status: StringEnum(DELIVERY_STATUSES, {
      description:
        '`delivered` (Graph took it), `retrying` (a temporary failure; sent again) or `failed` (refused, or retries ran out).',
    }),
    attempts: Type.Integer({ minimum: 1 }),
    http_status: Nullable(Type.Integer(), {
      description: "Graph's HTTP status of the last attempt; null when it was not reached.",
    }),
    error: Nullable(GraphError, { description: 'The last error; null once delivered.' }),
    first_attempt_at: Timestamp('When the event was first sent.'),
    last_attempt_at: Timestamp('When it was last sent.'),
  },
  { additionalProperties: false, description: "One event sent to a pixel, with the Graph API's answer." },
);

export const DeliveriesQuery = Type.Object(
  {
    ...PaginationQuery.properties,
    status: Type.Optional(StringEnum(DELIVERY_STATUSES, { description: 'Only deliveries with this status.' })),
  },
  { additionalProperties: false },
);

export type MetaPixelDto = Static<typeof MetaPixel>;
export type CreatedMetaPixelDto = Static<typeof CreatedMetaPixel>;
export type CreateMetaPixelInput = Static<typeof CreateMetaPixelBody>;
export type UpdateMetaPixelInput = Static<typeof UpdateMetaPixelBody>;
export type MetaEventDeliveryDto = Static<typeof MetaEventDelivery>;
export type GraphErrorDto = Static<typeof GraphError>;
