import { and, count, eq, inArray, isNull, lt, sql, type SQL } from 'drizzle-orm';
import { type BatchedDelete, deleteInBatches } from '../../db/batched-delete.js';
import type { Db } from '../../db/index.js';
import { type IncidentRow, incidents, monitorChecks, monitors, type MonitorRow } from '../../db/schema.js';
import { readList } from '../../db/keyset.js';
import { rowsOf } from '../../db/rows.js';
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
  return rowsOf<{ monitor_id: string; due_at: string | Date }>(result).map((row) => ({
    monitorId: row.monitor_id,
    dueAt: new Date(row.due_at),
  }));
}

/** A monitor as a check job reads it, and whether its check for `dueAt` is already recorded. */
export async function findMonitorForCheck(
  db: Db,
  id: string,
  dueAt: Date,
): Promise<{ monitor: MonitorRow; recorded: boolean } | null> {
  const rows = await db
    .select({
      monitor: monitors,
      recorded: sql<boolean>`exists (select 1 from ${monitorChecks} where ${monitorChecks.monitorId} = ${monitors.id}
        and ${monitorChecks.dueAt} = ${dueAt.toISOString()}::timestamptz)`,
    })
    .from(monitors)
    .where(eq(monitors.id, id))
    .limit(1);
  return rows[0] ?? null;
}

/** A recorded check's effect on its monitor: the status before and after. */
export interface RecordedCheck {
  previousStatus: string;
  status: string;
}

/**
 * Stores a check and judges the monitor in one statement, its row locked so that overlapping checks of one monitor
 * judge in turn: a failure counts towards `confirmation_checks`, the count confirmed makes the monitor down, any
 * other result is the new status. Returns null when the check changed nothing: the monitor is gone or paused, its
 * check for this due time is already stored, or a check that started later was recorded first (then only the check
 * is stored).
 */
export async function recordCheck(db: Db, check: typeof monitorChecks.$inferInsert): Promise<RecordedCheck | null> {
  const checkedAt = check.checkedAt.toISOString();
  const result = await db.execute(sql`
    with before as (
      select id, status, consecutive_failures, confirmation_checks from ${monitors}
       where id = ${check.monitorId} and paused = false
         for update
    ), stored as (
      insert into ${monitorChecks} (id, monitor_id, tenant_id, checked_at, due_at, result, status_code, latency_ms,
                                    timings, error)
      select ${check.id}, before.id, ${check.tenantId}, ${checkedAt}::timestamptz,
             ${check.dueAt?.toISOString() ?? null}::timestamptz, ${check.result}, ${check.statusCode ?? null}::int,
             ${check.latencyMs ?? null}::int, ${check.timings ? JSON.stringify(check.timings) : null}::jsonb,
             ${check.error ?? null}
        from before
      on conflict do nothing
      returning monitor_id
    )
    update ${monitors} m
       set consecutive_failures = case when ${check.result} = 'down' then before.consecutive_failures + 1 else 0 end,
           status = case when ${check.result} <> 'down' then ${check.result}
                         when before.consecutive_failures + 1 >= before.confirmation_checks then 'down'
                         else before.status end,
           last_checked_at = ${checkedAt}::timestamptz
      from before, stored
     where m.id = before.id and (m.last_checked_at is null or m.last_checked_at <= ${checkedAt}::timestamptz)
    returning before.status as previous_status, m.status`);
  const [row] = rowsOf<{ previous_status: string; status: string }>(result);
  return row ? { previousStatus: row.previous_status, status: row.status } : null;
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
  filters: { status?: IncidentRow['status']; monitorId?: string },
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
  from: IncidentRow['status'][],
  changes: Partial<typeof incidents.$inferInsert>,
) {
  const rows = await db
    .update(incidents)
    .set(changes)
    .where(and(eq(incidents.id, id), eq(incidents.tenantId, tenantId), inArray(incidents.status, from)))
    .returning();
  return rows[0] ?? null;
}
