import { and, count, desc, eq, inArray, isNull, lt, sql, type SQL } from 'drizzle-orm';
import { boundedCount } from '../../db/bounded-count.js';
import { countLimit } from '../../lib/count-bound.js';
import { type BatchedDelete, deleteInBatches } from '../../db/batched-delete.js';
import type { Db } from '../../db/index.js';
import { incidents, monitorChecks, monitors, type MonitorRow } from '../../db/schema.js';

export async function insertMonitor(db: Db, row: typeof monitors.$inferInsert): Promise<MonitorRow> {
  const [created] = await db.insert(monitors).values(row).returning();
  return created;
}

export async function listMonitors(db: Db, tenantId: string, limit: number, offset: number) {
  const where = eq(monitors.tenantId, tenantId);
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(monitors)
      .where(where)
      .orderBy(desc(monitors.createdAt), desc(monitors.id))
      .limit(limit)
      .offset(offset),
    boundedCount(db, monitors, where, countLimit(limit, offset)),
  ]);
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

/** A monitor's check for one due time, as a claim hands it out. */
export interface DueCheck {
  monitorId: string;
  dueAt: Date;
}

/**
 * Claims the monitors due up to `lookaheadMs` from now, at most `limit`, and moves each one's next due time on by
 * whole intervals from its previous due time (never from when a check ran, so the schedule does not drift). A
 * monitor that missed slots (no worker for a while) is checked once, for its latest missed slot. FOR UPDATE SKIP
 * LOCKED lets concurrent claims take disjoint monitors; every claimed due time is handed out exactly once. Due times
 * are kept to the millisecond, as JavaScript dates hold them.
 */
export async function claimDueChecks(db: Db, lookaheadMs: number, limit: number): Promise<DueCheck[]> {
  const result = await db.execute(sql`
    with due as (
      select id, interval_seconds,
             date_trunc('milliseconds', next_check_at + make_interval(secs => interval_seconds *
               greatest(0, floor(extract(epoch from now() - next_check_at) / interval_seconds)))) as due_at
        from ${monitors}
       where paused = false and next_check_at <= now() + make_interval(secs => ${lookaheadMs / 1000})
       order by next_check_at
       limit ${limit}
         for update skip locked
    )
    update ${monitors} m set next_check_at = due.due_at + make_interval(secs => due.interval_seconds)
      from due where m.id = due.id
    returning m.id as monitor_id, due.due_at`);
  return (result as unknown as { rows: Array<{ monitor_id: string; due_at: string | Date }> }).rows.map((row) => ({
    monitorId: row.monitor_id,
    dueAt: new Date(row.due_at),
  }));
}

export async function findMonitorById(db: Db, id: string): Promise<MonitorRow | null> {
  const rows = await db.select().from(monitors).where(eq(monitors.id, id)).limit(1);
  return rows[0] ?? null;
}

export async function checkExists(db: Db, monitorId: string, dueAt: Date): Promise<boolean> {
  const rows = await db
    .select({ id: monitorChecks.id })
    .from(monitorChecks)
    .where(and(eq(monitorChecks.monitorId, monitorId), eq(monitorChecks.dueAt, dueAt)))
    .limit(1);
  return rows.length > 0;
}

/**
 * Stores a check and the monitor's new state in one transaction, the monitor row locked so that overlapping checks
 * of one monitor judge in turn, each from the state the previous one left. `judge` reads that locked row and returns
 * the changes, or null to store the check alone (a check older than the last one recorded). Returns the row as it
 * was before, or null when nothing was stored: the monitor is gone or paused, or its check for this due time exists.
 */
export async function recordCheck(
  db: Db,
  check: typeof monitorChecks.$inferInsert & { dueAt: Date },
  judge: (monitor: MonitorRow) => Partial<typeof monitors.$inferInsert> | null,
): Promise<MonitorRow | null> {
  return db.transaction(async (tx) => {
    const [monitor] = await tx.select().from(monitors).where(eq(monitors.id, check.monitorId)).for('update');
    if (!monitor || monitor.paused) return null;
    const inserted = await tx
      .insert(monitorChecks)
      .values(check)
      .onConflictDoNothing()
      .returning({ id: monitorChecks.id });
    if (inserted.length === 0) return null;
    const changes = judge(monitor);
    if (changes) await tx.update(monitors).set(changes).where(eq(monitors.id, monitor.id));
    return monitor;
  });
}

/** Seconds the most overdue unpaused monitor is past its due time without being claimed (0 when none is). */
export async function overdueSeconds(db: Db): Promise<number> {
  const [row] = await db
    .select({
      seconds: sql<number>`coalesce(extract(epoch from now() - min(${monitors.nextCheckAt})), 0)`.mapWith(Number),
    })
    .from(monitors)
    .where(eq(monitors.paused, false));
  return Math.max(0, row?.seconds ?? 0);
}

export async function listChecks(db: Db, monitorId: string, limit: number, offset: number) {
  const where = eq(monitorChecks.monitorId, monitorId);
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(monitorChecks)
      .where(where)
      .orderBy(desc(monitorChecks.checkedAt), desc(monitorChecks.id))
      .limit(limit)
      .offset(offset),
    boundedCount(db, monitorChecks, where, countLimit(limit, offset)),
  ]);
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
  limit: number,
  offset: number,
) {
  const where = and(
    eq(incidents.tenantId, tenantId),
    filters.status ? eq(incidents.status, filters.status) : undefined,
    filters.monitorId ? eq(incidents.monitorId, filters.monitorId) : undefined,
  );
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(incidents)
      .where(where)
      .orderBy(desc(incidents.openedAt), desc(incidents.id))
      .limit(limit)
      .offset(offset),
    boundedCount(db, incidents, where, countLimit(limit, offset)),
  ]);
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
