import { Type, type Static } from 'typebox';
import { Nullable, PaginationQuery, StringEnum, Timestamp } from '../../http/schemas.js';

/** The vendors the built-in runtime forwards to. */
export const OUTGOING_VENDORS = ['ga4', 'meta'] as const;
export type OutgoingVendor = (typeof OUTGOING_VENDORS)[number];
export const OUTGOING_STATUSES = ['delivered', 'failed'] as const;

export const OutgoingLogEntry = Type.Object(
  {
    id: Type.String({ description: 'Entry id (`out_…`); page with it.' }),
    vendor: StringEnum(OUTGOING_VENDORS, { description: 'Who the event was sent to.' }),
    destination: Type.String({
      description: 'The GA4 measurement id or the Meta pixel id sent to.',
      examples: ['ga4 G-ABC123', 'meta 1234567890123456'],
    }),
    event_name: Type.String({ description: 'The event name as sent to the vendor.', examples: ['purchase'] }),
    event_id: Nullable(Type.String(), {
      description: 'The event id (deduplication with the browser pixel), or null when the hit had none.',
    }),
    request: Type.Record(Type.String(), Type.Unknown(), {
      description:
        "What was sent, summarised: GA4 measurement id, client id, event name and a few parameters; Meta the event as sent with hashed fields named only. Access tokens are masked; the only IP is the one the container's anonymizer let through.",
    }),
    status: StringEnum(OUTGOING_STATUSES, {
      description: '`delivered` (the vendor took it) or `failed` (refused, out of attempts, or dropped at shutdown).',
    }),
    http_status: Nullable(Type.Integer(), {
      description: "The vendor's HTTP status on the last attempt; null when it was not reached (or GA4 took the hit).",
    }),
    error: Nullable(Type.String(), {
      description:
        "Why it failed: the vendor's message (Meta's `error.message`) or the runtime's reason; null when delivered.",
    }),
    attempts: Type.Integer({ minimum: 0, description: 'Attempts made; 0 when the runtime stopped before sending.' }),
    latency_ms: Nullable(Type.Integer(), { description: 'How long the last attempt took; null when never sent.' }),
    at: Timestamp('When the forward was delivered or given up.'),
  },
  {
    $id: 'OutgoingLogEntry',
    additionalProperties: false,
    description: 'One forward of the built-in runtime to a vendor: what was sent and what the vendor answered.',
  },
);

export const OutgoingLogQuery = Type.Object(
  {
    ...PaginationQuery.properties,
    vendor: Type.Optional(StringEnum(OUTGOING_VENDORS, { description: 'Only forwards to this vendor.' })),
    status: Type.Optional(StringEnum(OUTGOING_STATUSES, { description: 'Only delivered or only failed forwards.' })),
    event_name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Only this event name, in any case (`purchase` finds GA4 `purchase` and Meta `Purchase`).',
      }),
    ),
    event_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only this event id.' })),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'Only forwards settled at or after this.' })),
  },
  { additionalProperties: false },
);

export type OutgoingLogEntryDto = Static<typeof OutgoingLogEntry>;
export type OutgoingLogFilter = Static<typeof OutgoingLogQuery>;
