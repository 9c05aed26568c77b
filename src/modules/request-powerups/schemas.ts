import { type Static, Type } from 'typebox';
import { Nullable, PaginationQuery, StringEnum, Timestamp } from '../../http/schemas.js';

export const DELAYED_STATUSES = ['pending', 'delivered', 'failed'] as const;
export const RUN_STATUSES = ['running', 'succeeded', 'failed'] as const;

export const DelayedRequest = Type.Object(
  {
    id: Type.String({ description: 'Delayed request id (`dly_…`); page with it.' }),
    method: Type.String({ description: 'The method it is sent with.', examples: ['POST'] }),
    path: Type.String({
      description: 'Where it is sent on the container: the path after `/delay/<minutes>`, query included.',
      examples: ['/mp/collect?measurement_id=G-ABC123'],
    }),
    body_bytes: Type.Integer({ minimum: 0, description: 'The size of its body.' }),
    body_start: Type.String({
      description: 'The first 64 bytes of the body, as text (invalid UTF-8 replaced); the body itself is never shown.',
    }),
    delay_minutes: Type.Integer({ minimum: 1, maximum: 1500 }),
    status: StringEnum(DELAYED_STATUSES, {
      description:
        '`pending` (waiting or being retried), `delivered` (the container answered 1xx–3xx) or `failed` (a 4xx, or 5xx and connection errors for an hour after its due time).',
    }),
    due_at: Timestamp('When it is (or was) sent.'),
    attempts: Type.Integer({ minimum: 0, description: 'Attempts made.' }),
    http_status: Nullable(Type.Integer(), { description: "The container's HTTP status on the last attempt." }),
    error: Nullable(Type.String(), {
      description: 'Why the last attempt failed; null when it has not, or was delivered.',
    }),
    finished_at: Nullable(Timestamp('When it was delivered or failed.')),
    created_at: Timestamp('When it was received and stored.'),
  },
  {
    $id: 'DelayedRequest',
    additionalProperties: false,
    description: 'A request held by Request Delay: kept 3 days once delivered, 7 days once failed.',
  },
);

export const DelayedRequestQuery = Type.Object(
  {
    ...PaginationQuery.properties,
    status: Type.Optional(StringEnum(DELAYED_STATUSES, { description: 'Only requests in this state.' })),
  },
  { additionalProperties: false },
);

export const ScheduleRun = Type.Object(
  {
    id: Type.String({ description: 'Run id (`run_…`); page with it.' }),
    schedule: Type.String({ description: 'The name of the scheduled request.' }),
    due_at: Timestamp('The due time of its cron expression this run is for.'),
    status: StringEnum(RUN_STATUSES, {
      description: '`running`, `succeeded` (the container answered 1xx–3xx) or `failed`.',
    }),
    http_status: Nullable(Type.Integer(), { description: "The container's HTTP status; null when not reached." }),
    error: Nullable(Type.String(), { description: 'Why it failed; null otherwise.' }),
    duration_ms: Nullable(Type.Integer(), { description: 'How long the request took; null while running.' }),
    started_at: Timestamp('When it was sent.'),
  },
  {
    $id: 'ScheduleRun',
    additionalProperties: false,
    description: 'One run of a scheduled request: the newest 20 of each schedule are kept.',
  },
);

export const ScheduleRunQuery = Type.Object(
  {
    ...PaginationQuery.properties,
    schedule: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'Only the runs of the schedule with this name.' }),
    ),
  },
  { additionalProperties: false },
);

export type DelayedRequestDto = Static<typeof DelayedRequest>;
export type DelayedRequestFilter = Static<typeof DelayedRequestQuery>;
export type ScheduleRunDto = Static<typeof ScheduleRun>;
export type ScheduleRunFilter = Static<typeof ScheduleRunQuery>;
