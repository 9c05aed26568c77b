import { index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import type { NotificationMessage } from '../../modules/notifications/messages.js';
import {
  CHANNEL_TYPES,
  DELIVERY_EVENT_TYPES,
  NOTIFICATION_DELIVERY_STATUSES,
  type NotificationEventType,
} from '../../modules/notifications/schemas.js';
import { createdAt, updatedAt } from './columns.js';
import { tenants } from './accounts.js';
import { monitors } from './monitoring.js';

/** Where a tenant's alerts go: an email address, a Slack-compatible incoming webhook or a signed webhook. */
export const notificationChannels = pgTable(
  'notification_channels',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    name: text('name').notNull(),
    type: text('type', { enum: CHANNEL_TYPES }).notNull(),
    /** What the API shows of the target: the address, or a URL with its secret part masked. */
    targetHint: text('target_hint').notNull(),
    /** The target (and signing secret) as JSON, sealed with the secrets box. */
    configSealed: text('config_sealed').notNull(),
    eventTypes: jsonb('event_types').$type<NotificationEventType[]>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('notification_channels_tenant_idx').on(t.tenantId, t.createdAt, t.id)],
);

export const notificationDeliveries = pgTable(
  'notification_deliveries',
  {
    id: text('id').primaryKey(),
    channelId: text('channel_id')
      .notNull()
      .references(() => notificationChannels.id, { onDelete: 'cascade' }),
    tenantId: text('tenant_id').notNull(),
    eventId: text('event_id').notNull(),
    eventType: text('event_type', { enum: DELIVERY_EVENT_TYPES }).notNull(),
    /** The notification in plain words (title, lines, link): what every channel type renders. */
    message: jsonb('message').$type<NotificationMessage>().notNull(),
    status: text('status', { enum: NOTIFICATION_DELIVERY_STATUSES }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    createdAt: createdAt(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (t) => [
    index('notification_deliveries_channel_idx').on(t.channelId, t.createdAt, t.id),
    index('notification_deliveries_created_idx').on(t.createdAt),
  ],
);

/** The channels a monitor's incidents notify. */
export const monitorNotificationChannels = pgTable(
  'monitor_notification_channels',
  {
    monitorId: text('monitor_id')
      .notNull()
      .references(() => monitors.id, { onDelete: 'cascade' }),
    channelId: text('channel_id')
      .notNull()
      .references(() => notificationChannels.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.monitorId, t.channelId], name: 'monitor_notification_channels_pk' }),
    index('monitor_notification_channels_channel_idx').on(t.channelId),
  ],
);

export type NotificationChannelRow = typeof notificationChannels.$inferSelect;
export type NotificationDeliveryRow = typeof notificationDeliveries.$inferSelect;
