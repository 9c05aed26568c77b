import { and, count, eq, gte, inArray, lt, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.js';
import {
  containerRuntimeUsage,
  containerUsage,
  containers,
  monitorChecks,
  monitors,
  reports,
  scans,
  type ReportRow,
  trackingMonitors,
  trackingRuns,
} from '../../db/schema.js';
import { readList } from '../../db/keyset.js';
import type { ListWindow } from '../../lib/list-window.js';

export async function insertReport(db: Db, row: typeof reports.$inferInsert): Promise<ReportRow> {
  const [created] = await db.insert(reports).values(row).returning();
  return created;
}

export async function listReports(db: Db, tenantId: string, window: ListWindow) {
  const where = eq(reports.tenantId, tenantId);
  const { rows, total } = await readList(
    db,
    window,
    { table: reports, scope: where, sortKey: reports.createdAt, id: reports.id, descending: true },
    (page) =>
      db
        .select()
        .from(reports)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
  return { rows, total };
}

export async function findReport(db: Db, tenantId: string, id: string): Promise<ReportRow | null> {
  const rows = await db
    .select()
    .from(reports)
    .where(and(eq(reports.id, id), eq(reports.tenantId, tenantId)))
    .limit(1);
  return rows[0] ?? null;
}

/** Takes one queued report atomically (several instances may poll). */
export async function claimQueuedReport(db: Db): Promise<ReportRow | null> {
  const next = db
    .select({ id: reports.id })
    .from(reports)
    .where(eq(reports.status, 'queued'))
    .orderBy(reports.createdAt)
    .limit(1)
    .for('update', { skipLocked: true });
  const rows = await db
    .update(reports)
    .set({ status: 'running' })
    .where(eq(reports.id, sql`(${next})`))
    .returning();
  return rows[0] ?? null;
}

/** Marks one report running, from queued or from running (a build its worker did not finish). */
export async function claimReport(db: Db, id: string): Promise<ReportRow | null> {
  const rows = await db
    .update(reports)
    .set({ status: 'running' })
    .where(and(eq(reports.id, id), inArray(reports.status, ['queued', 'running'])))
    .returning();
  return rows[0] ?? null;
}

export async function finishReport(
  db: Db,
  id: string,
  outcome: { status: 'ready' | 'failed'; content?: string; error?: string },
) {
  await db
    .update(reports)
    .set({
      status: outcome.status,
      content: outcome.content ?? null,
      error: outcome.error ?? null,
      completedAt: sql`now()`,
    })
    .where(eq(reports.id, id));
}

/**
 * Per monitor of the tenant: its checks in the period, aggregated in a LATERAL subquery that reads that monitor's
 * range of `monitor_checks_monitor_idx`, so no other monitor's (or tenant's) checks are read and nothing is sorted
 * but each monitor's latencies for the percentiles.
 */
export async function uptimeRows(db: Db, tenantId: string, start: Date, end: Date) {
  const stats = db
    .select({
      checks: sql<number>`count(*)`.mapWith(Number).as('checks'),
      upChecks: sql<number>`count(*) filter (where ${monitorChecks.result} <> 'down')`.mapWith(Number).as('up_checks'),
      p50: sql<number | null>`percentile_cont(0.5) within group (order by ${monitorChecks.latencyMs})`.as('p50_ms'),
      p95: sql<number | null>`percentile_cont(0.95) within group (order by ${monitorChecks.latencyMs})`.as('p95_ms'),
    })
    .from(monitorChecks)
    .where(
      and(
        eq(monitorChecks.monitorId, monitors.id),
        gte(monitorChecks.checkedAt, start),
        lt(monitorChecks.checkedAt, end),
      ),
    )
    .as('stats');
  return db
    .select({
      monitor_id: monitors.id,
      name: monitors.name,
      url: monitors.url,
      checks: stats.checks,
      up_checks: stats.upChecks,
      p50_ms: stats.p50,
      p95_ms: stats.p95,
    })
    .from(monitors)
    .innerJoinLateral(stats, sql`true`)
    .where(eq(monitors.tenantId, tenantId))
    .orderBy(monitors.name, monitors.id);
}

export async function scanRows(db: Db, tenantId: string, start: Date, end: Date) {
  return db
    .select({
      scan_id: scans.id,
      url: scans.url,
      status: scans.status,
      language: scans.language,
      trackers: sql<number | null>`jsonb_array_length(${scans.result} -> 'trackers')`,
      created_at: scans.createdAt,
    })
    .from(scans)
    .where(and(eq(scans.tenantId, tenantId), gte(scans.createdAt, start), lt(scans.createdAt, end)))
    .orderBy(scans.createdAt, scans.id);
}

/** The tracking monitors' finished runs due in the period, with what each page showed and what changed. */
export async function trackingRunRows(db: Db, tenantId: string, start: Date, end: Date) {
  return db
    .select({
      monitorId: trackingRuns.monitorId,
      monitorName: trackingMonitors.name,
      runId: trackingRuns.id,
      dueAt: trackingRuns.dueAt,
      result: trackingRuns.result,
      pages: trackingRuns.pages,
      changes: trackingRuns.changes,
    })
    .from(trackingRuns)
    .innerJoin(trackingMonitors, eq(trackingMonitors.id, trackingRuns.monitorId))
    .where(
      and(
        eq(trackingRuns.tenantId, tenantId),
        gte(trackingRuns.dueAt, start),
        lt(trackingRuns.dueAt, end),
        inArray(trackingRuns.result, ['baseline', 'matched', 'changed', 'failed']),
      ),
    )
    .orderBy(trackingMonitors.name, trackingRuns.monitorId, trackingRuns.dueAt, trackingRuns.id);
}

/** Per UTC day: scans, monitor checks, the built-in runtime's counts and the gateway's requests. */
export async function usageRows(db: Db, tenantId: string, start: Date, end: Date) {
  const day = (column: unknown) => sql<string>`to_char(date_trunc('day', ${column} at time zone 'UTC'), 'YYYY-MM-DD')`;
  const [scanDays, checkDays] = await Promise.all([
    db
      .select({ day: day(scans.createdAt), n: count() })
      .from(scans)
      .where(and(eq(scans.tenantId, tenantId), gte(scans.createdAt, start), lt(scans.createdAt, end)))
      .groupBy(sql`1`),
    db
      .select({ day: day(monitorChecks.checkedAt), n: count() })
      .from(monitorChecks)
      .where(
        and(
          eq(monitorChecks.tenantId, tenantId),
          gte(monitorChecks.checkedAt, start),
          lt(monitorChecks.checkedAt, end),
        ),
      )
      .groupBy(sql`1`),
  ]);
  const sum = (column: unknown) => sql<number>`coalesce(sum(${column}), 0)::int`;
  const runtimeDays = await db
    .select({
      day: containerRuntimeUsage.day,
      tracking_hits: sum(containerRuntimeUsage.hitsReceived),
      ga4_forwarded: sum(containerRuntimeUsage.ga4Forwarded),
      meta_forwarded: sum(containerRuntimeUsage.metaForwarded),
      forwards_failed: sum(containerRuntimeUsage.forwardsFailed),
      bots_dropped: sum(containerRuntimeUsage.botsDropped),
      cookies_restored: sum(containerRuntimeUsage.cookiesRestored),
    })
    .from(containerRuntimeUsage)
    .innerJoin(containers, eq(containers.id, containerRuntimeUsage.containerId))
    .where(and(eq(containers.tenantId, tenantId), daysOf(containerRuntimeUsage.day, start, end)))
    .groupBy(containerRuntimeUsage.day);
  return { scanDays, checkDays, runtimeDays, gatewayRequests: await gatewayRequestRows(db, tenantId, start, end) };
}

/**
 * The UTC days (`YYYY-MM-DD` text) of [start, end): the gateway counts per day, so a period ending at midnight
 * leaves that day out and one ending later in the day keeps it.
 */
function daysOf(day: typeof containerUsage.day | typeof containerRuntimeUsage.day, start: Date, end: Date) {
  const firstDay = start.toISOString().slice(0, 10);
  const endDay = end.toISOString().slice(0, 10);
  return and(gte(day, firstDay), end.toISOString().endsWith('T00:00:00.000Z') ? lt(day, endDay) : lte(day, endDay));
}

/** Requests the gateway served per UTC day, container and status class (all hostnames of the container). */
function gatewayRequestRows(db: Db, tenantId: string, start: Date, end: Date) {
  return db
    .select({
      day: containerUsage.day,
      container_id: containerUsage.containerId,
      container_name: containers.name,
      status_class: containerUsage.statusClass,
      requests: sql<number>`sum(${containerUsage.requests})::int`,
    })
    .from(containerUsage)
    .innerJoin(containers, eq(containers.id, containerUsage.containerId))
    .where(and(eq(containers.tenantId, tenantId), daysOf(containerUsage.day, start, end)))
    .groupBy(containerUsage.day, containerUsage.containerId, containers.name, containerUsage.statusClass)
    .orderBy(containerUsage.day, containerUsage.containerId, containerUsage.statusClass);
}
