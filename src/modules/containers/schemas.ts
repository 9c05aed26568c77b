import { Type, type Static } from 'typebox';
import { idPattern } from '../../lib/ids.js';
import { Nullable, PaginationQuery, StringEnum, Timestamp } from '../../http/schemas.js';
import { ContainerSettings, ContainerSettingsChange, RuntimeField } from './settings.js';

export const REGIONS = ['eu-central', 'eu-west', 'us-east', 'us-west', 'ap-southeast'] as const;
export const CONTAINER_STATUSES = [
  'provisioning',
  'running',
  'stopping',
  'stopped',
  'starting',
  'failed',
  'deleting',
  'deleted',
] as const;
export type ContainerStatus = (typeof CONTAINER_STATUSES)[number];
/** Containers on their way out: no new domains or monitors may point at them. */
export const REMOVED_STATUSES: readonly ContainerStatus[] = ['deleting', 'deleted'];
export const ACTIONS = ['start', 'stop', 'restart', 'delete'] as const;
export type ContainerAction = (typeof ACTIONS)[number];

/** Which actions each state allows, and the transitional state each leads to. */
export const TRANSITIONS: Record<ContainerAction, { from: ContainerStatus[]; to: ContainerStatus }> = {
  start: { from: ['stopped', 'failed'], to: 'starting' },
  stop: { from: ['running'], to: 'stopping' },
  restart: { from: ['running'], to: 'stopping' },
  delete: { from: ['provisioning', 'running', 'stopped', 'failed', 'starting', 'stopping'], to: 'deleting' },
};

export const STATE_MACHINE = `provisioning → running (or failed); running —stop→ stopping → stopped; stopped/failed —start→ starting → running (or failed); running —restart→ stopping → stopped → starting → running; any state but deleting/deleted —delete→ deleting → deleted. Transitional states are completed by the background worker.`;

export const ContainerIdParams = Type.Object({
  id: Type.String({ pattern: idPattern('container'), description: 'Container id (`ctr_…`).' }),
});

const Config = Type.String({
  minLength: 8,
  maxLength: 4096,
  description:
    'The server-side Google Tag Manager container config: the base64 string from GTM (Admin → Container settings), decoding to `id=GTM-…&env=…&auth=…`.',
  examples: ['aWQ9R1RNLUFCQzEyMyZlbnY9MSZhdXRoPWFiY2RlZmdoaWprbG1u'],
});

const MaskedConfig = Type.String({
  description:
    'The container config, masked: its first 6 and last 4 characters. It is sealed at rest and never shown whole again; send a new one to change it.',
  examples: ['aWQ9R1…bG1u'],
});

/** Why a running container is not healthy: the codes the gateway's `/healthz` answers on its hostnames. */
export const HEALTH_PROBLEMS = [
  'no_upstream',
  'upstream_unreachable',
  'runtime_not_ready',
  'no_ready_replicas',
] as const;

export const TaggingServerStatus = Type.Object(
  {
    driver: StringEnum(['process', 'kubernetes'] as const, {
      description: '`process`: replicas supervised on the gateway machine; `kubernetes`: Deployments in a cluster.',
    }),
    state: StringEnum(['progressing', 'available', 'failed', 'stopped', 'absent', 'unknown'] as const, {
      description:
        '`progressing`: starting or rolling out; `available`: a tagging replica and the preview server are ready; `failed`: they cannot start (see `reason`); `stopped`: scaled to zero; `absent`: not created yet; `unknown`: the orchestrator could not be asked.',
    }),
    reason: Nullable(Type.String(), {
      description: 'Why it is failed or unknown, as the tagging server or Kubernetes says.',
    }),
    version: Type.String({
      description: "The version (image tag) of Google's tagging server it runs or is rolling to.",
    }),
    replicas: Type.Object(
      {
        ready: Type.Integer({ description: 'Tagging replicas ready to serve.' }),
        desired: Type.Integer({ description: 'Tagging replicas wanted now.' }),
        min: Type.Integer({ description: 'Lower bound.' }),
        max: Type.Integer({ description: "Upper bound (the autoscaler's, kubernetes driver)." }),
      },
      { additionalProperties: false },
    ),
    preview_url: Type.String({
      description: "The preview server's URL: what GTM's preview mode connects to (`PREVIEW_SERVER_URL`).",
    }),
  },
  {
    $id: 'TaggingServerStatus',
    additionalProperties: false,
    description: "Google's tagging server running for this container (runtime `sgtm`), as the orchestrator reports it.",
  },
);
export type TaggingServerStatusDto = Static<typeof TaggingServerStatus>;

