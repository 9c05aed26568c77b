import { and, count, eq, inArray, isNull, lt, lte, sql, type SQL } from 'drizzle-orm';
import { type BatchedDelete, deleteInBatches } from '../../db/batched-delete.js';
import type { Db } from '../../db/index.js';
import { incidents, monitorChecks, monitors, type MonitorRow } from '../../db/schema.js';
import { readList } from '../../db/keyset.js';
import type { ListWindow } from '../../lib/list-window.js';

export async function insertMonitor(db: Db, row: typeof monitors.$inferInsert): Promise<MonitorRow> {
  const [created] = await db.insert(monitors).values(row).returning();
  return created;
}

export async function listMonitors(db: Db, tenantId: string, window: ListWindow) {
  const where = eq(monitors.tenantId, tenantId);
  const { rows, total } = await readList(
    db,
    window,
    { table: monitors, scope: where, sortKey: monitors.createdAt, id: monitors.id, descending: true },
    (page) =>
      db
        .select()
        .from(monitors)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
  return { rows, total };
}

export async function countMonitors(db: Db, tenantId: string): Promise<number> {
  const [{ total }] = await db.select({ total: count() }).from(monitors).where(eq(monitors.tenantId, tenantId));
  return total;
}

export async function findMonitor(db: Db, tenantId: string, id: string): Promise<MonitorRow | null> {
  const rows = await db
    .select()
    .from(monitors)
    .where(and(eq(monitors.id, id), eq(monitors.tenantId, tenantId)))
    .limit(1);
  return rows[0] ?? null;
}

export async function updateMonitor(
  db: Db,
  tenantId: string,
  id: string,
  changes: Partial<typeof monitors.$inferInsert>,
  onlyIf?: SQL,
): Promise<MonitorRow | null> {
  const rows = await db
    .update(monitors)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(eq(monitors.id, id), eq(monitors.tenantId, tenantId), onlyIf))
    .returning();
  return rows[0] ?? null;
}

export async function deleteMonitor(db: Db, tenantId: string, id: string): Promise<MonitorRow | null> {
  const rows = await db
    .delete(monitors)
    .where(and(eq(monitors.id, id), eq(monitors.tenantId, tenantId)))
    .returning();
  return rows[0] ?? null;
}

/**
 * Leases due monitors to this instance. FOR UPDATE SKIP LOCKED makes concurrent schedulers take disjoint
 * sets; the lease keeps a monitor from being taken again while its check runs, and expires if the
 * instance dies, so a check is never run twice and never skipped for longer than the lease.
 */
export async function claimDueMonitors(
  db: Db,
  owner: string,
  limit: number,
  leaseSeconds: number,
): Promise<MonitorRow[]> {
  const due = db
    .select({ id: monitors.id })
    .from(monitors)
    .where(
      and(
        eq(monitors.paused, false),
        lte(monitors.nextCheckAt, sql`now()`),
        sql`(${monitors.leaseUntil} is null or ${monitors.leaseUntil} < now())`,
      ),
    )
    .orderBy(monitors.nextCheckAt)
    .limit(limit)
    .for('update', { skipLocked: true });
  return db
    .update(monitors)
    .set({ leaseOwner: owner, leaseUntil: sql`now() + make_interval(secs => ${leaseSeconds})` })
    .where(inArray(monitors.id, due))
    .returning();
}

/**
 * Stores a check's outcome and schedules the next one in one transaction, so a stored check always comes
 * with its monitor's new state. Only the lease holder may record; otherwise nothing is written.
 */
export async function recordCheck(
  db: Db,
  check: typeof monitorChecks.$inferInsert,
  owner: string,
  changes: Partial<typeof monitors.$inferInsert>,
): Promise<MonitorRow | null> {
  return db.transaction(async (tx) => {
    const [updated] = await tx
      .update(monitors)
      .set({ ...changes, leaseOwner: null, leaseUntil: null })
      .where(and(eq(monitors.id, check.monitorId), eq(monitors.leaseOwner, owner)))
      .returning();
    if (!updated) return null;
    await tx.insert(monitorChecks).values(check);
    return updated;
  });
}

