import { Type, type Static } from 'typebox';
import { idPattern } from '../../lib/ids.js';
import {
  Nullable,
  NullableTimestamp,
  optionalFields,
  patchFields,
  PaginationQuery,
  StringEnum,
  Timestamp,
} from '../../http/schemas.js';

export const MONITOR_STATUSES = ['pending', 'up', 'degraded', 'down', 'paused'] as const;
export const KEYWORD_MODES = ['contains', 'not_contains', 'regex'] as const;
export const METHODS = ['GET', 'HEAD', 'POST'] as const;
export const CHECK_RESULTS = ['up', 'degraded', 'down'] as const;
export const INCIDENT_STATUSES = ['open', 'acknowledged', 'resolved'] as const;

const StatusCodeRule = Type.String({
  pattern: '^([1-5]xx|[1-5][0-9][0-9])$',
  description: 'A status code (`200`) or a class (`2xx`).',
});

export const MonitorIdParams = Type.Object({
  id: Type.String({ pattern: idPattern('monitor'), description: 'Monitor id (`mon_…`).' }),
});
export const IncidentIdParams = Type.Object({
  id: Type.String({ pattern: idPattern('incident'), description: 'Incident id (`inc_…`).' }),
});

export const TARGET_TYPES = ['url', 'container', 'domain'] as const;
const TargetPath = Type.String({
  pattern: '^/[^\\s]*$',
  maxLength: 2048,
  description:
    "`container` and `domain`: the path requested. Default `/healthz`, the container's health on the gateway: 200 only while the container runs and its tagging server answers, 503 and the reason otherwise.",
});
const ContainerRef = Type.String({
  pattern: idPattern('container'),
  description: '`container`: one of your containers (`ctr_…`), checked at its default hostname.',
});
const DomainRef = Type.String({
  pattern: idPattern('domain'),
  description: '`domain`: one of your custom domains (`dom_…`).',
});
const TargetType = StringEnum(TARGET_TYPES, {
  description:
    'What is checked. `url`: any https URL on a public address; `container`: a container, at `https://{default_hostname}{path}`; `domain`: a custom domain, at `https://{hostname}{path}`.',
});

const Target = Type.Object(
  {
    type: TargetType,
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: '`url`: the https URL to check.' })),
    container_id: Type.Optional(ContainerRef),
    domain_id: Type.Optional(DomainRef),
    path: Type.Optional(TargetPath),
  },
  {
    additionalProperties: false,
    description: 'Give `url` for type `url`, `container_id` for `container`, `domain_id` for `domain`.',
  },
);

const TargetOut = Type.Object(
  {
    type: TargetType,
    url: Type.String({
      description: 'The URL every check requests (for containers and domains, resolved when the monitor was saved).',
    }),
    container_id: Nullable(ContainerRef),
    domain_id: Nullable(DomainRef),
    path: Nullable(TargetPath),
  },
  { additionalProperties: false },
);

const settings = {
  name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
  method: StringEnum(METHODS, { default: 'GET' }),
  interval_seconds: Type.Integer({
    minimum: 10,
    maximum: 86_400,
    description: 'Seconds between checks; at least the plan minimum (`features.monitor_min_interval_seconds`).',
  }),
  timeout_ms: Type.Integer({
    minimum: 500,
    maximum: 30_000,
    default: 10_000,
    description: 'A check slower than this is down.',
  }),
  expected_status_codes: Type.Array(StatusCodeRule, {
    minItems: 1,
    maxItems: 20,
    default: ['2xx'],
    description: 'Answers counted as up.',
  }),
  keyword: Nullable(Type.String({ minLength: 1, maxLength: 200 }), {
    default: null,
    description: 'Text (or regular expression) looked for in the body.',
  }),
  keyword_mode: Nullable(StringEnum(KEYWORD_MODES), {
    default: null,
    description: 'contains / not_contains / regex; required with keyword.',
  }),
  degraded_after_ms: Nullable(Type.Integer({ minimum: 1, maximum: 30_000 }), {
    default: null,
    description: 'An up check slower than this is degraded.',
  }),
  confirmation_checks: Type.Integer({
    minimum: 1,
    maximum: 10,
    default: 2,
    description: 'Failed checks in a row before the monitor is down and an incident opens.',
  }),
  notification_channel_ids: Type.Array(
    Type.String({ pattern: idPattern('notificationChannel'), description: 'A notification channel (`nch_…`).' }),
    {
      maxItems: 20,
      uniqueItems: true,
      default: [],
      description:
        "The tenant's notification channels told when this monitor's incidents open, are acknowledged and resolve (each only for the events it subscribes to).",
    },
  ),
};

