import type { Database } from '../../db/index.js';
import type { InvalidationBus } from '../../db/invalidation.js';
import type { ContainerRow } from '../../db/schema.js';
import { planLimitReached } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { OutboundRefusedError, type OutboundClient } from '../../lib/outbound.js';
import type { EventLog } from '../events/service.js';
import type { TenantService } from '../tenants/service.js';
import { ContainerErrors } from './errors.js';
import { type ContainerHealthCheck, healthOf } from './health.js';
import * as queries from './queries.js';
import { runtimeCountsOf, sumRuntimeCounts, sumUsage } from './usage.js';
import {
  type ContainerRuntimeKind,
  type ContainerSettingsChangeInput,
  type ContainerSettingsDto,
  defaultSettings,
  generateLoaderPath,
  loaderPathProblem,
  mergeSettings,
  settingsFromStored,
} from './settings.js';
import {
  ACTIONS,
  REMOVED_STATUSES,
  TRANSITIONS,
  type ContainerAction,
  type ContainerDto,
  type ContainerHealthDto,
  type ContainerStatus,
  type CreateContainerInput,
  type LogsFilter,
  type RequestLogDto,
  type UpdateContainerInput,
  type UsageDto,
  type UsagePeriod,
} from './schemas.js';
import type { ListWindow } from '../../lib/list-window.js';

const DAY_MS = 86_400_000;

/** Decodes and checks a server-side GTM container config; returns the GTM container id. */
export function parseContainerConfig(config: string): string {
  const trimmed = config.trim();
  if (!/^[A-Za-z0-9+/=_-]+$/.test(trimmed))
    throw ContainerErrors.invalidConfig('config must be the base64 container config string from Google Tag Manager.');
  const params = new URLSearchParams(Buffer.from(trimmed, 'base64').toString('utf8'));
  const id = params.get('id') ?? '';
  if (!/^GTM-[A-Z0-9]{4,12}$/.test(id))
    throw ContainerErrors.invalidConfig('config does not decode to a GTM container (id=GTM-…&env=…&auth=…).');
  if (!/^\d{1,6}$/.test(params.get('env') ?? ''))
    throw ContainerErrors.invalidConfig('config has no valid env parameter.');
  if (!/^[A-Za-z0-9_-]{6,200}$/.test(params.get('auth') ?? ''))
    throw ContainerErrors.invalidConfig('config has no valid auth parameter.');
  return id;
}

export function allowedActions(status: string): ContainerAction[] {
  return ACTIONS.filter((action) => TRANSITIONS[action].from.includes(status as ContainerStatus));
}

