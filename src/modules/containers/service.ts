import type { Database } from '../../db/index.js';
import type { InvalidationBus } from '../../db/invalidation.js';
import type { ContainerRow } from '../../db/schema.js';
import { planLimitReached } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { OutboundRefusedError, type OutboundClient } from '../../lib/outbound.js';
import type { EventLog } from '../events/service.js';
import type { TenantService } from '../tenants/service.js';
import { ContainerErrors } from './errors.js';
import { type ContainerHealthCheck, healthOf } from './health.js';
import * as queries from './queries.js';
import { runtimeCountsOf, usageReport } from './usage.js';
import type { ContainerTaggingServers } from './tagging.js';
import { parseContainerConfig } from './config-string.js';
import { fileProxyProblem } from './file-proxy-paths.js';
import { allowedActions, toContainerDto, toRequestLogDto } from './presenter.js';

export { allowedActions, toContainerDto } from './presenter.js';

export { parseContainerConfig } from './config-string.js';
import { OrchestratorUnavailableError } from '../tagging-servers/orchestrator.js';
import { checkSchedule } from '../request-powerups/errors.js';
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
  REMOVED_STATUSES,
  TRANSITIONS,
  type ContainerAction,
  type ContainerDto,
  type CreateContainerInput,
  type LogsFilter,
  type RequestLogDto,
  type UpdateContainerInput,
  type UsageDto,
  type UsagePeriod,
} from './schemas.js';
import type { ListWindow } from '../../lib/list-window.js';

const DAY_MS = 86_400_000;

