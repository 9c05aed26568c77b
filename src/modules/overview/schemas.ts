import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../http/schemas.js';
import { CONTAINER_STATUSES } from '../containers/schemas.js';
import { MONITOR_STATUSES } from '../monitors/schemas.js';

export const ATTENTION_REASONS = [
  'container_failed',
  'certificate_failed',
  'certificate_expiring',
  'domain_failed',
  'container_stopped',
  'domain_not_verified',
] as const;
export type AttentionReason = (typeof ATTENTION_REASONS)[number];

export const NEXT_STEPS = ['create_api_key', 'add_container', 'add_domain', 'add_monitor'] as const;
export type NextStep = (typeof NEXT_STEPS)[number];

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Percent = (description: string) => Nullable(Type.Number({ minimum: 0, maximum: 100 }), { description });

const countsOf = (statuses: readonly string[], description: string) =>
  Type.Object(Object.fromEntries(statuses.map((status) => [status, Type.Integer({ minimum: 0 })])), {
    additionalProperties: false,
    description,
  });

const AttentionItem = Type.Object(
  {
    reason: StringEnum(ATTENTION_REASONS, {
      description:
        'Why it needs you; the list is ordered by this, most urgent first. `certificate_expiring`: renewals have been failing and the certificate expires soon (at most 14 days ahead).',
    }),
    container_id: Type.String(),
    container_name: Type.String(),
    domain_id: Nullable(Type.String(), { description: 'Set for domain and certificate reasons.' }),
    hostname: Nullable(Type.String(), { description: 'The custom domain, for domain and certificate reasons.' }),
    detail: Nullable(Type.String(), {
      description:
        "The stored reason: the container's, the DNS check's or the CA's; for `certificate_expiring`, when the certificate expires and why its last renewal failed.",
    }),
  },
  { additionalProperties: false },
);

const ContainersSummary = Type.Object(
  {
    total: Count('Containers that are not deleted.'),
    by_status: countsOf(
      CONTAINER_STATUSES.filter((status) => status !== 'deleted'),
      'Containers per status, every status listed.',
    ),
    needs_attention: Type.Array(AttentionItem, { maxItems: 20, description: 'Up to 20, most urgent first.' }),
  },
  { additionalProperties: false },
);

const TrafficSummary = Type.Object(
  {
    today: Count('Gateway requests to all containers since 00:00 UTC.'),
    last_30_days: Count('Gateway requests in the last 30 UTC days, today included.'),
    daily: Type.Array(
      Type.Object({ day: Type.String({ format: 'date' }), requests: Type.Integer() }, { additionalProperties: false }),
      { description: 'One entry per UTC day, oldest first, 30 entries; days without traffic are 0.' },
    ),
  },
  { additionalProperties: false },
);

const OpenIncident = Type.Object(
  {
    id: Type.String(),
    monitor_id: Type.String(),
    monitor_name: Type.String(),
    status: StringEnum(['open', 'acknowledged'] as const),
    cause: Type.String(),
    opened_at: Timestamp('When the incident opened.'),
  },
  { additionalProperties: false },
);

const MonitorsSummary = Type.Object(
  {
    total: Count('Monitors.'),
    by_status: countsOf(MONITOR_STATUSES, 'Monitors per status, every status listed.'),
    uptime: Type.Object(
      {
        last_24_hours: Percent('Share of checks that were up or degraded; null without checks in the window.'),
        last_7_days: Percent('As last_24_hours, over 7 days.'),
        last_30_days: Percent('As last_24_hours, over 30 days.'),
      },
      { additionalProperties: false },
    ),
    open_incidents: Count('Incidents not resolved yet.'),
    incidents: Type.Array(OpenIncident, { maxItems: 10, description: 'The newest 10 unresolved incidents.' }),
  },
  { additionalProperties: false },
);

const LatestScan = Type.Object(
  {
    scan_id: Type.String(),
    url: Type.String(),
    status: Type.String(),
    tracker_count: Nullable(Type.Integer()),
    created_at: Timestamp('When the scan started.'),
  },
  { additionalProperties: false },
);

const ScansSummary = Type.Object(
  {
    hourly_quota: Count('Scans allowed per rolling hour (plan feature tracking_checker_api_hourly).'),
    used_this_hour: Count('Scans counted against the quota in the last hour.'),
    resets_in_seconds: Count('Seconds until the oldest counted scan leaves the window.'),
    latest: Type.Array(LatestScan, { maxItems: 5, description: 'The 5 newest scans.' }),
  },
  { additionalProperties: false },
);

const NextStepItem = Type.Object(
  {
    step: StringEnum(NEXT_STEPS),
    done: Type.Boolean(),
    title: Type.String(),
    href: Type.String({ description: 'The dashboard page where it is done.' }),
  },
  { additionalProperties: false },
);

const ClientAttention = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    failed_containers: Count('Containers in status failed.'),
    open_incidents: Count('Unresolved incidents.'),
  },
  { additionalProperties: false },
);

const ClientsSummary = Type.Object(
  {
    total: Count('Active client tenants.'),
    needs_attention: Type.Array(ClientAttention, {
      maxItems: 20,
      description: 'Up to 20 clients with failed containers or unresolved incidents, most affected first.',
    }),
  },
  { additionalProperties: false },
);

export const Overview = Type.Object(
  {
    tenant_id: Type.String(),
    generated_at: Timestamp('When this summary was computed.'),
    containers: ContainersSummary,
    traffic: TrafficSummary,
    monitors: MonitorsSummary,
    scans: ScansSummary,
    next_steps: Type.Array(NextStepItem, {
      description: 'The set-up steps of a new account, in order, each with whether it is done.',
    }),
    clients: Nullable(ClientsSummary, {
      description: 'For tenants that own client tenants (agency, partner); else null.',
    }),
  },
  {
    additionalProperties: false,
    description: "Everything the dashboard's overview shows, for the tenant the request acts for, in one answer.",
  },
);
export type OverviewDto = Static<typeof Overview>;
export type AttentionItemDto = Static<typeof AttentionItem>;
export type OpenIncidentDto = Static<typeof OpenIncident>;
export type ClientAttentionDto = Static<typeof ClientAttention>;