export function toContainerDto(row: ContainerRow, health: ContainerHealthDto): ContainerDto {
  return {
    id: row.id,
    tenant_id: row.tenantId,
    name: row.name,
    region: row.region as ContainerDto['region'],
    status: row.status as ContainerDto['status'],
    status_reason: row.statusReason,
    health,
    config: row.config,
    gtm_container_id: parseContainerConfig(row.config),
    runtime: row.runtime as ContainerRuntimeKind,
    upstream_url: row.upstreamUrl,
    settings: settingsFromStored(row.settings),
    default_hostname: row.defaultHostname,
    allowed_actions: allowedActions(row.status),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The settings with `change` merged in, refusing a loader path that cannot be used. */
function changedSettings(current: ContainerSettingsDto, change: ContainerSettingsChangeInput | undefined) {
  if (change?.loader_path !== undefined) {
    const problem = loaderPathProblem(change.loader_path);
    if (problem) throw ContainerErrors.invalidLoaderPath(problem);
  }
  return change ? mergeSettings(current, change) : current;
}

/** `upstream` needs a tagging server to proxy to; `builtin` may keep one configured for switching back. */
function checkRuntime(runtime: ContainerRuntimeKind, upstreamUrl: string | null): void {
  if (runtime === 'upstream' && !upstreamUrl) throw ContainerErrors.upstreamRequired();
}

export interface ContainerRuntime {
  /** Asks a worker to carry the container's transitional state forward (a job: it survives restarts). */
  enqueue(containerId: string): Promise<void>;
}

/** Traffic the gateway has counted but not written yet; flushed before usage and logs are read. */
export interface PendingTraffic {
  flush(): Promise<void>;
}

export interface ContainerServiceDependencies {
  database: Database;
  outbound: OutboundClient;
  events: EventLog;
  runtime: ContainerRuntime;
  tenants: TenantService;
  traffic: PendingTraffic;
  /** Tells every gateway instance to drop its cached route of a changed container. */
  invalidations: InvalidationBus;
  /** The gateway's health check, for the `health` of running containers. */
  health: ContainerHealthCheck;
}

export class ContainerService {
  private readonly database: Database;
  private readonly outbound: OutboundClient;
  private readonly events: EventLog;
  private readonly runtime: ContainerRuntime;
  private readonly tenants: TenantService;
  private readonly traffic: PendingTraffic;
  private readonly invalidations: InvalidationBus;
  private readonly health: ContainerHealthCheck;

  constructor(
    { database, outbound, events, runtime, tenants, traffic, invalidations, health }: ContainerServiceDependencies,
    private readonly settings: { gatewayBaseDomain: string },
  ) {
    this.database = database;
    this.outbound = outbound;
    this.events = events;
    this.runtime = runtime;
    this.tenants = tenants;
    this.traffic = traffic;
    this.invalidations = invalidations;
    this.health = health;
  }

  /** The container as the API shows it, with its health checked when it runs. */
  private async present(row: ContainerRow): Promise<ContainerDto> {
    return toContainerDto(row, await healthOf(this.health, row));
  }

  private get db() {
    return this.database.db;
  }

  async checkUpstream(url: string | null | undefined): Promise<void> {
    if (url === null || url === undefined) return;
    try {
      await this.outbound.checkUrl(url);
    } catch (error) {
      if (error instanceof OutboundRefusedError) {
        throw ContainerErrors.upstreamRefused(error);
      }
      throw error;
    }
  }

  async create(tenantId: string, input: CreateContainerInput): Promise<ContainerDto> {
    parseContainerConfig(input.config);
    const runtime = input.runtime ?? (input.upstream_url ? 'upstream' : 'builtin');
    checkRuntime(runtime, input.upstream_url ?? null);
    const settings = changedSettings(defaultSettings(generateLoaderPath()), input.settings);
    await this.checkUpstream(input.upstream_url);
    const limit = Number((await this.tenants.features(tenantId)).max_containers ?? 0);
    if ((await queries.countLiveContainers(this.db, tenantId)) >= limit) {
      throw planLimitReached('containers', limit);
    }
    const id = newId('container');
    const row = await queries.insertContainer(this.db, {
      id,
      tenantId,
      name: input.name.trim(),
      region: input.region,
      status: 'provisioning',
      config: input.config.trim(),
      upstreamUrl: input.upstream_url ?? null,
      runtime,
      settings,
      defaultHostname: `${id.slice(4)}.${this.settings.gatewayBaseDomain}`,
    });
    await this.events.record(
      tenantId,
      'container.status_changed',
      { type: 'container', id },
      { from: null, to: 'provisioning' },
    );
    await this.runtime.enqueue(id);
    return this.present(row);
  }

  async list(tenantId: string, window: ListWindow) {
    const { rows, total } = await queries.listContainers(this.db, tenantId, window);
    return { results: await Promise.all(rows.map((row) => this.present(row))), total };
  }

  async find(tenantId: string, id: string): Promise<ContainerRow> {
    const row = await queries.findContainer(this.db, tenantId, id);
    if (!row) throw ContainerErrors.notFound(id);
    return row;
  }

  /** The default hostnames of the tenant's containers among `ids`, by id (one query for a page of domains). */
  async defaultHostnames(tenantId: string, ids: string[]): Promise<Map<string, string>> {
    const rows = await queries.findDefaultHostnames(this.db, tenantId, [...new Set(ids)]);
    return new Map(rows.map((row) => [row.id, row.defaultHostname]));
  }

  /** The tenant's container unless it is deleting or deleted; null otherwise (monitor targets). */
  async findLive(tenantId: string, id: string): Promise<ContainerRow | null> {
    const row = await queries.findContainer(this.db, tenantId, id);
    return row && !REMOVED_STATUSES.includes(row.status) ? row : null;
  }

  async get(tenantId: string, id: string): Promise<ContainerDto> {
    return this.present(await this.find(tenantId, id));
  }

  /** Requests and body bytes per day, hostname and status class over `from`..`to` (UTC days; default the last 30). */
  async usage(tenantId: string, id: string, period: UsagePeriod): Promise<UsageDto> {
    await this.find(tenantId, id);
    await this.traffic.flush();
    const to = period.to ?? new Date().toISOString().slice(0, 10);
    const from = period.from ?? new Date(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS).toISOString().slice(0, 10);
    if (from > to) throw ContainerErrors.periodReversed();
    if (Date.parse(to) - Date.parse(from) > 366 * DAY_MS) throw ContainerErrors.periodTooLong();
    const rows = (await queries.usage(this.db, id, from, to)).sort(
      (a, b) =>
        a.day.localeCompare(b.day) ||
        a.hostname.localeCompare(b.hostname) ||
        a.statusClass.localeCompare(b.statusClass),
    );
    const total = sumUsage(rows, () => 'all').get('all');
    const runtimeDays = (await queries.runtimeUsage(this.db, id, from, to)).map(runtimeCountsOf);
    return {
      container_id: id,
      from,
      to,
      total_requests: total?.requests ?? 0,
      total_request_bytes: total?.request_bytes ?? 0,
      total_response_bytes: total?.response_bytes ?? 0,
      days: [...sumUsage(rows, (row) => row.day)].map(([day, sums]) => ({ day, ...sums })),
      by_hostname: [...sumUsage(rows, (row) => row.hostname)]
        .map(([hostname, sums]) => ({ hostname, ...sums }))
        .sort((a, b) => b.requests - a.requests),
      by_status_class: Object.fromEntries(
        [...sumUsage(rows, (row) => row.statusClass)].map(([statusClass, sums]) => [statusClass, sums.requests]),
      ),
      runtime: { totals: sumRuntimeCounts(runtimeDays), days: runtimeDays },
      rows: rows.map((row) => ({
        day: row.day,
        hostname: row.hostname,
        status_class: row.statusClass,
        requests: row.requests,
        request_bytes: row.requestBytes,
        response_bytes: row.responseBytes,
      })),
    };
  }

  /**
   * A page of the container's sampled request logs, newest first, after writing the gateway's pending ones;
   * filtered by status class, path prefix and time.
   */
  async logs(
    tenantId: string,
    id: string,
    filter: LogsFilter,
    window: ListWindow,
  ): Promise<{ results: RequestLogDto[]; total: number }> {
    await this.find(tenantId, id);
    const from = filter.from ? new Date(filter.from) : undefined;
    const to = filter.to ? new Date(filter.to) : undefined;
    if (from && to && from > to) throw ContainerErrors.periodReversed();
    await this.traffic.flush();
    const { rows, total } = await queries.listRequestLogs(
      this.db,
      id,
      { statusClass: filter.status_class, pathPrefix: filter.path_prefix, from, to },
      window,
    );
    return {
      results: rows.map((row) => ({
        id: row.id,
        at: row.at.toISOString(),
        hostname: row.hostname,
        method: row.method,
        path: row.path,
        status_code: row.statusCode,
        duration_ms: row.durationMs,
        upstream: row.upstream,
        upstream_ms: row.upstreamMs,
      })),
      total,
    };
  }

  async update(tenantId: string, id: string, input: UpdateContainerInput): Promise<ContainerDto> {
    if (input.config !== undefined) parseContainerConfig(input.config);
    const current = await this.find(tenantId, id);
    const upstreamUrl = input.upstream_url === undefined ? current.upstreamUrl : input.upstream_url;
    checkRuntime(input.runtime ?? (current.runtime as ContainerRuntimeKind), upstreamUrl);
    const settings =
      input.settings === undefined ? undefined : changedSettings(settingsFromStored(current.settings), input.settings);
    await this.checkUpstream(input.upstream_url);
    const row = await queries.updateContainer(this.db, tenantId, id, {
      name: input.name?.trim(),
      config: input.config?.trim(),
      upstreamUrl: input.upstream_url === undefined ? undefined : input.upstream_url,
      runtime: input.runtime,
      settings,
    });
    if (row) {
      await this.invalidations.publish({ kind: 'container', id });
      return this.present(row);
    }
    throw ContainerErrors.notChangeable((await this.find(tenantId, id)).status);
  }

  /** start / stop / restart / delete: an atomic move to the transitional state, then the worker finishes it. */
  async act(tenantId: string, id: string, action: ContainerAction): Promise<ContainerDto> {
    const current = await this.find(tenantId, id);
    const { from, to } = TRANSITIONS[action];
    const row = await queries.transition(this.db, id, from, {
      status: to,
      statusReason: null,
      pendingAction: action === 'restart' ? 'start' : null,
    });
    if (!row) {
      const latest = await this.find(tenantId, id);
      const allowed = allowedActions(latest.status);
      throw ContainerErrors.transitionNotAllowed(action, latest.status, allowed);
    }
    await this.events.record(
      tenantId,
      'container.status_changed',
      { type: 'container', id },
      { from: current.status, to, action },
    );
    await this.runtime.enqueue(id);
    return this.present(row);
  }
}
