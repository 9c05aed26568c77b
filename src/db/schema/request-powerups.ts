import { customType, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { DELAYED_STATUSES, RUN_STATUSES } from '../../modules/request-powerups/schemas.js';
import { createdAt } from './columns.js';
import { containers } from './hosting.js';

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => Buffer.from(value),
});

/** Requests held by Request Delay (`/delay/<minutes>/<path>`), sent to the container when due. */
export const delayedRequests = pgTable(
  'delayed_requests',
  {
    id: text('id').primaryKey(),
    containerId: text('container_id')
      .notNull()
      .references(() => containers.id, { onDelete: 'cascade' }),
    method: text('method').notNull(),
    /** What is requested on the container when due: the path after `/delay/<minutes>`, query included. */
    path: text('path').notNull(),
    /** The headers replayed, as [name, value, …] (src/gateway/delay.ts says which are left out). */
    headers: jsonb('headers').$type<string[]>().notNull(),
    body: bytea('body').notNull(),
    delayMinutes: integer('delay_minutes').notNull(),
    /** pending → delivered | failed. */
    status: text('status', { enum: DELAYED_STATUSES }).notNull(),
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    /** When a worker may take it next: the due time, a retry's time, or the end of a worker's claim. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    httpStatus: integer('http_status'),
    error: text('error'),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    index('delayed_requests_container_idx').on(t.containerId, t.createdAt, t.id),
    index('delayed_requests_due_idx').on(t.nextAttemptAt).where(sql`status = 'pending'`),
    index('delayed_requests_finished_idx').on(t.finishedAt).where(sql`status <> 'pending'`),
  ],
);

/** The runs of containers' scheduled requests (`settings.schedule`): one per schedule and due time. */
export const scheduleRuns = pgTable(
  'schedule_runs',
  {
    id: text('id').primaryKey(),
    containerId: text('container_id')
      .notNull()
      .references(() => containers.id, { onDelete: 'cascade' }),
    scheduleName: text('schedule_name').notNull(),
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    /** running → succeeded | failed. */
    status: text('status', { enum: RUN_STATUSES }).notNull(),
    httpStatus: integer('http_status'),
    error: text('error'),
    durationMs: integer('duration_ms'),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex('schedule_runs_due_idx').on(t.containerId, t.scheduleName, t.dueAt),
    index('schedule_runs_container_idx').on(t.containerId, t.startedAt, t.id),
  ],
);

export type DelayedRequestRow = typeof delayedRequests.$inferSelect;
export type ScheduleRunRow = typeof scheduleRuns.$inferSelect;
