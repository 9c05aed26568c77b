import { eq, sql } from 'drizzle-orm';
import type { AttemptRecord } from '../lib/delivery-attempts.js';
import type { Db } from './index.js';
import type { notificationDeliveries, webhookDeliveries } from './schema.js';

/** The tables of deliveries sent with attempts and back-off (`lib/delivery-attempts.ts`). */
type DeliveryTable = typeof webhookDeliveries | typeof notificationDeliveries;

/**
 * Writes an attempt's outcome on its delivery row and counts it. A settled delivery keeps no next attempt: null
 * where the column allows it, else the time it settled.
 */
export async function recordDeliveryAttempt(db: Db, table: DeliveryTable, id: string, outcome: AttemptRecord) {
  const settledAt = table.nextAttemptAt.notNull ? sql`now()` : null;
  await db
    .update(table as typeof notificationDeliveries)
    .set({
      status: outcome.status,
      attempts: sql`${table.attempts} + 1`,
      lastStatusCode: outcome.statusCode,
      lastError: outcome.error,
      nextAttemptAt: outcome.nextAttemptAt ?? settledAt,
      deliveredAt: outcome.status === 'succeeded' ? sql`now()` : null,
    })
    .where(eq(table.id, id));
}
