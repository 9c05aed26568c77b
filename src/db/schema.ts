import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true }).notNull().defaultNow();

export const plans = pgTable('plans', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  features: jsonb('features').$type<Record<string, number | boolean>>().notNull(),
  createdAt: createdAt(),
});

export const tenants = pgTable(
  'tenants',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    planId: text('plan_id')
      .notNull()
      .references(() => plans.id),
    // biome-ignore lint/suspicious/noExplicitAny: Drizzle's documented form of a self-reference
    parentId: text('parent_id').references((): any => tenants.id),
    featureOverrides: jsonb('feature_overrides').$type<Record<string, number | boolean>>().notNull().default({}),
    status: text('status').notNull().default('active'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    archivedAt: timestamp('archived_at', { withTimezone: true }),
  },
  (t) => [
    index('tenants_parent_idx').on(t.parentId),
    check('tenants_status_check', sql`${t.status} in ('active', 'archived')`),
  ],
);

export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    passwordHash: text('password_hash').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('users_email_idx').on(t.email)],
);

export const memberships = pgTable(
  'memberships',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    role: text('role').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('memberships_user_tenant_idx').on(t.userId, t.tenantId),
    check('memberships_role_check', sql`${t.role} in ('owner', 'admin', 'member')`),
  ],
);

export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex('sessions_token_hash_idx').on(t.tokenHash)],
);

/** One-time tokens that open the first-run set-up on a database that already has tenants (see UserService.setup). */
export const setupTokens = pgTable('setup_tokens', {
  tokenHash: text('token_hash').primaryKey(),
  createdAt: createdAt(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    tokenStart: text('token_start').notNull(),
    tokenLast4: text('token_last4').notNull(),
    /** The role the key acts with (src/http/roles.ts). */
    role: text('role').$type<'owner' | 'admin' | 'member'>().notNull().default('admin'),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('api_keys_token_hash_idx').on(t.tokenHash),
    index('api_keys_tenant_idx').on(t.tenantId, t.createdAt),
    check('api_keys_role_check', sql`${t.role} in ('owner', 'admin', 'member')`),
  ],
);

export type TenantRow = typeof tenants.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type PlanRow = typeof plans.$inferSelect;
export type UserRow = typeof users.$inferSelect;

export const scans = pgTable(
  'scans',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    apiKeyId: text('api_key_id'),
    url: text('url').notNull(),
    language: text('language').notNull(),
    options: jsonb('options').$type<{ ai_summary: boolean; pagespeed: boolean }>().notNull(),
    status: text('status').notNull(),
    result: jsonb('result').$type<Record<string, unknown>>(),
    error: jsonb('error').$type<{ code: string; message: string }>(),
    createdAt: createdAt(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [
    index('scans_tenant_created_idx').on(t.tenantId, t.createdAt),
    check('scans_status_check', sql`${t.status} in ('running', 'completed', 'failed')`),
  ],
);

export type ScanRow = typeof scans.$inferSelect;

export const monitors = pgTable(
  'monitors',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    name: text('name').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    url: text('url').notNull(),
    method: text('method').notNull(),
    intervalSeconds: integer('interval_seconds').notNull(),
    timeoutMs: integer('timeout_ms').notNull(),
    expectedStatusCodes: jsonb('expected_status_codes').$type<number[]>().notNull(),
    keyword: text('keyword'),
    keywordMode: text('keyword_mode'),
    degradedAfterMs: integer('degraded_after_ms'),
    confirmationChecks: integer('confirmation_checks').notNull(),
    status: text('status').notNull(),
    paused: boolean('paused').notNull().default(false),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    lastCheckedAt: timestamp('last_checked_at', { withTimezone: true }),
    nextCheckAt: timestamp('next_check_at', { withTimezone: true }).notNull().defaultNow(),
    leaseOwner: text('lease_owner'),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('monitors_tenant_idx').on(t.tenantId, t.createdAt), index('monitors_due_idx').on(t.nextCheckAt)],
);

export const monitorChecks = pgTable(
  'monitor_checks',
  {
    id: text('id').primaryKey(),
    monitorId: text('monitor_id')
      .notNull()
      .references(() => monitors.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id').notNull(),
    checkedAt: timestamp('checked_at', { withTimezone: true }).notNull(),
    result: text('result').notNull(),
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms'),
    timings: jsonb('timings').$type<Record<string, number>>(),
    error: text('error'),
  },
  (t) => [index('monitor_checks_monitor_idx').on(t.monitorId, t.checkedAt)],
);

export const incidents = pgTable(
  'incidents',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    monitorId: text('monitor_id')
      .notNull()
      .references(() => monitors.id, { onDelete: 'cascade' }),
    status: text('status').notNull(),
    cause: text('cause').notNull(),
    openedAt: timestamp('opened_at', { withTimezone: true }).notNull().defaultNow(),
    acknowledgedAt: timestamp('acknowledged_at', { withTimezone: true }),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
  },
  (t) => [
    index('incidents_tenant_idx').on(t.tenantId, t.openedAt),
    uniqueIndex('incidents_one_open_per_monitor').on(t.monitorId).where(sql`resolved_at is null`),
  ],
);

export const webhooks = pgTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    url: text('url').notNull(),
    eventTypes: jsonb('event_types').$type<string[]>().notNull(),
    secret: text('secret').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('webhooks_tenant_idx').on(t.tenantId)],
);

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    webhookId: text('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id').notNull(),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    status: text('status').notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    createdAt: createdAt(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (t) => [
    index('webhook_deliveries_webhook_idx').on(t.webhookId, t.createdAt),
    index('webhook_deliveries_due_idx').on(t.status, t.nextAttemptAt),
  ],
);