export const TaggingServerLogLine = Type.Object(
  {
    replica: Type.String({ description: 'The replica (`tagging-0`, `preview-0`) or pod it came from.' }),
    stream: StringEnum(['stdout', 'stderr'] as const),
    at: Timestamp('When it was printed.'),
    line: Type.String(),
  },
  { $id: 'TaggingServerLogLine', additionalProperties: false, description: 'A line a tagging server printed.' },
);

export const TaggingServerLogs = Type.Object(
  {
    container_id: Type.String(),
    lines: Type.Array(TaggingServerLogLine),
  },
  { additionalProperties: false, description: "The recent output of a container's tagging servers." },
);

export const TaggingServerLogsQuery = Type.Object({
  lines: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Lines per replica, newest kept.' }),
  ),
});

export const ContainerHealth = Type.Object(
  {
    status: StringEnum(['healthy', 'unhealthy', 'not_checked'] as const, {
      description:
        '`healthy`: running, and its tagging server answers its health check (or, `runtime: builtin`, the built-in runtime is ready); `unhealthy`: running but not serving (see `code`); `not_checked`: not running (`status` says why).',
    }),
    code: Nullable(StringEnum(HEALTH_PROBLEMS), {
      description: 'Why it is unhealthy, as the 503 of `/healthz` on its hostnames says; null otherwise.',
    }),
    message: Nullable(Type.String(), { description: 'The same in words; null when healthy or not checked.' }),
  },
  {
    additionalProperties: false,
    description:
      "The gateway's health check of the container (what `/healthz` on its hostnames answers), made when read; an answer is reused for up to 5 seconds.",
  },
);

export const Container = Type.Object(
  {
    id: Type.String(),
    tenant_id: Type.String(),
    name: Type.String(),
    region: StringEnum(REGIONS, { description: `Where the container runs: ${REGIONS.join(', ')}.` }),
    status: StringEnum(CONTAINER_STATUSES, { description: STATE_MACHINE }),
    status_reason: Nullable(Type.String(), { description: 'Why the container is failed, or what it is doing.' }),
    health: ContainerHealth,
    config: MaskedConfig,
    gtm_container_id: Type.String({ description: 'The GTM container id read from config.' }),
    runtime: RuntimeField,
    upstream_url: Nullable(Type.String(), {
      description: 'The tagging server the gateway forwards to when `runtime` is `upstream`.',
    }),
    settings: ContainerSettings,
    tagging_server: Nullable(TaggingServerStatus, { description: 'Runtime `sgtm` only; null otherwise.' }),
    default_hostname: Type.String({
      description: 'Hostname served by the gateway for this container; point custom domains here with a CNAME.',
    }),
    allowed_actions: Type.Array(StringEnum(ACTIONS), { description: 'Actions valid in the current state.' }),
    created_at: Timestamp('When the container was created.'),
    updated_at: Timestamp('When it last changed.'),
  },
  { $id: 'Container', additionalProperties: false, description: 'A hosted server-side tagging container.' },
);

const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });
const Upstream = Nullable(Type.String({ minLength: 1, maxLength: 2048 }), {
  description: 'https URL of the tagging server (a public address).',
});

export const CreateContainerBody = Type.Object(
  {
    name: Name,
    region: StringEnum(REGIONS),
    config: Config,
    runtime: Type.Optional(RuntimeField),
    upstream_url: Type.Optional(Upstream),
    settings: Type.Optional(ContainerSettingsChange),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Shop',
        region: 'eu-central',
        config: 'aWQ9R1RNLUFCQzEyMyZlbnY9MSZhdXRoPWFiY2RlZmdoaWprbG1u',
        settings: { ga4_measurement_ids: ['G-ABC123XYZ'], bot_detection: { mode: 'drop' } },
      },
      {
        name: 'Shop sGTM',
        region: 'eu-central',
        config: 'aWQ9R1RNLUFCQzEyMyZlbnY9MSZhdXRoPWFiY2RlZmdoaWprbG1u',
        upstream_url: 'https://tagging.example.com',
      },
    ],
  },
);

export const UpdateContainerBody = Type.Object(
  {
    name: Type.Optional(Name),
    config: Type.Optional(Config),
    runtime: Type.Optional(RuntimeField),
    upstream_url: Type.Optional(Upstream),
    settings: Type.Optional(ContainerSettingsChange),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ settings: { loader_path: 'k3v9xq2m', cookie_keeper: { enabled: true } } }, { runtime: 'builtin' }],
  },
);

export const UsageQuery = Type.Object({
  from: Type.Optional(Type.String({ format: 'date', description: 'First UTC day (YYYY-MM-DD), default 30 days ago.' })),
  to: Type.Optional(Type.String({ format: 'date', description: 'Last UTC day, inclusive, default today.' })),
});

