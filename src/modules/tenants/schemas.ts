import { Type, type Static } from 'typebox';
import { idPattern } from '../../lib/ids.js';
import { Nullable, NullableTimestamp, PaginationQuery, StringEnum, Timestamp } from '../../http/schemas.js';

export const PLAN_IDS = ['free', 'pro', 'business', 'agency', 'partner'] as const;
/** Plans an agency or partner may give its client tenants. */
export const CLIENT_PLAN_IDS = ['free', 'pro', 'business'] as const;
export const TENANT_STATUSES = ['active', 'archived'] as const;
export type PlanIdValue = (typeof PLAN_IDS)[number];
export const isPlanId = (value: string): value is PlanIdValue => (PLAN_IDS as readonly string[]).includes(value);

const PlanId = StringEnum(PLAN_IDS, { description: 'Billing plan; sets the default limits in `features`.' });
const count = (description: string) => Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, description }));
const toggle = (description: string) => Type.Optional(Type.Boolean({ description }));
// Every plan feature with its type, listed once: the response serialiser compiles them directly, and overrides are
// validated against them (a limit takes an integer, a switch true or false).
const featureProperties = {
  max_containers: count('Containers the tenant may run.'),
  max_monitors: count('Monitors the tenant may have.'),
  monitor_min_interval_seconds: count('Shortest monitor interval.'),
  tracking_checker_api_hourly: count('Scans per hour through the tracking checker API.'),
  max_tracking_monitors: count('Tracking monitors the tenant may have.'),
  tracking_monitor_min_interval_seconds: count('Shortest interval between two runs of a tracking monitor.'),
  tracking_monitor_max_pages: count("Pages one tracking monitor's run may scan, followed links included."),
  max_client_tenants: count('Agency/partner: client tenants it may have; archived ones do not count.'),
  can_own_clients: toggle('Agency/partner: may create client tenants.'),
  sgtm_max_replicas: count("Runtime `sgtm`: the most tagging replicas one container's autoscaler may run."),
  sgtm_cpu_millis: count('Runtime `sgtm`: CPU of each tagging replica, in thousandths of a core (kubernetes driver).'),
  sgtm_memory_mib: count('Runtime `sgtm`: memory of each tagging replica, in MiB (kubernetes driver).'),
  outgoing_log_retention_days: count('Days the outgoing log (what was sent to GA4 and Meta) is kept; 7 when unset.'),
};
const Features = Type.Object(featureProperties, {
  additionalProperties: false,
  description: 'Effective limits and switches: the plan defaults merged with tenant overrides.',
  examples: [
    {
      max_containers: 100,
      max_monitors: 500,
      monitor_min_interval_seconds: 30,
      tracking_checker_api_hourly: 300,
      max_client_tenants: 100,
      can_own_clients: true,
    },
  ],
});

export const TenantId = Type.String({
  pattern: idPattern('tenant'),
  description: 'Tenant id (`ten_…`).',
  examples: ['ten_01jdv3k2m8q4r7s9t0v1w2x3y4'],
});
export const TenantIdParams = Type.Object({ id: TenantId });

export const Tenant = Type.Object(
  {
    id: TenantId,
    name: Type.String(),
    plan: PlanId,
    parent_id: Nullable(TenantId, { description: 'The agency or partner tenant that owns this client tenant.' }),
    status: StringEnum(TENANT_STATUSES),
    features: Features,
    require_two_factor: Type.Boolean({
      description: 'Every member signs in with a second factor; members without one must enrol before anything else.',
    }),
    created_at: Timestamp('When the tenant was created.'),
    updated_at: Timestamp('When the tenant was last changed.'),
    archived_at: NullableTimestamp('When the tenant was archived, or null.'),
  },
  {
    $id: 'Tenant',
    additionalProperties: false,
    description: 'A tenant: a customer account (project) with its plan and limits.',
  },
);

const TenantName = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Display name.' });
const FeatureOverrides = Type.Object(featureProperties, {
  additionalProperties: false,
  description:
    'Overrides of plan limits for this tenant (only a parent agency or partner may set them): limits take integers from 0, switches true or false.',
  examples: [{ max_containers: 10, tracking_checker_api_hourly: 120 }],
});

export const CreateTenantBody = Type.Object(
  {
    name: TenantName,
    plan: Type.Optional(StringEnum(CLIENT_PLAN_IDS, { default: 'free', description: 'Plan of the client tenant.' })),
  },
  { additionalProperties: false, examples: [{ name: 'Acme GmbH', plan: 'pro' }] },
);

export const UpdateTenantBody = Type.Object(
  {
    name: Type.Optional(TenantName),
    plan: Type.Optional(PlanId),
    feature_overrides: Type.Optional(FeatureOverrides),
    require_two_factor: Type.Optional(
      Type.Boolean({ description: 'Owners only: require two-factor sign-in of every member of this tenant.' }),
    ),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ name: 'Acme Europe GmbH' }] },
);

export const ListTenantsQuery = Type.Object({
  ...PaginationQuery.properties,
  status: Type.Optional(
    StringEnum(['active', 'archived', 'all'] as const, { default: 'active', description: 'Which tenants to list.' }),
  ),
});

export type TenantDto = Static<typeof Tenant>;
export type CreateTenantInput = Static<typeof CreateTenantBody>;
export type UpdateTenantInput = Static<typeof UpdateTenantBody>;