export const reports = pgTable(
  'reports',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    kind: text('kind').notNull(),
    format: text('format').notNull(),
    periodStart: timestamp('period_start', { withTimezone: true }).notNull(),
    periodEnd: timestamp('period_end', { withTimezone: true }).notNull(),
    status: text('status').notNull(),
    error: text('error'),
    content: text('content'),
    createdAt: createdAt(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [index('reports_tenant_idx').on(t.tenantId, t.createdAt)],
);

/** Incidents of Tagport itself, opened by its own health checks; shown on the public status page. */
export const platformIncidents = pgTable(
  'platform_incidents',
  {
    id: text('id').primaryKey(),
    component: text('component').notNull(),
    title: text('title').notNull(),
    status: text('status').notNull(),
    openedAt: timestamp('opened_at', { withTimezone: true }).notNull().defaultNow(),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('platform_incidents_one_open').on(t.component).where(sql`resolved_at is null`)],
);

export type MonitorRow = typeof monitors.$inferSelect;
export type IncidentRow = typeof incidents.$inferSelect;
export type WebhookRow = typeof webhooks.$inferSelect;
export type ReportRow = typeof reports.$inferSelect;

export const containers = pgTable(
  'containers',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    name: text('name').notNull(),
    region: text('region').notNull(),
    status: text('status').notNull(),
    statusReason: text('status_reason'),
    /** A transition queued behind the current one (restart = stop, then start). */
    pendingAction: text('pending_action'),
    config: text('config').notNull(),
    upstreamUrl: text('upstream_url'),
    defaultHostname: text('default_hostname').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('containers_tenant_idx').on(t.tenantId, t.createdAt),
    uniqueIndex('containers_default_hostname_idx').on(t.defaultHostname),
  ],
);

export const domains = pgTable(
  'domains',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    containerId: text('container_id')
      .notNull()
      .references(() => containers.id),
    hostname: text('hostname').notNull(),
    status: text('status').notNull(),
    failureReason: text('failure_reason'),
    verificationToken: text('verification_token').notNull(),
    lastCheckedAt: timestamp('last_checked_at', { withTimezone: true }),
    verifiedAt: timestamp('verified_at', { withTimezone: true }),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    // Any number of accounts may claim a hostname (one claim each); only one claim can be active.
    uniqueIndex('domains_hostname_tenant_live_idx').on(t.hostname, t.tenantId).where(sql`deleted_at is null`),
    uniqueIndex('domains_hostname_active_idx').on(t.hostname).where(sql`deleted_at is null and status = 'active'`),
    index('domains_tenant_idx').on(t.tenantId, t.createdAt),
  ],
);

export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    type: text('type').notNull(),
    objectType: text('object_type').notNull(),
    objectId: text('object_id').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('events_tenant_idx').on(t.tenantId, t.createdAt),
    index('events_object_idx').on(t.objectId, t.createdAt),
  ],
);

export const containerUsage = pgTable(
  'container_usage',
  {
    containerId: text('container_id').notNull(),
    day: text('day').notNull(),
    hostname: text('hostname').notNull(),
    statusClass: text('status_class').notNull(),
    requests: integer('requests').notNull(),
    /** Body bytes the clients sent and the upstream answered (headers not counted). */
    requestBytes: bigint('request_bytes', { mode: 'number' }).notNull().default(0),
    responseBytes: bigint('response_bytes', { mode: 'number' }).notNull().default(0),
  },
  (t) => [uniqueIndex('container_usage_key').on(t.containerId, t.day, t.hostname, t.statusClass)],
);

export const containerRequestLogs = pgTable(
  'container_request_logs',
  {
    id: text('id').primaryKey(),
    containerId: text('container_id').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull(),
    hostname: text('hostname').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    statusCode: integer('status_code').notNull(),
    durationMs: integer('duration_ms').notNull(),
    /** The upstream origin that answered; null when the gateway answered itself (not running, no upstream, …). */
    upstream: text('upstream'),
    /** From sending the request upstream to the end of its answer; null when no upstream was asked. */
    upstreamMs: integer('upstream_ms'),
  },
  (t) => [index('container_request_logs_idx').on(t.containerId, t.at)],
);

export type ContainerRow = typeof containers.$inferSelect;
export type DomainRow = typeof domains.$inferSelect;
