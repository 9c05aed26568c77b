import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { DELIVERY_STATUSES, type GraphErrorDto } from '../../modules/meta-pixels/schemas.js';
import { createdAt } from './columns.js';
import { tenants } from './accounts.js';
import { containers } from './hosting.js';

/** A Meta pixel (dataset) a container forwards events to; the access token sealed with SECRETS_KEY (src/lib/secrets.ts). */
export const metaPixels = pgTable(
  'meta_pixels',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => tenants.id),
    containerId: text('container_id')
      .notNull()
      .references(() => containers.id),
    pixelId: text('pixel_id').notNull(),
    accessTokenSealed: text('access_token_sealed').notNull(),
    accessTokenLast4: text('access_token_last4').notNull(),
    testEventCode: text('test_event_code'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('meta_pixels_container_pixel_idx').on(t.containerId, t.pixelId),
    index('meta_pixels_container_created_idx').on(t.containerId, t.createdAt, t.id),
  ],
);

/** The Graph API's answer for each event sent to a pixel: one row per event id, updated on every attempt. */
export const metaEventDeliveries = pgTable(
  'meta_event_deliveries',
  {
    metaPixelId: text('meta_pixel_id')
      .notNull()
      .references(() => metaPixels.id, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    eventName: text('event_name').notNull(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull(),
    attempts: integer('attempts').notNull().default(1),
    httpStatus: integer('http_status'),
    error: jsonb('error').$type<GraphErrorDto>(),
    firstAttemptAt: timestamp('first_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'meta_event_deliveries_pkey', columns: [t.metaPixelId, t.eventId] }),
    index('meta_event_deliveries_recent_idx').on(t.metaPixelId, t.lastAttemptAt, t.eventId),
    index('meta_event_deliveries_age_idx').on(t.lastAttemptAt),
  ],
);

export type MetaPixelRow = typeof metaPixels.$inferSelect;
export type MetaEventDeliveryRow = typeof metaEventDeliveries.$inferSelect;
