import { and, eq, gt, inArray, isNull, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.js';
import { containers, domains, type ContainerRow } from '../../db/schema.js';

// What the gateway's traffic service reads: which container a hostname reaches, and the native data plane's routes.

/** A container as the gateway needs it, read by hostname. */
export interface RouteRow {
  containerId: string;
  status: ContainerRow['status'];
  upstreamUrl: string | null;
  runtime: ContainerRow['runtime'];
  config: string;
  gtmContainerId: string | null;
  settings: ContainerRow['settings'];
}

const routeColumns = {
  containerId: containers.id,
  status: containers.status,
  upstreamUrl: containers.upstreamUrl,
  runtime: containers.runtime,
  config: containers.config,
  gtmContainerId: containers.gtmContainerId,
  settings: containers.settings,
};

/** The container a hostname reaches: its default hostname first, else an active custom domain. */
export async function findRouteByHostname(db: Db, hostname: string): Promise<RouteRow | null> {
  const byDefault = await db
    .select(routeColumns)
    .from(containers)
    .where(eq(containers.defaultHostname, hostname))
    .limit(1);
  const byDomain = byDefault.length
    ? byDefault
    : await db
        .select(routeColumns)
        .from(domains)
        .innerJoin(containers, eq(containers.id, domains.containerId))
        .where(and(eq(domains.hostname, hostname), eq(domains.status, 'active'), isNull(domains.deletedAt)))
        .limit(1);
  return byDomain[0] ?? null;
}

/** A hostname and the container it reaches, as the gateway warms its routes; `after` is the page's cursor. */
export interface HostnameRouteRow extends RouteRow {
  hostname: string;
  after: string;
}

/**
 * One page of every hostname a container answers on, in id order after `after`: the default hostnames
 * (`source: 'default'`, by container id) or the active custom domains (by domain id).
 */
export async function listRoutesPage(
  db: Db,
  source: 'default' | 'domain',
  after: string,
  limit: number,
): Promise<HostnameRouteRow[]> {
  if (source === 'default')
    return db
      .select({ ...routeColumns, hostname: containers.defaultHostname, after: containers.id })
      .from(containers)
      .where(and(gt(containers.id, after), ne(containers.status, 'deleted')))
      .orderBy(containers.id)
      .limit(limit);
  return db
    .select({ ...routeColumns, hostname: domains.hostname, after: domains.id })
    .from(domains)
    .innerJoin(containers, eq(containers.id, domains.containerId))
    .where(and(gt(domains.id, after), eq(domains.status, 'active'), isNull(domains.deletedAt)))
    .orderBy(domains.id)
    .limit(limit);
}

/** A container a native data plane proxies: its upstream, its stored settings, its hostnames. */
export interface UpstreamRouteRow {
  containerId: string;
  upstreamUrl: string | null;
  settings: ContainerRow['settings'];
  hostnames: string[];
}

/**
 * Every running container on `runtime` (`upstream`: with an upstream URL) with its hostnames (the default one, then
 * its active custom domains): what a native data plane proxies without asking the Node gateway. With `containerIds`,
 * only those of them.
 */
export async function listRunningRoutes(
  db: Db,
  runtime: 'upstream' | 'sgtm',
  containerIds?: string[],
): Promise<UpstreamRouteRow[]> {
  if (containerIds?.length === 0) return [];
  const rows = await db
    .select({
      containerId: containers.id,
      upstreamUrl: containers.upstreamUrl,
      settings: containers.settings,
      defaultHostname: containers.defaultHostname,
      domain: domains.hostname,
    })
    .from(containers)
    .leftJoin(
      domains,
      and(eq(domains.containerId, containers.id), eq(domains.status, 'active'), isNull(domains.deletedAt)),
    )
    .where(
      and(
        eq(containers.status, 'running'),
        eq(containers.runtime, runtime),
        runtime === 'upstream' ? sql`${containers.upstreamUrl} is not null` : undefined,
        containerIds ? inArray(containers.id, containerIds) : undefined,
      ),
    )
    .orderBy(containers.id, domains.hostname);
  const routes = new Map<string, UpstreamRouteRow>();
  for (const row of rows) {
    let route = routes.get(row.containerId);
    if (!route) {
      route = { containerId: row.containerId, upstreamUrl: row.upstreamUrl, settings: row.settings, hostnames: [] };
      if (row.defaultHostname) route.hostnames.push(row.defaultHostname);
      routes.set(row.containerId, route);
    }
    if (row.domain) route.hostnames.push(row.domain);
  }
  return [...routes.values()];
}

/** The containers the active custom domains among `hostnames` belong to. */
export async function containersOfDomains(db: Db, hostnames: string[]): Promise<string[]> {
  if (hostnames.length === 0) return [];
  const rows = await db
    .selectDistinct({ containerId: domains.containerId })
    .from(domains)
    .where(and(inArray(domains.hostname, hostnames), eq(domains.status, 'active'), isNull(domains.deletedAt)));
  return rows.flatMap((row) => (row.containerId ? [row.containerId] : []));
}
