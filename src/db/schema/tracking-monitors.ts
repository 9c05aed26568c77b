import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import {
  type ChangeDto,
  type PageSnapshotDto,
  type RuleSettings,
  SEVERITIES,
  TRACKING_INCIDENT_RESOLUTIONS,
  TRACKING_INCIDENT_STATUSES,
  TRACKING_MONITOR_STATUSES,
  TRACKING_RUN_RESULTS,
} from '../../modules/tracking-monitors/schemas.js';
import { tenants } from './accounts.js';
import { createdAt, updatedAt } from './columns.js';

/** Scheduled scans of a site's key pages, each run compared with a baseline run. */
export const trackingMonitors = pgTable(
  'tracking_monitors',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    name: text('name').notNull(),
    pages: jsonb('pages').$type<string[]>().notNull(),
    followLinks: integer('follow_links').notNull(),
    intervalSeconds: integer('interval_seconds').notNull(),
    consentCheck: boolean('consent_check').notNull(),
    lossThresholdPct: integer('loss_threshold_pct').notNull(),
    rules: jsonb('rules').$type<RuleSettings>().notNull(),
    /** A container of the tenant the pages use: each run checks they still use its hostnames. */
    containerId: text('container_id'),
    notificationChannelIds: jsonb('notification_channel_ids').$type<string[]>().notNull(),
    status: text('status', { enum: TRACKING_MONITOR_STATUSES }).notNull(),
    paused: boolean('paused').notNull().default(false),
    baselineRunId: text('baseline_run_id'),
    lastRunAt: timestamp('last_run_at', { withTimezone: true }),
    /** The next due time not yet claimed: a claim moves it on by whole intervals. */
    nextRunAt: timestamp('next_run_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('tracking_monitors_tenant_idx').on(t.tenantId, t.createdAt, t.id),
    index('tracking_monitors_due_idx').on(t.nextRunAt).where(sql`${t.paused} = false`),
  ],
);

export const trackingRuns = pgTable(
  'tracking_runs',
  {
    id: text('id').primaryKey(),
    monitorId: text('monitor_id')
      .notNull()
      .references(() => trackingMonitors.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id').notNull(),
    trigger: text('trigger', { enum: ['schedule', 'manual'] }).notNull(),
    result: text('result', { enum: TRACKING_RUN_RESULTS }).notNull(),
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    error: text('error'),
    changes: jsonb('changes').$type<ChangeDto[]>().notNull(),
    pages: jsonb('pages').$type<PageSnapshotDto[]>().notNull(),
  },
  (t) => [
    index('tracking_runs_monitor_idx').on(t.monitorId, t.dueAt, t.id),
    // One scheduled run per due time; runs asked for by hand may fall on any time.
    uniqueIndex('tracking_runs_due_idx').on(t.monitorId, t.dueAt).where(sql`${t.trigger} = 'schedule'`),
  ],
);

export const trackingIncidents = pgTable(
  'tracking_incidents',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    monitorId: text('monitor_id')
      .notNull()
      .references(() => trackingMonitors.id, { onDelete: 'cascade' }),
    status: text('status', { enum: TRACKING_INCIDENT_STATUSES }).notNull(),
    severity: text('severity', { enum: SEVERITIES }).notNull(),
    openedRunId: text('opened_run_id').notNull(),
    lastRunId: text('last_run_id').notNull(),
    changes: jsonb('changes').$type<ChangeDto[]>().notNull(),
    resolution: text('resolution', { enum: TRACKING_INCIDENT_RESOLUTIONS }),
    openedAt: timestamp('opened_at', { withTimezone: true }).notNull().defaultNow(),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
  },
  (t) => [
    index('tracking_incidents_monitor_idx').on(t.monitorId, t.openedAt, t.id),
    uniqueIndex('tracking_incidents_one_open').on(t.monitorId).where(sql`resolved_at is null`),
  ],
);

export type TrackingMonitorRow = typeof trackingMonitors.$inferSelect;
export type TrackingRunRow = typeof trackingRuns.$inferSelect;
export type TrackingIncidentRow = typeof trackingIncidents.$inferSelect;
