import { index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { OUTGOING_STATUSES, OUTGOING_VENDORS } from '../../modules/outgoing-log/schemas.js';
import { containers } from './hosting.js';

/** What the built-in runtime sent to a vendor and what it answered: one row per forward, delivered or failed. */
export const outgoingLog = pgTable(
  'outgoing_log',
  {
    id: text('id').primaryKey(),
    containerId: text('container_id')
      .notNull()
      .references(() => containers.id),
    vendor: text('vendor', { enum: OUTGOING_VENDORS }).notNull(),
    destination: text('destination').notNull(),
    eventName: text('event_name').notNull(),
    eventId: text('event_id'),
    /** A summary of the request, secrets masked (src/gateway/runtime/outgoing.ts). */
    request: jsonb('request').$type<Record<string, unknown>>().notNull(),
    status: text('status', { enum: OUTGOING_STATUSES }).notNull(),
    httpStatus: integer('http_status'),
    error: text('error'),
    attempts: integer('attempts').notNull(),
    latencyMs: integer('latency_ms'),
    at: timestamp('at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('outgoing_log_container_at_idx').on(t.containerId, t.at, t.id),
    index('outgoing_log_container_event_id_idx').on(t.containerId, t.eventId),
  ],
);

export type OutgoingLogRow = typeof outgoingLog.$inferSelect;
