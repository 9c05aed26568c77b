import { readList } from '../../db/keyset.js';
import type { ListWindow } from '../../lib/list-window.js';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { recordDeliveryAttempt } from '../../db/delivery-attempts.js';
import type { Db } from '../../db/index.js';
import type { AttemptRecord } from '../../lib/delivery-attempts.js';
import {
  monitorNotificationChannels,
  notificationChannels,
  notificationDeliveries,
  trackingMonitors,
} from '../../db/schema.js';

export async function insertChannel(db: Db, row: typeof notificationChannels.$inferInsert) {
  const [created] = await db.insert(notificationChannels).values(row).returning();
  return created;
}

export async function listChannels(db: Db, tenantId: string, window: ListWindow) {
  const where = eq(notificationChannels.tenantId, tenantId);
  return readList(
    db,
    window,
    {
      table: notificationChannels,
      scope: where,
      sortKey: notificationChannels.createdAt,
      id: notificationChannels.id,
      descending: true,
    },
    (page) =>
      db
        .select()
        .from(notificationChannels)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
}

export async function findChannel(db: Db, tenantId: string, id: string) {
  const [row] = await db
    .select()
    .from(notificationChannels)
    .where(and(eq(notificationChannels.id, id), eq(notificationChannels.tenantId, tenantId)));
  return row ?? null;
}

export async function findChannelById(db: Db, id: string) {
  const [row] = await db.select().from(notificationChannels).where(eq(notificationChannels.id, id));
  return row ?? null;
}

export async function updateChannel(
  db: Db,
  tenantId: string,
  id: string,
  values: Partial<typeof notificationChannels.$inferInsert>,
) {
  const [row] = await db
    .update(notificationChannels)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(eq(notificationChannels.id, id), eq(notificationChannels.tenantId, tenantId)))
    .returning();
  return row ?? null;
}

export async function deleteChannel(db: Db, tenantId: string, id: string) {
  const [row] = await db
    .delete(notificationChannels)
    .where(and(eq(notificationChannels.id, id), eq(notificationChannels.tenantId, tenantId)))
    .returning();
  return row ?? null;
}

/** The ids among `ids` that are channels of the tenant. */
export async function ownedChannelIds(db: Db, tenantId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: notificationChannels.id })
    .from(notificationChannels)
    .where(and(eq(notificationChannels.tenantId, tenantId), inArray(notificationChannels.id, ids)));
  return new Set(rows.map((row) => row.id));
}

/**
 * The tenant's channels subscribed to an event type; with a monitor, only the ones chosen on it; with a tracking
 * monitor, only the ones listed on it.
 */
export async function channelsFor(
  db: Db,
  tenantId: string,
  eventType: string,
  scope: { monitorId: string | null; trackingMonitorId?: string },
) {
  const subscribed = and(
    eq(notificationChannels.tenantId, tenantId),
    sql`${notificationChannels.eventTypes} ? ${eventType}`,
  );
  const select = db.select({ id: notificationChannels.id }).from(notificationChannels);
  if (scope.trackingMonitorId !== undefined)
    return select.where(
      and(
        subscribed,
        sql`exists (select 1 from ${trackingMonitors} where ${trackingMonitors.id} = ${scope.trackingMonitorId}
          and ${trackingMonitors.notificationChannelIds} ? ${notificationChannels.id})`,
      ),
    );
  if (scope.monitorId === null) return select.where(subscribed);
  return select
    .innerJoin(monitorNotificationChannels, eq(monitorNotificationChannels.channelId, notificationChannels.id))
    .where(and(subscribed, eq(monitorNotificationChannels.monitorId, scope.monitorId)));
}

export async function replaceMonitorChannels(db: Db, monitorId: string, channelIds: string[]) {
  await db.transaction(async (tx) => {
    await tx.delete(monitorNotificationChannels).where(eq(monitorNotificationChannels.monitorId, monitorId));
    if (channelIds.length)
      await tx.insert(monitorNotificationChannels).values(channelIds.map((channelId) => ({ monitorId, channelId })));
  });
}

export async function channelIdsOfMonitors(db: Db, monitorIds: string[]): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>(monitorIds.map((id) => [id, []]));
  if (monitorIds.length === 0) return found;
  const rows = await db
    .select()
    .from(monitorNotificationChannels)
    .where(inArray(monitorNotificationChannels.monitorId, monitorIds))
    .orderBy(monitorNotificationChannels.channelId);
  for (const row of rows) found.get(row.monitorId)?.push(row.channelId);
  return found;
}

export async function insertDeliveries(db: Db, rows: Array<typeof notificationDeliveries.$inferInsert>) {
  if (rows.length) await db.insert(notificationDeliveries).values(rows);
}

export async function listDeliveries(db: Db, channelId: string, window: ListWindow) {
  const where = eq(notificationDeliveries.channelId, channelId);
  return readList(
    db,
    window,
    {
      table: notificationDeliveries,
      scope: where,
      sortKey: notificationDeliveries.createdAt,
      id: notificationDeliveries.id,
      descending: true,
    },
    (page) =>
      db
        .select()
        .from(notificationDeliveries)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
}

export async function findDelivery(db: Db, id: string) {
  const [row] = await db.select().from(notificationDeliveries).where(eq(notificationDeliveries.id, id));
  return row ?? null;
}

/** Writes an attempt's outcome on the delivery (`lib/delivery-attempts.ts`). */
export function recordAttempt(db: Db, id: string, outcome: AttemptRecord) {
  return recordDeliveryAttempt(db, notificationDeliveries, id, outcome);
}
