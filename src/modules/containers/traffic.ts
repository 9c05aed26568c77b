import { setImmediate } from 'node:timers/promises';
import type { BatchedDelete } from '../../db/batched-delete.js';
import type { Database } from '../../db/index.js';
import type { containerRequestLogs, containerRuntimeUsage, containerUsage } from '../../db/schema.js';
import * as routeQueries from './gateway-queries.js';
import * as queries from './queries.js';
import { previewOf } from '../tagging-servers/hosting.js';
import { parseContainerConfig } from './config-string.js';
import type { ContainerStatus } from './schemas.js';
import { type ContainerRuntimeKind, type ContainerSettingsDto, settingsFromStored } from './settings.js';

/** Rows per insert or delete statement: each blocks a PGlite gateway for ~2–3 ms. */
const LOG_CHUNK = 250;

/** What the gateway knows of the container a hostname reaches. */
export interface GatewayRoute {
  containerId: string;
  status: ContainerStatus;
  upstreamUrl: string | null;
  runtime: ContainerRuntimeKind;
  /** The GTM container id of its config (`GTM-…`); the loader serves gtm.js for it. */
  gtmContainerId: string | null;
  settings: ContainerSettingsDto;
  /**
   * Runtime `sgtm`: where this hostname's requests go, `http://host:port` of each ready tagging replica, or of the
   * preview server on the container's preview hostname. Empty otherwise.
   */
  endpoints: string[];
  /** The hostname is the container's preview hostname (`<label>-preview.<base domain>`). */
  preview: boolean;
}

/** A running container the native data plane may proxy itself: its hostnames and settings. */
export interface NativeRouteRow {
  containerId: string;
  hostnames: string[];
  settings: ContainerSettingsDto;
}

/** Where a page of hostname routes starts (see ContainerTraffic.routesPage). */
export interface RoutesCursor {
  source: 'default' | 'domain';
  after: string;
}
export interface RoutesPage {
  routes: Array<{ hostname: string; route: GatewayRoute }>;
  next: RoutesCursor | null;
}

/** Where a container's tagging servers can be reached (src/modules/tagging-servers/). */
export interface TaggingEndpoints {
  endpoints(containerId: string): Promise<{ tagging: string[]; preview: string[] }>;
}
export type UsageCount = typeof containerUsage.$inferInsert;
export type RequestLogEntry = typeof containerRequestLogs.$inferInsert;
/** What the built-in runtime did for a container on a UTC day (hits, forwards per vendor, bots, cookies). */
export type RuntimeUsageCount = typeof containerRuntimeUsage.$inferInsert;

/**
 * What the gateway (the data plane) reads and writes: the route of a hostname, and its metered usage and
 * sampled request logs. The gateway is given this service; it never reads another module's queries.
 */
export class ContainerTraffic {
  private readonly database: Database;
  private readonly tagging: TaggingEndpoints | null;
  private readonly baseDomain: string;

  constructor({ database, tagging }: { database: Database; tagging?: TaggingEndpoints }, baseDomain = '') {
    this.database = database;
    this.tagging = tagging ?? null;
    this.baseDomain = baseDomain;
  }

  /** The container a hostname reaches: by default hostname or active custom domain, or as its preview hostname. */
  async route(hostname: string): Promise<GatewayRoute | null> {
    const row = await routeQueries.findRouteByHostname(this.database.db, hostname);
    if (row) return this.routeOf(row, false);
    const previewed = this.baseDomain ? previewOf(hostname, this.baseDomain) : null;
    const container = previewed ? await routeQueries.findRouteByHostname(this.database.db, previewed) : null;
    return container?.runtime === 'sgtm' ? this.routeOf(container, true) : null;
  }

  /**
   * One page of every hostname's route (default hostnames, then custom domains, each in id order), for a gateway
   * that warms its cache; `cursor` is null at the start and after the last page.
   */
  async routesPage(cursor: RoutesCursor | null, limit: number): Promise<RoutesPage> {
    const at = cursor ?? { source: 'default' as const, after: '' };
    const rows = await routeQueries.listRoutesPage(this.database.db, at.source, at.after, limit);
    const routes = await Promise.all(
      rows.map(async (row) => ({ hostname: row.hostname, route: await this.routeOf(row, false) })),
    );
    const next: RoutesCursor | null =
      rows.length === limit
        ? { source: at.source, after: rows[rows.length - 1].after }
        : at.source === 'default'
          ? { source: 'domain', after: '' }
          : null;
    return { routes, next };
  }