export async function listChecks(db: Db, monitorId: string, window: ListWindow) {
  const where = eq(monitorChecks.monitorId, monitorId);
  const { rows, total } = await readList(
    db,
    window,
    { table: monitorChecks, scope: where, sortKey: monitorChecks.checkedAt, id: monitorChecks.id, descending: true },
    (page) =>
      db
        .select()
        .from(monitorChecks)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
  return { rows, total };
}

export async function windowStats(db: Db, monitorId: string, hours: number) {
  const [row] = await db
    .select({
      checks: count(),
      up: sql<number>`count(*) filter (where ${monitorChecks.result} <> 'down')`.mapWith(Number),
      p50: sql<
        number | null
      >`percentile_cont(0.5) within group (order by ${monitorChecks.latencyMs}) filter (where ${monitorChecks.latencyMs} is not null)`,
      p95: sql<
        number | null
      >`percentile_cont(0.95) within group (order by ${monitorChecks.latencyMs}) filter (where ${monitorChecks.latencyMs} is not null)`,
      p99: sql<
        number | null
      >`percentile_cont(0.99) within group (order by ${monitorChecks.latencyMs}) filter (where ${monitorChecks.latencyMs} is not null)`,
    })
    .from(monitorChecks)
    .where(
      and(
        eq(monitorChecks.monitorId, monitorId),
        sql`${monitorChecks.checkedAt} > now() - make_interval(hours => ${hours})`,
      ),
    );
  return row;
}

export function deleteChecksBefore(db: Db, before: Date, batches: BatchedDelete): Promise<number> {
  return deleteInBatches(db, monitorChecks, lt(monitorChecks.checkedAt, before), monitorChecks.checkedAt, batches);
}

/** Opens an incident unless one is already open (a partial unique index guards it). */
export async function openIncident(db: Db, row: typeof incidents.$inferInsert) {
  const rows = await db.insert(incidents).values(row).onConflictDoNothing().returning();
  return rows[0] ?? null;
}

export async function resolveOpenIncident(db: Db, monitorId: string) {
  const rows = await db
    .update(incidents)
    .set({ status: 'resolved', resolvedAt: sql`now()` })
    .where(and(eq(incidents.monitorId, monitorId), isNull(incidents.resolvedAt)))
    .returning();
  return rows[0] ?? null;
}

export async function listIncidents(
  db: Db,
  tenantId: string,
  filters: { status?: string; monitorId?: string },
  window: ListWindow,
) {
  const where = and(
    eq(incidents.tenantId, tenantId),
    filters.status ? eq(incidents.status, filters.status) : undefined,
    filters.monitorId ? eq(incidents.monitorId, filters.monitorId) : undefined,
  );
  const { rows, total } = await readList(
    db,
    window,
    { table: incidents, scope: where, sortKey: incidents.openedAt, id: incidents.id, descending: true },
    (page) =>
      db
        .select()
        .from(incidents)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
  return { rows, total };
}

export async function findIncident(db: Db, tenantId: string, id: string) {
  const rows = await db
    .select()
    .from(incidents)
    .where(and(eq(incidents.id, id), eq(incidents.tenantId, tenantId)))
    .limit(1);
  return rows[0] ?? null;
}

/** A conditional transition: returns null when the incident is not in one of `from`. */
export async function transitionIncident(
  db: Db,
  tenantId: string,
  id: string,
  from: string[],
  changes: Partial<typeof incidents.$inferInsert>,
) {
  const rows = await db
    .update(incidents)
    .set(changes)
    .where(and(eq(incidents.id, id), eq(incidents.tenantId, tenantId), inArray(incidents.status, from)))
    .returning();
  return rows[0] ?? null;
}