/** The settings with `change` merged in, refusing a loader path or proxied file paths that cannot be used. */
function changedSettings(current: ContainerSettingsDto, change: ContainerSettingsChangeInput | undefined) {
  if (change?.loader_path !== undefined) {
    const problem = loaderPathProblem(change.loader_path);
    if (problem) throw ContainerErrors.invalidLoaderPath(problem);
  }
  checkSchedule(change?.schedule);
  if (!change) return current;
  const merged = mergeSettings(current, change);
  const filePathProblem = fileProxyProblem(merged);
  if (filePathProblem) throw ContainerErrors.invalidFilePath(filePathProblem);
  return merged;
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
  /** The sealed config and the Google tagging servers of `sgtm` containers. */
  tagging: ContainerTaggingServers;
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
  private readonly tagging: ContainerTaggingServers;

  constructor(
    {
      database,
      outbound,
      events,
      runtime,
      tenants,
      traffic,
      invalidations,
      health,
      tagging,
    }: ContainerServiceDependencies,
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
    this.tagging = tagging;
  }

  /** The container as the API shows it, with its health checked when it runs and its tagging servers' state. */
  private async present(row: ContainerRow): Promise<ContainerDto> {
    const [health, taggingServer] = await Promise.all([healthOf(this.health, row), this.tagging.status(row)]);
    return toContainerDto(row, { health, config: this.tagging.configOf(row), taggingServer });
  }

  /** Why runtime `sgtm` cannot be chosen on this instance, or null when it can. */
  get sgtmUnavailable(): string | null {
    return this.tagging.hosting.unavailable;
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
    const gtmContainerId = parseContainerConfig(input.config);
    const runtime = input.runtime ?? (input.upstream_url ? 'upstream' : 'builtin');
    checkRuntime(runtime, input.upstream_url ?? null);
    const settings = changedSettings(defaultSettings(generateLoaderPath()), input.settings);
    await this.tagging.check(tenantId, runtime, settings);
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
      config: this.tagging.seal(id, input.config.trim()),
      gtmContainerId,
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
    const runtimeDays = (await queries.runtimeUsage(this.db, id, from, to)).map(runtimeCountsOf);
    return usageReport({ containerId: id, from, to, rows, runtimeDays });
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
      results: rows.map(toRequestLogDto),
      total,
    };
  }

  async update(tenantId: string, id: string, input: UpdateContainerInput): Promise<ContainerDto> {
    const gtmContainerId = input.config === undefined ? undefined : parseContainerConfig(input.config);
    const current = await this.find(tenantId, id);
    const upstreamUrl = input.upstream_url === undefined ? current.upstreamUrl : input.upstream_url;
    const runtime = input.runtime ?? current.runtime;
    checkRuntime(runtime, upstreamUrl);
    const settings =
      input.settings === undefined ? undefined : changedSettings(settingsFromStored(current.settings), input.settings);
    await this.tagging.check(tenantId, runtime, settings ?? settingsFromStored(current.settings));
    await this.checkUpstream(input.upstream_url);
    const changes = {
      name: input.name?.trim(),
      config: input.config === undefined ? undefined : this.tagging.seal(id, input.config.trim()),
      gtmContainerId,
      upstreamUrl: input.upstream_url === undefined ? undefined : input.upstream_url,
      runtime: input.runtime,
      settings,
    };
    const changed: ContainerRow = { ...current, ...definedOf(changes) };
    await this.applyTaggingServers(current, changed);
    const row = await queries.updateContainer(this.db, tenantId, id, changes);
    if (!row) throw ContainerErrors.notChangeable((await this.find(tenantId, id)).status);
    await this.invalidations.publish({ kind: 'container', id });
    return this.present(current.runtime !== 'sgtm' && row.runtime === 'sgtm' ? await this.startOnSgtm(row) : row);
  }

  /**
   * Before an update is saved (so a change the orchestrator could not take is not kept): a running container on
   * `sgtm` gets the changed spec rolled out, one replica at a time; one leaving `sgtm` loses its tagging servers.
   */
  private async applyTaggingServers(before: ContainerRow, changed: ContainerRow): Promise<void> {
    await this.orchestrated(async () => {
      if (before.runtime === 'sgtm' && changed.runtime !== 'sgtm') await this.tagging.hosting.remove(changed.id);
      if (changed.runtime === 'sgtm' && changed.status === 'running')
        await this.tagging.hosting.apply(await this.tagging.spec(changed));
    });
  }

  /** A running container that moved to `sgtm` is `starting` until its tagging servers are available. */
  private async startOnSgtm(row: ContainerRow): Promise<ContainerRow> {
    const starting = await queries.transition(this.db, row.id, ['running'], { status: 'starting' });
    if (!starting) return row;
    await this.invalidations.publish({ kind: 'container', id: row.id });
    await this.runtime.enqueue(row.id);
    return starting;
  }

  /** Runs an orchestrator call, answering 503 in our format when the orchestrator cannot be reached. */
  private async orchestrated<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof OrchestratorUnavailableError) throw ContainerErrors.orchestratorUnavailable(error);
      throw error;
    }
  }

  /** start / stop / restart / delete: an atomic move to the transitional state, then the worker finishes it. */
  async act(tenantId: string, id: string, action: ContainerAction): Promise<ContainerDto> {
    const current = await this.find(tenantId, id);
    if (action === 'restart' && current.runtime === 'sgtm' && current.status === 'running')
      return this.rollingRestart(current);
    // An action the orchestrator could not carry out is refused now rather than left hanging in a transition.
    if (current.runtime === 'sgtm' && !this.tagging.hosting.unavailable)
      await this.orchestrated(() => this.tagging.hosting.observe(id));
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

  /** `sgtm` restarts replace the replicas one by one while the container keeps serving (a rollout restart). */
  private async rollingRestart(current: ContainerRow): Promise<ContainerDto> {
    await this.orchestrated(() => this.tagging.hosting.restart(current.id));
    await this.events.record(
      current.tenantId,
      'container.status_changed',
      { type: 'container', id: current.id },
      { from: 'running', to: 'running', action: 'restart' },
    );
    return this.present(current);
  }

  /** The newest `lines` lines of each of the container's tagging servers (none unless its runtime is `sgtm`). */
  async taggingServerLogs(tenantId: string, id: string, lines: number) {
    const row = await this.find(tenantId, id);
    const logs = row.runtime === 'sgtm' ? await this.orchestrated(() => this.tagging.hosting.logs(id, lines)) : [];
    return { container_id: id, lines: logs };
  }
}

/** Each field of `T` left out or set, never undefined. */
type Defined<T> = { [K in keyof T]?: Exclude<T[K], undefined> };

/** The fields of a change that are set (undefined: left as they are). */
function definedOf<T extends object>(changes: T): Defined<T> {
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Defined<T>;
}
