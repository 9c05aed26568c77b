import { and, count, desc, eq, gte, inArray, isNull, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.js';
import {
  apiKeys,
  containers,
  containerUsage,
  domainCertificates,
  domains,
  incidents,
  monitorChecks,
  monitors,
  tenants,
} from '../../db/schema.js';

/**
 * The overview's read model: aggregate reads over several features' tables for one tenant, each through the
 * tenant's index (or a partial index of the few rows that need attention), never a per-row follow-up query.
 */

export async function containerCounts(db: Db, tenantId: string) {
  return db
    .select({ status: containers.status, count: count() })
    .from(containers)
    .where(and(eq(containers.tenantId, tenantId), ne(containers.status, 'deleted')))
    .groupBy(containers.status);
}

/** Containers failed or stopped, custom domains not verified or failed, and certificates failed or near expiry. */
export async function attentionRows(db: Db, tenantId: string, limit: number) {
  const live = and(eq(containers.tenantId, tenantId), inArray(containers.status, ['failed', 'stopped']));
  const [stuckContainers, stuckDomains] = await Promise.all([
    db
      .select({
        status: containers.status,
        containerId: containers.id,
        containerName: containers.name,
        detail: containers.statusReason,
      })
      .from(containers)
      .where(live)
      .orderBy(desc(containers.updatedAt))
      .limit(limit),
    db
      .select({
        domainStatus: domains.status,
        domainId: domains.id,
        hostname: domains.hostname,
        failureReason: domains.failureReason,
        certificateStatus: domainCertificates.status,
        certificateError: domainCertificates.lastError,
        certificateNotAfter: domainCertificates.notAfter,
        certificateExpiring: sql<boolean>`coalesce(${domainCertificates.expiryWarningAt} <= now(), false)`,
        containerId: containers.id,
        containerName: containers.name,
      })
      .from(domains)
      .innerJoin(containers, eq(containers.id, domains.containerId))
      .leftJoin(domainCertificates, eq(domainCertificates.domainId, domains.id))
      .where(
        and(
          eq(domains.tenantId, tenantId),
          isNull(domains.deletedAt),
          sql`(${domains.status} <> 'active' or ${domainCertificates.status} = 'failed' or ${domainCertificates.expiryWarningAt} <= now())`,
        ),
      )
      .orderBy(desc(domains.createdAt))
      .limit(limit),
  ]);
  return { stuckContainers, stuckDomains };
}

/** Gateway requests per UTC day from `since` (a `YYYY-MM-DD` day) on. */
export async function requestsPerDay(db: Db, tenantId: string, since: string) {
  return db
    .select({ day: containerUsage.day, requests: sql<number>`sum(${containerUsage.requests})`.mapWith(Number) })
    .from(containerUsage)
    .innerJoin(containers, eq(containers.id, containerUsage.containerId))
    .where(and(eq(containers.tenantId, tenantId), gte(containerUsage.day, since)))
    .groupBy(containerUsage.day);
}

export async function monitorCounts(db: Db, tenantId: string) {
  return db
    .select({ status: monitors.status, count: count() })
    .from(monitors)
    .where(eq(monitors.tenantId, tenantId))
    .groupBy(monitors.status);
}

/** Checks and up-or-degraded checks over the last 24 h, 7 days and 30 days, through each monitor's index. */
export async function uptimeWindows(db: Db, tenantId: string) {
  const within = (interval: string) => sql`${monitorChecks.checkedAt} >= now() - ${interval}::interval`;
  const upWithin = (interval: string) =>
    sql<number>`count(*) filter (where ${within(interval)} and ${monitorChecks.result} <> 'down')`.mapWith(Number);
  const allWithin = (interval: string) => sql<number>`count(*) filter (where ${within(interval)})`.mapWith(Number);
  const [row] = await db
    .select({
      day: allWithin('24 hours'),
      dayUp: upWithin('24 hours'),
      week: allWithin('7 days'),
      weekUp: upWithin('7 days'),
      month: count(),
      monthUp: upWithin('30 days'),
    })
    .from(monitorChecks)
    .innerJoin(monitors, eq(monitors.id, monitorChecks.monitorId))
    .where(and(eq(monitors.tenantId, tenantId), within('30 days')));
  return row;
}

export async function unresolvedIncidents(db: Db, tenantId: string, limit: number) {
  const unresolved = and(eq(incidents.tenantId, tenantId), isNull(incidents.resolvedAt));
  const [rows, [{ total }]] = await Promise.all([
    db
      .select({
        id: incidents.id,
        monitorId: incidents.monitorId,
        monitorName: monitors.name,
        status: incidents.status,
        cause: incidents.cause,
        openedAt: incidents.openedAt,
      })
      .from(incidents)
      .innerJoin(monitors, eq(monitors.id, incidents.monitorId))
      .where(unresolved)
      .orderBy(desc(incidents.openedAt))
      .limit(limit),
    db.select({ total: count() }).from(incidents).where(unresolved),
  ]);
  return { rows, total };
}

/** Whether the tenant has made each kind of object a new account sets up. */
export async function setupProgress(db: Db, tenantId: string) {
  const exists = (query: unknown) => sql<boolean>`exists (${query})`;
  const [row] = await db
    .select({
      apiKey: exists(
        db
          .select({ one: sql`1` })
          .from(apiKeys)
          .where(and(eq(apiKeys.tenantId, tenantId), isNull(apiKeys.revokedAt))),
      ),
      container: exists(
        db
          .select({ one: sql`1` })
          .from(containers)
          .where(and(eq(containers.tenantId, tenantId), ne(containers.status, 'deleted'))),
      ),
      domain: exists(
        db
          .select({ one: sql`1` })
          .from(domains)
          .where(and(eq(domains.tenantId, tenantId), isNull(domains.deletedAt))),
      ),
      monitor: exists(db.select({ one: sql`1` }).from(monitors).where(eq(monitors.tenantId, tenantId))),
    })
    .from(sql`(select 1) as one`);
  return row;
}

/**
 * Active clients of a parent, and those with failed containers or unresolved incidents. Both counts start from
 * the few rows in trouble (partial indexes of migration 0014), so the cost does not grow with the client count.
 */
export async function clientsInTrouble(db: Db, parentId: string, limit: number) {
  const activeClients = and(eq(tenants.parentId, parentId), eq(tenants.status, 'active'));
  const clientIds = db.select({ id: tenants.id }).from(tenants).where(activeClients);
  const failed = db
    .select({ tenantId: containers.tenantId, failed: count().as('failed') })
    .from(containers)
    .where(and(eq(containers.status, 'failed'), inArray(containers.tenantId, clientIds)))
    .groupBy(containers.tenantId)
    .as('failed');
  const open = db
    .select({ tenantId: incidents.tenantId, open: count().as('open') })
    .from(incidents)
    .where(and(isNull(incidents.resolvedAt), inArray(incidents.tenantId, clientIds)))
    .groupBy(incidents.tenantId)
    .as('open');
  const failedCount = sql<number>`coalesce(${failed.failed}, 0)`.mapWith(Number);
  const openCount = sql<number>`coalesce(${open.open}, 0)`.mapWith(Number);
  const [rows, [{ total }]] = await Promise.all([
    db
      .select({ id: tenants.id, name: tenants.name, failedContainers: failedCount, openIncidents: openCount })
      .from(tenants)
      .leftJoin(failed, eq(failed.tenantId, tenants.id))
      .leftJoin(open, eq(open.tenantId, tenants.id))
      .where(and(activeClients, sql`(${failed.failed} is not null or ${open.open} is not null)`))
      .orderBy(sql`${failedCount} + ${openCount} desc`, tenants.name)
      .limit(limit),
    db.select({ total: count() }).from(tenants).where(activeClients),
  ]);
  return { rows, total };
}
