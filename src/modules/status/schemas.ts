import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../http/schemas.js';
import { idPattern } from '../../lib/ids.js';

export const INCIDENT_SOURCES = ['automatic', 'operator'] as const;
export const SUBSCRIPTION_KINDS = ['email', 'webhook'] as const;
/** What the status checks find of a component. */
export const COMPONENT_STATES = ['operational', 'degraded', 'outage'] as const;
export type ComponentState = (typeof COMPONENT_STATES)[number];
/** The stages of a platform incident, one per update. */
export const UPDATE_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
export const PLATFORM_INCIDENT_STATUSES = ['open', 'resolved'] as const;

export const State = StringEnum(COMPONENT_STATES);
export const UpdateStatus = StringEnum(UPDATE_STATUSES, {
  description: '`investigating`, `identified`, `monitoring` or `resolved` (which resolves the incident).',
});
const Time = Type.String({ format: 'date-time' });

const IncidentUpdate = Type.Object(
  { status: UpdateStatus, message: Type.String(), created_at: Time },
  { additionalProperties: false },
);

export const PlatformIncident = Type.Object(
  {
    id: Type.String(),
    component: Type.String(),
    title: Type.String(),
    status: StringEnum(PLATFORM_INCIDENT_STATUSES),
    stage: UpdateStatus,
    source: StringEnum(INCIDENT_SOURCES, {
      description: '`automatic`: opened by the self-checks; `operator`: posted through the API or the CLI.',
    }),
    opened_at: Time,
    resolved_at: Nullable(Time),
    updates: Type.Array(IncidentUpdate, { description: 'Newest first.' }),
  },
  { $id: 'PlatformIncident', additionalProperties: false },
);

export const Maintenance = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    message: Type.String(),
    components: Type.Array(Type.String()),
    starts_at: Time,
    ends_at: Time,
    state: StringEnum(['scheduled', 'in_progress', 'completed'] as const),
  },
  { $id: 'MaintenanceWindow', additionalProperties: false },
);

const Day = Type.Object(
  {
    date: Type.String({ format: 'date' }),
    checks: Type.Integer(),
    failures: Type.Integer({ description: 'Checks that found the component down.' }),
    uptime_percent: Nullable(Type.Number(), { description: 'null on a day without checks.' }),
  },
  { additionalProperties: false },
);

export const StatusDocument = Type.Object(
  {
    status: State,
    components: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          status: State,
          detail: Type.String(),
          uptime_percent: Nullable(Type.Number(), { description: 'Over the 90 days.' }),
          days: Type.Array(Day, { description: 'The last 90 UTC days, oldest first, from Tagport’s own checks.' }),
        },
        { additionalProperties: false },
      ),
    ),
    open_incidents: Type.Array(PlatformIncident),
    recent_incidents: Type.Array(PlatformIncident, { description: 'Resolved incidents of the last 90 days.' }),
    maintenance: Type.Array(Maintenance, {
      description: 'Scheduled, in progress, and completed in the last 90 days; soonest first.',
    }),
    queues: Type.Array(
      Type.Object(
        {
          name: Type.String({
            description: '`scans`, `webhook deliveries`, `container transitions`, `report builds`.',
          }),
          waiting: Type.Integer({ description: 'Jobs due and waiting for a worker.' }),
          running: Type.Integer({ description: 'Jobs a worker is running.' }),
          oldest_wait_seconds: Type.Number({ description: 'How long the oldest waiting job has waited.' }),
        },
        { additionalProperties: false },
      ),
      { description: 'The job queues workers take work from; empty while the database cannot be read.' },
    ),
    stale: Type.Boolean({
      description: 'True while the database cannot be read: incidents, maintenance and uptime are the last known.',
    }),
    data_as_of: Nullable(Time, { description: 'When incidents, maintenance and uptime were read.' }),
    updated_at: Time,
  },
  {
    $id: 'PlatformStatus',
    additionalProperties: false,
    description:
      "Tagport's own state, from its health checks (every STATUS_CHECK_MS, 30 s by default; an incident opens after STATUS_INCIDENT_AFTER_FAILURES failed checks in a row, 2 by default).",
  },
);

const Text = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, pattern: '\\S', ...(description ? { description } : {}) });

export const NewIncidentBody = Type.Object(
  {
    component: Text(80, 'The affected component, e.g. `Gateway`.'),
    title: Text(200),
    status: UpdateStatus,
    message: Text(5000, 'The first update, shown under the title.'),
  },
  { additionalProperties: false },
);

export const IncidentUpdateBody = Type.Object(
  { status: UpdateStatus, message: Text(5000) },
  { additionalProperties: false },
);

export const NewMaintenanceBody = Type.Object(
  {
    title: Text(200),
    message: Text(5000),
    components: Type.Optional(Type.Array(Text(80), { maxItems: 20 })),
    starts_at: Time,
    ends_at: Type.String({ format: 'date-time', description: 'After `starts_at`.' }),
  },
  { additionalProperties: false },
);

export const SubscribeBody = Type.Object(
  {
    email: Type.Optional(Type.String({ maxLength: 254, description: 'Gets a confirmation link first.' })),
    webhook_url: Type.Optional(
      Type.String({ maxLength: 2048, description: 'An https URL that receives a JSON POST per notice.' }),
    ),
  },
  { additionalProperties: false, description: 'Exactly one of `email` and `webhook_url`.' },
);

export const Subscription = Type.Object(
  {
    type: StringEnum(SUBSCRIPTION_KINDS),
    status: StringEnum(['pending_confirmation', 'active', 'unsubscribed'] as const),
    unsubscribe_token: Type.Optional(
      Nullable(Type.String(), {
        description: 'For a new webhook subscription: send it to the unsubscribe operation to stop. Shown once.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const TokenBody = Type.Object({ token: Text(200) }, { additionalProperties: false });
export const IncidentParams = Type.Object({
  id: Type.String({ pattern: idPattern('platformIncident'), description: 'Incident id (`pin_…`).' }),
});
export const MaintenanceParams = Type.Object({
  id: Type.String({ pattern: idPattern('maintenance'), description: 'Maintenance window id (`mnt_…`).' }),
});
