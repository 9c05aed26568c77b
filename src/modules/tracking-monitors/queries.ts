import { and, count, desc, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.js';
import { readList } from '../../db/keyset.js';
import { rowsOf } from '../../db/rows.js';
import {
  containers,
  domains,
  type TrackingIncidentRow,
  trackingIncidents,
  type TrackingMonitorRow,
  trackingMonitors,
  type TrackingRunRow,
  trackingRuns,
} from '../../db/schema.js';
import type { ListWindow } from '../../lib/list-window.js';

export type MonitorInsert = typeof trackingMonitors.$inferInsert;
export type MonitorChanges = Partial<Omit<MonitorInsert, 'id' | 'tenantId' | 'createdAt'>>;

export async function insertMonitor(db: Db, row: MonitorInsert): Promise<TrackingMonitorRow> {
  const [created] = await db.insert(trackingMonitors).values(row).returning();
  return created;
}

export async function countMonitors(db: Db, tenantId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(trackingMonitors).where(eq(trackingMonitors.tenantId, tenantId));
  return row.n;
}

export async function findMonitor(db: Db, tenantId: string, id: string): Promise<TrackingMonitorRow | null> {
  const [row] = await db
    .select()
    .from(trackingMonitors)
    .where(and(eq(trackingMonitors.tenantId, tenantId), eq(trackingMonitors.id, id)))
    .limit(1);
  return row ?? null;
}

export async function findMonitorById(db: Db, id: string): Promise<TrackingMonitorRow | null> {
  const [row] = await db.select().from(trackingMonitors).where(eq(trackingMonitors.id, id)).limit(1);
  return row ?? null;
}

export async function listMonitors(db: Db, tenantId: string, window: ListWindow) {
  const where = eq(trackingMonitors.tenantId, tenantId);
  return readList(
    db,
    window,
    {
      table: trackingMonitors,
      scope: where,
      sortKey: trackingMonitors.createdAt,
      id: trackingMonitors.id,
      descending: true,
    },
    (page) =>
      db
        .select()
        .from(trackingMonitors)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
}

export async function updateMonitor(db: Db, id: string, changes: MonitorChanges): Promise<TrackingMonitorRow> {
  const [row] = await db
    .update(trackingMonitors)
    .set({ ...changes, updatedAt: new Date() })
    .where(eq(trackingMonitors.id, id))
    .returning();
  return row;
}

/** The hostnames a container is reached at now: its default hostname and its custom domains (not deleted). */
export async function containerHosts(db: Db, containerId: string): Promise<string[]> {
  const [container] = await db
    .select({ hostname: containers.defaultHostname })
    .from(containers)
    .where(eq(containers.id, containerId))
    .limit(1);
  if (!container) return [];
  const rows = await db
    .select({ hostname: domains.hostname })
    .from(domains)
    .where(and(eq(domains.containerId, containerId), isNull(domains.deletedAt)));
  return [container.hostname, ...rows.map((row) => row.hostname)];
}

export async function deleteMonitor(db: Db, id: string): Promise<void> {
  await db.delete(trackingMonitors).where(eq(trackingMonitors.id, id));
}

/** Claims the runs due within the lookahead: each monitor's due time moves on by whole intervals (no drift). */
export async function claimDueRuns(db: Db, lookaheadMs: number, limit: number) {
  const result = await db.execute(sql`
    with due as (
      select id, interval_seconds,
             date_trunc('milliseconds', next_run_at + make_interval(secs => interval_seconds *
               greatest(0, floor(extract(epoch from now() - next_run_at) / interval_seconds)))) as due_at
        from ${trackingMonitors}
       where paused = false and next_run_at <= now() + make_interval(secs => ${lookaheadMs / 1000})
       order by next_run_at
       limit ${limit}
         for update skip locked
    )
    update ${trackingMonitors} m set next_run_at = due.due_at + make_interval(secs => due.interval_seconds)
      from due where m.id = due.id
    returning m.id as monitor_id, m.tenant_id, due.due_at`);
  return rowsOf<{ monitor_id: string; tenant_id: string; due_at: string | Date }>(result).map((row) => ({
    monitorId: row.monitor_id,
    tenantId: row.tenant_id,
    dueAt: new Date(row.due_at),
  }));
}

export async function insertRuns(db: Db, runs: Array<typeof trackingRuns.$inferInsert>): Promise<TrackingRunRow[]> {
  if (!runs.length) return [];
  return db.insert(trackingRuns).values(runs).onConflictDoNothing().returning();
}

/** Marks a queued run running (or a run whose worker died, again); null when it is gone or already finished. */
export async function startRun(db: Db, id: string): Promise<TrackingRunRow | null> {
  const [row] = await db
    .update(trackingRuns)
    .set({ result: 'running', startedAt: new Date() })
    .where(and(eq(trackingRuns.id, id), inArray(trackingRuns.result, ['queued', 'running'])))
    .returning();
  return row ?? null;
}

export async function finishRun(
  db: Db,
  id: string,
  outcome: Pick<TrackingRunRow, 'result' | 'error' | 'changes' | 'pages'>,
): Promise<TrackingRunRow> {
  const [row] = await db
    .update(trackingRuns)
    .set({ ...outcome, finishedAt: new Date() })
    .where(eq(trackingRuns.id, id))
    .returning();
  return row;
}

export async function findRun(db: Db, monitorId: string, id: string): Promise<TrackingRunRow | null> {
  const [row] = await db
    .select()
    .from(trackingRuns)
    .where(and(eq(trackingRuns.monitorId, monitorId), eq(trackingRuns.id, id)))
    .limit(1);
  return row ?? null;
}

/** The latest run that ended with pages to compare (not failed, not waiting): the default to accept as baseline. */
export async function latestComparableRun(db: Db, monitorId: string): Promise<TrackingRunRow | null> {
  const [row] = await db
    .select()
    .from(trackingRuns)
    .where(and(eq(trackingRuns.monitorId, monitorId), inArray(trackingRuns.result, ['baseline', 'matched', 'changed'])))
    .orderBy(desc(trackingRuns.finishedAt))
    .limit(1);
  return row ?? null;
}

export async function listRuns(db: Db, monitorId: string, window: ListWindow) {
  const where = eq(trackingRuns.monitorId, monitorId);
  return readList(
    db,
    window,
    { table: trackingRuns, scope: where, sortKey: trackingRuns.dueAt, id: trackingRuns.id, descending: true },
    (page) =>
      db
        .select()
        .from(trackingRuns)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
}

export async function openIncidentOf(db: Db, monitorId: string): Promise<TrackingIncidentRow | null> {
  const [row] = await db
    .select()
    .from(trackingIncidents)
    .where(and(eq(trackingIncidents.monitorId, monitorId), isNull(trackingIncidents.resolvedAt)))
    .limit(1);
  return row ?? null;
}

export async function openIncidentIds(db: Db, monitorIds: string[]): Promise<Map<string, string>> {
  if (!monitorIds.length) return new Map();
  const rows = await db
    .select({ id: trackingIncidents.id, monitorId: trackingIncidents.monitorId })
    .from(trackingIncidents)
    .where(and(inArray(trackingIncidents.monitorId, monitorIds), isNull(trackingIncidents.resolvedAt)));
  return new Map(rows.map((row) => [row.monitorId, row.id]));
}

/** Opens an incident; null when the monitor already has an open one (another run opened it meanwhile). */
export async function insertIncident(
  db: Db,
  row: typeof trackingIncidents.$inferInsert,
): Promise<TrackingIncidentRow | null> {
  const [created] = await db.insert(trackingIncidents).values(row).onConflictDoNothing().returning();
  return created ?? null;
}

export async function updateIncident(
  db: Db,
  id: string,
  changes: Partial<Pick<TrackingIncidentRow, 'lastRunId' | 'changes' | 'severity'>>,
): Promise<void> {
  await db.update(trackingIncidents).set(changes).where(eq(trackingIncidents.id, id));
}

export async function resolveIncident(
  db: Db,
  id: string,
  resolution: NonNullable<TrackingIncidentRow['resolution']>,
): Promise<TrackingIncidentRow | null> {
  const [row] = await db
    .update(trackingIncidents)
    .set({ status: 'resolved', resolution, resolvedAt: new Date() })
    .where(and(eq(trackingIncidents.id, id), ne(trackingIncidents.status, 'resolved')))
    .returning();
  return row ?? null;
}

export async function listIncidents(db: Db, monitorId: string, window: ListWindow) {
  const where = eq(trackingIncidents.monitorId, monitorId);
  return readList(
    db,
    window,
    {
      table: trackingIncidents,
      scope: where,
      sortKey: trackingIncidents.openedAt,
      id: trackingIncidents.id,
      descending: true,
    },
    (page) =>
      db
        .select()
        .from(trackingIncidents)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
}
