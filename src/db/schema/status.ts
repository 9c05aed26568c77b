import { date, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { COMPONENT_STATES, SUBSCRIPTION_KINDS, UPDATE_STATUSES } from '../../modules/status/schemas.js';
import { createdAt } from './columns.js';
import { tenants } from './accounts.js';
import { platformIncidents } from './monitoring.js';

/** The timestamped updates of a platform incident: investigating, identified, monitoring, resolved. */
export const platformIncidentUpdates = pgTable(
  'platform_incident_updates',
  {
    id: text('id').primaryKey(),
    incidentId: text('incident_id')
      .notNull()
      .references(() => platformIncidents.id, { onDelete: 'cascade' }),
    status: text('status', { enum: UPDATE_STATUSES }).notNull(),
    message: text('message').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('platform_incident_updates_incident_idx').on(t.incidentId, t.createdAt)],
);

/** Per component and UTC day: how many self-checks ran and how many found an outage (the 90-day uptime bars). */
export const statusCheckDays = pgTable(
  'status_check_days',
  {
    component: text('component').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    checks: integer('checks').notNull().default(0),
    failures: integer('failures').notNull().default(0),
  },
  (t) => [primaryKey({ name: 'status_check_days_pk', columns: [t.component, t.day] })],
);

export const maintenanceWindows = pgTable(
  'maintenance_windows',
  {
    id: text('id').primaryKey(),
    title: text('title').notNull(),
    message: text('message').notNull(),
    components: jsonb('components').$type<string[]>().notNull().default([]),
    startsAt: timestamp('starts_at', { withTimezone: true }).notNull(),
    endsAt: timestamp('ends_at', { withTimezone: true }).notNull(),
    cancelledAt: timestamp('cancelled_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [index('maintenance_windows_ends_idx').on(t.endsAt)],
);

/** Who hears of incidents and maintenance: confirmed email addresses (double opt-in) and webhook URLs. */
export const statusSubscriptions = pgTable(
  'status_subscriptions',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: SUBSCRIPTION_KINDS }).notNull(),
    target: text('target').notNull(),
    confirmTokenHash: text('confirm_token_hash'),
    unsubscribeToken: text('unsubscribe_token').notNull(),
    confirmedAt: timestamp('confirmed_at', { withTimezone: true }),
    /** When the last confirmation mail went out: a repeat within the cool-down re-uses its link. */
    confirmationSentAt: timestamp('confirmation_sent_at', { withTimezone: true }),
    /** Confirmation mails sent since `confirmationsSince` (capped per address and day). */
    confirmationsSent: integer('confirmations_sent').notNull().default(0),
    confirmationsSince: timestamp('confirmations_since', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('status_subscriptions_target_idx').on(t.kind, t.target),
    uniqueIndex('status_subscriptions_unsubscribe_idx').on(t.unsubscribeToken),
    uniqueIndex('status_subscriptions_confirm_idx').on(t.confirmTokenHash),
  ],
);

/** Tenants whose admins and owners operate the platform: they post status incidents and maintenance. */
export const platformOperators = pgTable('platform_operators', {
  tenantId: text('tenant_id')
    .primaryKey()
    .references(() => tenants.id, { onDelete: 'cascade' }),
  createdAt: createdAt(),
});

/** What the workers' status checks found last, per component: status.json is served from it on every instance. */
export const statusComponents = pgTable('status_components', {
  component: text('component').primaryKey(),
  status: text('status', { enum: COMPONENT_STATES }).notNull(),
  detail: text('detail').notNull(),
  checkedAt: timestamp('checked_at', { withTimezone: true }).notNull(),
});