  private async routeOf(row: routeQueries.RouteRow, preview: boolean): Promise<GatewayRoute> {
    const { runtime } = row;
    const pools = runtime === 'sgtm' && this.tagging ? await this.tagging.endpoints(row.containerId) : null;
    return {
      containerId: row.containerId,
      status: row.status,
      upstreamUrl: row.upstreamUrl,
      runtime,
      gtmContainerId: row.gtmContainerId ?? gtmIdOf(row.config),
      settings: settingsFromStored(row.settings),
      endpoints: (preview ? pools?.preview : pools?.tagging) ?? [],
      preview,
    };
  }

  /** Requests per container over today and yesterday (UTC): which containers are the busiest. */
  async recentRequests(): Promise<Map<string, number>> {
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const rows = await queries.requestsSince(this.database.db, yesterday);
    return new Map(rows.map((row) => [row.containerId, row.requests]));
  }

  /** The containers the active custom domains among `hostnames` belong to. */
  containersOfDomains(hostnames: string[]): Promise<string[]> {
    return routeQueries.containersOfDomains(this.database.db, hostnames);
  }

  /**
   * Running containers on the `upstream` runtime with their hostnames and settings: the native data plane's routes
   * (with `containerIds`, of those only).
   */
  async upstreamRoutes(containerIds?: string[]): Promise<Array<NativeRouteRow & { upstreamUrl: string }>> {
    const rows = await routeQueries.listRunningRoutes(this.database.db, 'upstream', containerIds);
    return rows.map((row) => ({
      ...row,
      upstreamUrl: row.upstreamUrl ?? '',
      settings: settingsFromStored(row.settings),
    }));
  }

  /** Running `sgtm` containers with their hostnames, settings and ready tagging replicas (none: left out). */
  async replicaRoutes(containerIds?: string[]): Promise<Array<NativeRouteRow & { endpoints: string[] }>> {
    if (!this.tagging) return [];
    const rows = await routeQueries.listRunningRoutes(this.database.db, 'sgtm', containerIds);
    const routes = await Promise.all(
      rows.map(async (row) => ({
        ...row,
        settings: settingsFromStored(row.settings),
        endpoints: (await this.tagging!.endpoints(row.containerId)).tagging,
      })),
    );
    return routes.filter((route) => route.endpoints.length > 0);
  }

  /**
   * Adds the usage counts, then writes the logs in chunks, yielding to the event loop between them: on PGlite
   * every statement runs in this thread, so one big insert would stall every request in flight.
   */
  async record(usage: UsageCount[], logs: RequestLogEntry[]): Promise<void> {
    await queries.addUsage(this.database.db, usage);
    for (let start = 0; start < logs.length; start += LOG_CHUNK) {
      if (start > 0) await setImmediate();
      await queries.insertRequestLogs(this.database.db, logs.slice(start, start + LOG_CHUNK));
    }
  }

  /** Adds the built-in runtime's counts, one statement for the batch. */
  recordRuntime(usage: RuntimeUsageCount[]): Promise<void> {
    return queries.addRuntimeUsage(this.database.db, usage);
  }

  /**
   * Keeps the newest `keep` sampled logs of each of these containers, deleting the older ones in chunks with a
   * yield between them (a flush of 1000 new logs deletes 1000: as one statement, a long stall on PGlite). Only the
   * containers found beyond `keep` are trimmed, found in one statement for all.
   */
  async trimLogs(containerIds: Iterable<string>, keep: number): Promise<void> {
    const beyond = await queries.containersWithLogsBeyond(this.database.db, [...containerIds], keep);
    for (const containerId of beyond) {
      while ((await queries.trimRequestLogs(this.database.db, containerId, keep, LOG_CHUNK)) === LOG_CHUNK)
        await setImmediate();
      await setImmediate();
    }
  }

  /** Retention: request logs taken before `before` and usage of days before `day` (YYYY-MM-DD), in batches. */
  async prune(before: Date, day: string, batches: BatchedDelete): Promise<{ requestLogs: number; usage: number }> {
    return {
      requestLogs: await queries.deleteRequestLogsBefore(this.database.db, before, batches),
      usage: await queries.deleteUsageBefore(this.database.db, day, batches),
    };
  }
}

/** The GTM id of a config stored in clear (rows from before configs were sealed); null for a sealed one. */
function gtmIdOf(config: string): string | null {
  try {
    return parseContainerConfig(config);
  } catch {
    return null;
  }
}