export const Monitor = Type.Object(
  {
    id: Type.String(),
    target: TargetOut,
    ...settings,
    status: StringEnum(MONITOR_STATUSES, { description: 'pending until the first check; paused while paused.' }),
    last_checked_at: NullableTimestamp('When the last check ran.'),
    next_check_at: NullableTimestamp('When the next check is due (null while paused).'),
    created_at: Timestamp('When the monitor was created.'),
    updated_at: Timestamp('When the monitor was last changed.'),
  },
  { $id: 'Monitor', additionalProperties: false, description: 'An uptime monitor.' },
);

export const CreateMonitorBody = Type.Object(
  {
    target: Target,
    ...optionalFields(settings),
    name: settings.name,
    interval_seconds: Type.Optional(settings.interval_seconds),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Shop',
        target: { type: 'url', url: 'https://shop.example.com/' },
        interval_seconds: 60,
        keyword: 'Add to cart',
        keyword_mode: 'contains',
      },
      {
        name: 'Tagging server',
        target: { type: 'container', container_id: 'ctr_01jdv3k2m8q4r7s9t0v1w2x3y4', path: '/healthy' },
      },
    ],
  },
);

export const UpdateMonitorBody = Type.Object(patchFields({ target: Target, ...settings }), {
  additionalProperties: false,
  minProperties: 1,
});

export const Check = Type.Object(
  {
    id: Type.String(),
    checked_at: Timestamp('When the check ran.'),
    result: StringEnum(CHECK_RESULTS),
    status_code: Nullable(Type.Integer()),
    latency_ms: Nullable(Type.Integer()),
    timings: Nullable(
      Type.Record(Type.String(), Type.Number(), { description: 'ttfb_ms (time to response headers) and total_ms.' }),
    ),
    error: Nullable(Type.String({ description: 'Why the check failed.' })),
  },
  { $id: 'MonitorCheck', additionalProperties: false },
);

const Window = Type.Object(
  {
    uptime_pct: Nullable(Type.Number(), {
      description: 'Share of up or degraded checks, in percent; null without checks.',
    }),
    checks: Type.Integer(),
    p50_ms: Nullable(Type.Number()),
    p95_ms: Nullable(Type.Number()),
    p99_ms: Nullable(Type.Number()),
  },
  { additionalProperties: false },
);

export const MonitorStats = Type.Object(
  { monitor_id: Type.String(), last_24h: Window, last_7d: Window, last_30d: Window },
  {
    $id: 'MonitorStats',
    additionalProperties: false,
    description: 'Uptime and latency percentiles over the stored checks.',
  },
);

export const Incident = Type.Object(
  {
    id: Type.String(),
    monitor_id: Type.String(),
    status: StringEnum(INCIDENT_STATUSES),
    cause: Type.String({ description: 'The failure that opened the incident.' }),
    opened_at: Timestamp('When the incident opened.'),
    acknowledged_at: NullableTimestamp('When someone acknowledged it.'),
    resolved_at: NullableTimestamp('When it was resolved (by recovery or by hand).'),
  },
  { $id: 'Incident', additionalProperties: false },
);

export const ListIncidentsQuery = Type.Object({
  ...PaginationQuery.properties,
  status: Type.Optional(StringEnum(INCIDENT_STATUSES)),
  monitor_id: Type.Optional(Type.String({ pattern: idPattern('monitor') })),
});

export type MonitorDto = Static<typeof Monitor>;
export type CreateMonitorInput = Static<typeof CreateMonitorBody>;
export type UpdateMonitorInput = Static<typeof UpdateMonitorBody>;
export type CheckDto = Static<typeof Check>;
export type IncidentDto = Static<typeof Incident>;