const Bytes = {
  request_bytes: Type.Integer({ description: 'Body bytes the clients sent (headers not counted).' }),
  response_bytes: Type.Integer({ description: 'Body bytes answered: by the upstream, or by the gateway itself.' }),
};

export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;

const RuntimeCounts = Type.Object(
  {
    hits_received: Type.Integer({
      description: 'Events received and acknowledged on the collection endpoints (`/g/collect`, `/events`).',
    }),
    ga4_forwarded: Type.Integer({ description: 'Events delivered to Google Analytics 4.' }),
    meta_forwarded: Type.Integer({ description: 'Events delivered to the Meta Conversions API.' }),
    forwards_failed: Type.Integer({
      description: 'Forwards a vendor refused, or that ran out of retries (each is logged with the reason).',
    }),
    hits_refused: Type.Integer({
      description:
        'Events answered 503 (never acknowledged) because the forward queue was full: the browser may send them again.',
    }),
    bots_dropped: Type.Integer({ description: 'Hits from bots that bot detection dropped.' }),
    cookies_restored: Type.Integer({ description: 'Cookies the cookie keeper restored for visitors who lost them.' }),
  },
  { additionalProperties: false },
);

export type RuntimeCountsDto = Static<typeof RuntimeCounts>;

export const Usage = Type.Object(
  {
    container_id: Type.String(),
    from: Type.String(),
    to: Type.String(),
    total_requests: Type.Integer(),
    total_request_bytes: Type.Integer(),
    total_response_bytes: Type.Integer(),
    days: Type.Array(
      Type.Object({ day: Type.String(), requests: Type.Integer(), ...Bytes }, { additionalProperties: false }),
    ),
    by_hostname: Type.Array(
      Type.Object({ hostname: Type.String(), requests: Type.Integer(), ...Bytes }, { additionalProperties: false }),
    ),
    by_status_class: Type.Record(Type.String(), Type.Integer(), {
      description: 'Requests per status class: 2xx, 3xx, 4xx, 5xx.',
    }),
    runtime: Type.Object(
      {
        totals: RuntimeCounts,
        days: Type.Array(
          Type.Object({ day: Type.String(), ...RuntimeCounts.properties }, { additionalProperties: false }),
          {
            description: 'One entry per UTC day with built-in runtime activity, oldest first.',
          },
        ),
      },
      {
        additionalProperties: false,
        description: 'What the built-in runtime did: hits collected, events forwarded per vendor, failures, power-ups.',
      },
    ),
    rows: Type.Array(
      Type.Object(
        {
          day: Type.String(),
          hostname: Type.String(),
          status_class: Type.String({ description: '2xx, 3xx, 4xx or 5xx.' }),
          requests: Type.Integer(),
          ...Bytes,
        },
        { additionalProperties: false },
      ),
      { description: 'The full breakdown: one row per UTC day, hostname and status class, in that order.' },
    ),
  },
  {
    $id: 'ContainerUsage',
    additionalProperties: false,
    description: 'Requests and body bytes through the gateway, per UTC day, hostname and status class.',
  },
);

export const LogsQuery = Type.Object({
  ...PaginationQuery.properties,
  status_class: Type.Optional(
    StringEnum(STATUS_CLASSES, { description: 'Only responses of this class (the status the client got).' }),
  ),
  path_prefix: Type.Optional(
    Type.String({
      pattern: '^/',
      maxLength: 2000,
      description: 'Only request targets (path and query) starting with this, e.g. `/g/collect`.',
    }),
  ),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Only requests at or after this time.' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Only requests before this time.' })),
});

export const RequestLog = Type.Object(
  {
    id: Type.String(),
    at: Timestamp('When the request arrived.'),
    hostname: Type.String(),
    method: Type.String(),
    path: Type.String(),
    status_code: Type.Integer(),
    duration_ms: Type.Integer({ description: 'From the request reaching the gateway to the end of the answer.' }),
    upstream: Nullable(Type.String(), {
      description:
        "The origin of the upstream tagging server asked (the container's `upstream_url` at the time); null when the gateway answered itself, e.g. 503 container_not_running.",
    }),
    upstream_ms: Nullable(Type.Integer(), {
      description: 'How long the upstream took, from sending the request to the end of its answer (or its failure).',
    }),
  },
  { $id: 'RequestLog', additionalProperties: false },
);

export type ContainerDto = Static<typeof Container>;
export type ContainerHealthDto = Static<typeof ContainerHealth>;
export type CreateContainerInput = Static<typeof CreateContainerBody>;
export type UpdateContainerInput = Static<typeof UpdateContainerBody>;
export type UsageDto = Static<typeof Usage>;
export type RequestLogDto = Static<typeof RequestLog>;
export type UsagePeriod = Static<typeof UsageQuery>;
export type LogsFilter = Static<typeof LogsQuery>;
