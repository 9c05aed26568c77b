import { and, eq, inArray, sql } from 'drizzle-orm';
import { recordDeliveryAttempt } from '../../db/delivery-attempts.js';
import type { Db } from '../../db/index.js';
import type { AttemptRecord } from '../../lib/delivery-attempts.js';
import { webhookDeliveries, webhooks } from '../../db/schema.js';
import { readList } from '../../db/keyset.js';
import type { ListWindow } from '../../lib/list-window.js';

export async function insertWebhook(db: Db, row: typeof webhooks.$inferInsert) {
  const [created] = await db.insert(webhooks).values(row).returning();
  return created;
}

export async function listWebhooks(db: Db, tenantId: string, window: ListWindow) {
  const where = eq(webhooks.tenantId, tenantId);
  const { rows, total } = await readList(
    db,
    window,
    { table: webhooks, scope: where, sortKey: webhooks.createdAt, id: webhooks.id, descending: true },
    (page) =>
      db
        .select()
        .from(webhooks)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
  return { rows, total };
}

export async function findWebhook(db: Db, tenantId: string, id: string) {
  const rows = await db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.tenantId, tenantId)))
    .limit(1);
  return rows[0] ?? null;
}

export async function deleteWebhook(db: Db, tenantId: string, id: string) {
  const rows = await db
    .delete(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.tenantId, tenantId)))
    .returning();
  return rows[0] ?? null;
}

export async function subscribedWebhooks(db: Db, tenantId: string, eventType: string) {
  return db
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(and(eq(webhooks.tenantId, tenantId), sql`${webhooks.eventTypes} ? ${eventType}`));
}

export async function insertDeliveries(db: Db, rows: Array<typeof webhookDeliveries.$inferInsert>) {
  if (rows.length) await db.insert(webhookDeliveries).values(rows);
}

export async function listDeliveries(db: Db, webhookId: string, window: ListWindow) {
  const where = eq(webhookDeliveries.webhookId, webhookId);
  const { rows, total } = await readList(
    db,
    window,
    {
      table: webhookDeliveries,
      scope: where,
      sortKey: webhookDeliveries.createdAt,
      id: webhookDeliveries.id,
      descending: true,
    },
    (page) =>
      db
        .select()
        .from(webhookDeliveries)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
  return { rows, total };
}

export async function findDelivery(db: Db, id: string) {
  const [row] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  return row ?? null;
}

export async function webhookSecrets(db: Db, ids: string[]) {
  if (ids.length === 0) return new Map<string, { url: string; secret: string }>();
  const rows = await db
    .select({ id: webhooks.id, url: webhooks.url, secret: webhooks.secret })
    .from(webhooks)
    .where(inArray(webhooks.id, ids));
  return new Map(rows.map((row) => [row.id, { url: row.url, secret: row.secret }]));
}

/** Writes an attempt's outcome on the delivery (`lib/delivery-attempts.ts`). */
export function recordAttempt(db: Db, id: string, outcome: AttemptRecord) {
  return recordDeliveryAttempt(db, webhookDeliveries, id, outcome);
}
