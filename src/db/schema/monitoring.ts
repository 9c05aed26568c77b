import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import {
  CHECK_RESULTS,
  INCIDENT_STATUSES,
  KEYWORD_MODES,
  METHODS,
  MONITOR_STATUSES,
  TARGET_TYPES,
} from '../../modules/monitors/schemas.js';
import { INCIDENT_SOURCES, PLATFORM_INCIDENT_STATUSES } from '../../modules/status/schemas.js';
import { REPORT_FORMATS, REPORT_KINDS, REPORT_STATUSES } from '../../modules/reports/schemas.js';
import { EVENT_TYPES, type EventType, WEBHOOK_DELIVERY_STATUSES } from '../../modules/webhooks/schemas.js';
import { createdAt, updatedAt } from './columns.js';
import { tenants } from './accounts.js';

export const monitors = pgTable(
  'monitors',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    name: text('name').notNull(),
    targetType: text('target_type', { enum: TARGET_TYPES }).notNull(),
    targetId: text('target_id'),
    url: text('url').notNull(),
    method: text('method', { enum: METHODS }).notNull(),
    intervalSeconds: integer('interval_seconds').notNull(),
    timeoutMs: integer('timeout_ms').notNull(),
    /** Codes (`200`) and classes (`2xx`), as the API takes them. */
    expectedStatusCodes: jsonb('expected_status_codes').$type<string[]>().notNull(),
    keyword: text('keyword'),
    keywordMode: text('keyword_mode', { enum: KEYWORD_MODES }),
    degradedAfterMs: integer('degraded_after_ms'),
    confirmationChecks: integer('confirmation_checks').notNull(),
    status: text('status', { enum: MONITOR_STATUSES }).notNull(),
    paused: boolean('paused').notNull().default(false),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    lastCheckedAt: timestamp('last_checked_at', { withTimezone: true }),
    /** The next due time not yet claimed: a claim moves it on by whole intervals (the schedule never drifts). */
    nextCheckAt: timestamp('next_check_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('monitors_tenant_idx').on(t.tenantId, t.createdAt, t.id),
    index('monitors_due_idx').on(t.nextCheckAt).where(sql`${t.paused} = false`),
  ],
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
    /** The scheduled time this check ran for (null on checks from before 0017); one check per monitor and due time. */
    dueAt: timestamp('due_at', { withTimezone: true }),
    result: text('result', { enum: CHECK_RESULTS }).notNull(),
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms'),
    timings: jsonb('timings').$type<Record<string, number>>(),
    error: text('error'),
  },
  (t) => [
    index('monitor_checks_monitor_idx').on(t.monitorId, t.checkedAt, t.id),
    // Reports read one tenant's checks in a period; retention deletes by age.
    index('monitor_checks_tenant_checked_idx').on(t.tenantId, t.checkedAt),
    index('monitor_checks_checked_idx').on(t.checkedAt),
    uniqueIndex('monitor_checks_due_idx').on(t.monitorId, t.dueAt),
  ],
);

export const incidents = pgTable(
  'incidents',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    monitorId: text('monitor_id')
      .notNull()
      .references(() => monitors.id, { onDelete: 'cascade' }),
    status: text('status', { enum: INCIDENT_STATUSES }).notNull(),
    cause: text('cause').notNull(),
    openedAt: timestamp('opened_at', { withTimezone: true }).notNull().defaultNow(),
    acknowledgedAt: timestamp('acknowledged_at', { withTimezone: true }),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
  },
  (t) => [
    index('incidents_tenant_idx').on(t.tenantId, t.openedAt, t.id),
    uniqueIndex('incidents_one_open_per_monitor').on(t.monitorId).where(sql`resolved_at is null`),
    index('incidents_unresolved_idx').on(t.tenantId).where(sql`resolved_at is null`),
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
    eventTypes: jsonb('event_types').$type<EventType[]>().notNull(),
    secret: text('secret').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('webhooks_tenant_idx').on(t.tenantId, t.createdAt, t.id)],
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
    eventType: text('event_type', { enum: EVENT_TYPES }).notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    status: text('status', { enum: WEBHOOK_DELIVERY_STATUSES }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: createdAt(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (t) => [
    index('webhook_deliveries_webhook_idx').on(t.webhookId, t.createdAt, t.id),
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
    kind: text('kind', { enum: REPORT_KINDS }).notNull(),
    format: text('format', { enum: REPORT_FORMATS }).notNull(),
    periodStart: timestamp('period_start', { withTimezone: true }).notNull(),
    periodEnd: timestamp('period_end', { withTimezone: true }).notNull(),
    status: text('status', { enum: REPORT_STATUSES }).notNull(),
    error: text('error'),
    content: text('content'),
    createdAt: createdAt(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [index('reports_tenant_idx').on(t.tenantId, t.createdAt, t.id)],
);

/** Incidents of Tagport itself, opened by its own health checks; shown on the public status page. */
export const platformIncidents = pgTable(
  'platform_incidents',
  {
    id: text('id').primaryKey(),
    component: text('component').notNull(),
    title: text('title').notNull(),
    status: text('status', { enum: PLATFORM_INCIDENT_STATUSES }).notNull(),
    openedAt: timestamp('opened_at', { withTimezone: true }).notNull().defaultNow(),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
    /** `automatic` (opened by the self-checks) or `operator` (posted through the API or the CLI). */
    source: text('source', { enum: INCIDENT_SOURCES }).notNull().default('automatic'),
  },
  (t) => [
    uniqueIndex('platform_incidents_one_open').on(t.component).where(sql`resolved_at is null and source = 'automatic'`),
    index('platform_incidents_opened_idx').on(t.openedAt),
  ],
);

export type MonitorRow = typeof monitors.$inferSelect;
export type IncidentRow = typeof incidents.$inferSelect;
export type WebhookRow = typeof webhooks.$inferSelect;
export type ReportRow = typeof reports.$inferSelect;
