import { and, count, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.js';
import { metaEventDeliveries, type MetaEventDeliveryRow, metaPixels, type MetaPixelRow } from '../../db/schema.js';
import { readList } from '../../db/keyset.js';
import type { ListWindow } from '../../lib/list-window.js';

export async function insertPixel(db: Db, row: typeof metaPixels.$inferInsert): Promise<MetaPixelRow | null> {
  const rows = await db.insert(metaPixels).values(row).onConflictDoNothing().returning();
  return rows[0] ?? null;
}

export async function countPixels(db: Db, containerId: string): Promise<number> {
  const [{ total }] = await db
    .select({ total: count() })
    .from(metaPixels)
    .where(eq(metaPixels.containerId, containerId));
  return total;
}

export async function listPixels(db: Db, tenantId: string, containerId: string, window: ListWindow) {
  const where = and(eq(metaPixels.tenantId, tenantId), eq(metaPixels.containerId, containerId));
  const { rows, total } = await readList(
    db,
    window,
    { table: metaPixels, scope: where, sortKey: metaPixels.createdAt, id: metaPixels.id, descending: true },
    (page) =>
      db
        .select()
        .from(metaPixels)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
  return { rows, total };
}

export async function findPixel(
  db: Db,
  tenantId: string,
  containerId: string,
  id: string,
): Promise<MetaPixelRow | null> {
  const rows = await db
    .select()
    .from(metaPixels)
    .where(and(eq(metaPixels.id, id), eq(metaPixels.tenantId, tenantId), eq(metaPixels.containerId, containerId)))
    .limit(1);
  return rows[0] ?? null;
}

/** The container's pixels, for the runtime (no tenant: the gateway found the container by hostname). */
export function pixelsOfContainer(db: Db, containerId: string): Promise<MetaPixelRow[]> {
  return db.select().from(metaPixels).where(eq(metaPixels.containerId, containerId)).orderBy(metaPixels.createdAt);
}

export type PixelChanges = Partial<Pick<MetaPixelRow, 'accessTokenSealed' | 'accessTokenLast4' | 'testEventCode'>>;

/** Changes the pixel's token or test event code; null when it was deleted meanwhile. */
export async function updatePixel(db: Db, id: string, changes: PixelChanges): Promise<MetaPixelRow | null> {
  const rows = await db.update(metaPixels).set(changes).where(eq(metaPixels.id, id)).returning();
  return rows[0] ?? null;
}

/** Deletes the pixel and, by cascade, its delivery records. */
export async function deletePixel(db: Db, id: string): Promise<void> {
  await db.delete(metaPixels).where(eq(metaPixels.id, id));
}

export interface DeliveryWrite {
  metaPixelId: string;
  eventId: string;
  eventName: string;
  status: string;
  httpStatus: number | null;
  error: Record<string, unknown> | null;
}

/**
 * One statement for all events of a Graph request: a new event gets its row, an event seen before gets one more
 * attempt and the latest answer. A pixel deleted meanwhile is skipped (its records went with it).
 */
export async function upsertDeliveries(db: Db, writes: DeliveryWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const column = <K extends keyof DeliveryWrite>(key: K) => writes.map((write) => write[key]);
  await db.execute(sql`
    insert into meta_event_deliveries (meta_pixel_id, event_id, event_name, status, http_status, error)
    select batch.meta_pixel_id, batch.event_id, batch.event_name, batch.status, batch.http_status, batch.error
    from (
      select distinct on (meta_pixel_id, event_id) *
      from unnest(
        ${sql.param(column('metaPixelId'))}::text[], ${sql.param(column('eventId'))}::text[],
        ${sql.param(column('eventName'))}::text[], ${sql.param(column('status'))}::text[],
        ${sql.param(column('httpStatus'))}::integer[],
        ${sql.param(writes.map((write) => (write.error ? JSON.stringify(write.error) : null)))}::jsonb[]
      ) with ordinality as batch(meta_pixel_id, event_id, event_name, status, http_status, error, position)
      order by meta_pixel_id, event_id, position desc
    ) as batch
    join meta_pixels on meta_pixels.id = batch.meta_pixel_id
    on conflict (meta_pixel_id, event_id) do update set
      event_name = excluded.event_name,
      status = excluded.status,
      http_status = excluded.http_status,
      error = excluded.error,
      attempts = meta_event_deliveries.attempts + 1,
      last_attempt_at = now()`);
}

export async function listDeliveries(
  db: Db,
  metaPixelId: string,
  status: MetaEventDeliveryRow['status'] | undefined,
  window: ListWindow,
) {
  const where = and(
    eq(metaEventDeliveries.metaPixelId, metaPixelId),
    status ? eq(metaEventDeliveries.status, status) : undefined,
  );
  const { rows, total } = await readList(
    db,
    window,
    {
      table: metaEventDeliveries,
      scope: where,
      sortKey: metaEventDeliveries.lastAttemptAt,
      id: metaEventDeliveries.eventId,
      descending: true,
    },
    (page) =>
      db
        .select()
        .from(metaEventDeliveries)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
  return { rows, total };
}

export async function deleteDeliveriesBefore(db: Db, before: Date): Promise<number> {
  const rows = await db
    .delete(metaEventDeliveries)
    .where(lt(metaEventDeliveries.lastAttemptAt, before))
    .returning({ id: metaEventDeliveries.eventId });
  return rows.length;
}
