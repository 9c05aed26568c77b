import { sql } from 'drizzle-orm';
import type { BatchedDelete } from '../../db/batched-delete.js';
import type { Database } from '../../db/index.js';
import type { MonitorRow } from '../../db/schema.js';
import { monitors } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { OutboundRefusedError, type OutboundClient } from '../../lib/outbound.js';
import type { ContainerService } from '../containers/service.js';
import type { DomainService } from '../domains/service.js';
import type { MonitorChannels } from '../notifications/service.js';
import type { TenantService } from '../tenants/service.js';
import type { EventLog } from '../events/service.js';
import { MonitorErrors } from './errors.js';
import * as queries from './queries.js';
import { incidentDto, toDto } from './dto.js';
import type { CheckDto, CreateMonitorInput, IncidentDto, MonitorDto, UpdateMonitorInput } from './schemas.js';
import type { ListWindow } from '../../lib/list-window.js';

type TargetInput = CreateMonitorInput['target'];
interface ResolvedTarget {
  targetType: TargetInput['type'];
  targetId: string | null;
  url: string;
}

/** The fields each target type takes; any other field is a 400 naming it. */
const TARGET_FIELDS: Record<TargetInput['type'], { required: keyof TargetInput; allowed: Array<keyof TargetInput> }> = {
  url: { required: 'url', allowed: ['type', 'url'] },
  container: { required: 'container_id', allowed: ['type', 'container_id', 'path'] },
  domain: { required: 'domain_id', allowed: ['type', 'domain_id', 'path'] },
};

type Settings = Required<Omit<CreateMonitorInput, 'target'>> & ResolvedTarget;

function columns(settings: Settings) {
  return {
    name: settings.name,
    targetType: settings.targetType,
    targetId: settings.targetId,
    url: settings.url,
    method: settings.method,
    intervalSeconds: settings.interval_seconds,
    timeoutMs: settings.timeout_ms,
    expectedStatusCodes: settings.expected_status_codes,
    keyword: settings.keyword,
    keywordMode: settings.keyword_mode,
    degradedAfterMs: settings.degraded_after_ms,
    confirmationChecks: settings.confirmation_checks,
  };
}

export interface MonitorServiceDependencies {
  database: Database;
  outbound: OutboundClient;
  events: EventLog;
  tenants: TenantService;
  containers: ContainerService;
  domains: DomainService;
  /** The notification channels a monitor chooses (the notifications module). */
  channels: MonitorChannels;
}

/** Without a path, a container or domain target checks the container's health on the gateway (200 only when it serves). */
const HEALTH_PATH = '/healthz';

export class MonitorService {
  private readonly database: Database;
  private readonly outbound: OutboundClient;
  private readonly events: EventLog;
  private readonly tenants: TenantService;
  private readonly containers: ContainerService;
  private readonly domains: DomainService;
  private readonly channels: MonitorChannels;

  constructor({ database, outbound, events, tenants, containers, domains, channels }: MonitorServiceDependencies) {
    this.database = database;
    this.outbound = outbound;
    this.events = events;
    this.tenants = tenants;
    this.containers = containers;
    this.domains = domains;
    this.channels = channels;
  }

  private async toDtos(rows: MonitorRow[]): Promise<MonitorDto[]> {
    const channels = await this.channels.ofMonitors(rows.map((row) => row.id));
    return rows.map((row) => toDto(row, channels.get(row.id) ?? []));
  }

  private async dto(row: MonitorRow): Promise<MonitorDto> {
    return (await this.toDtos([row]))[0];
  }

  private async checkChannels(tenantId: string, ids: string[]): Promise<void> {
    const [unknown] = await this.channels.unknownIds(tenantId, ids);
    if (unknown) throw MonitorErrors.channelMissing(unknown);
  }

  private get db() {
    return this.database.db;
  }

  /** Deletes checks older than `before`, in batches (retention). */
  pruneChecks(before: Date, batches: BatchedDelete): Promise<number> {
    return queries.deleteChecksBefore(this.db, before, batches);
  }

  /**
   * Turns a target into the URL the checks request. Containers and domains must be the tenant's own (another
   * tenant's id reads as missing) and are checked at their public hostname.
   */
  private async resolveTarget(tenantId: string, target: TargetInput): Promise<ResolvedTarget> {
    const fields = TARGET_FIELDS[target.type];
    const extra = (Object.keys(target) as Array<keyof TargetInput>).find((key) => !fields.allowed.includes(key));
    if (extra) throw MonitorErrors.fieldNotForTarget(extra, target.type);
    const reference = target[fields.required];
    if (!reference) throw MonitorErrors.targetFieldMissing(fields.required, target.type);
    if (target.type === 'url') return { targetType: 'url', targetId: null, url: reference };
    const hostname =
      target.type === 'container'
        ? (await this.containers.findLive(tenantId, reference))?.defaultHostname
        : (await this.domains.findLive(tenantId, reference))?.hostname;
    if (!hostname) throw MonitorErrors.targetMissing(fields.required, target.type, reference);
    return { targetType: target.type, targetId: reference, url: `https://${hostname}${target.path ?? HEALTH_PATH}` };
  }

  /** Checks a full set of settings: plan minimum interval, keyword/mode pairing, regex, timeouts and the target URL. */
  private async validate(tenantId: string, settings: Settings): Promise<void> {
    const minimum = Number((await this.tenants.features(tenantId)).monitor_min_interval_seconds ?? 60);
    if (settings.interval_seconds < minimum) {
      throw MonitorErrors.intervalTooShort(minimum);
    }
    if ((settings.keyword === null) !== (settings.keyword_mode === null)) {
      throw MonitorErrors.keywordModeRequired(settings.keyword === null ? 'keyword' : 'keyword_mode');
    }
    if (settings.keyword_mode === 'regex') {
      try {
        new RegExp(settings.keyword!, 'u');
      } catch (error) {
        throw MonitorErrors.invalidRegex((error as Error).message);
      }
    }
    if (settings.degraded_after_ms !== null && settings.degraded_after_ms >= settings.timeout_ms) {
      throw MonitorErrors.degradedAfterTooLong();
    }
    // Container and domain hostnames may not resolve yet (a domain still being set up); every check goes
    // through the same guard, so only URL targets are refused up front.
    if (settings.targetType !== 'url') return;
    try {
      await this.outbound.checkUrl(settings.url);
    } catch (error) {
      if (error instanceof OutboundRefusedError) throw MonitorErrors.targetRefused(error);
      throw error;
    }
  }

  async create(tenantId: string, input: CreateMonitorInput): Promise<MonitorDto> {
    const features = await this.tenants.features(tenantId);
    const limit = Number(features.max_monitors ?? 0);
    if ((await queries.countMonitors(this.db, tenantId)) >= limit) {
      throw MonitorErrors.planLimitReached(limit);
    }
    const settings: Settings = {
      name: input.name.trim(),
      ...(await this.resolveTarget(tenantId, input.target)),
      method: input.method ?? 'GET',
      interval_seconds: input.interval_seconds ?? Math.max(60, Number(features.monitor_min_interval_seconds ?? 60)),
      timeout_ms: input.timeout_ms ?? 10_000,
      expected_status_codes: input.expected_status_codes ?? ['2xx'],
      keyword: input.keyword ?? null,
      keyword_mode: input.keyword_mode ?? null,
      degraded_after_ms: input.degraded_after_ms ?? null,
      confirmation_checks: input.confirmation_checks ?? 2,
      notification_channel_ids: input.notification_channel_ids ?? [],
    };
    await this.validate(tenantId, settings);
    await this.checkChannels(tenantId, settings.notification_channel_ids);
    const row = await queries.insertMonitor(this.db, {
      id: newId('monitor'),
      tenantId,
      status: 'pending',
      ...columns(settings),
    });
    await this.channels.attach(row.id, settings.notification_channel_ids);
    return this.dto(row);
  }

  async list(tenantId: string, window: ListWindow) {
    const { rows, total } = await queries.listMonitors(this.db, tenantId, window);
    return { results: await this.toDtos(rows), total };
  }

  private async find(tenantId: string, id: string): Promise<MonitorRow> {
    const row = await queries.findMonitor(this.db, tenantId, id);
    if (!row) throw MonitorErrors.notFound(id);
    return row;
  }

  async get(tenantId: string, id: string): Promise<MonitorDto> {
    return this.dto(await this.find(tenantId, id));
  }

  async update(tenantId: string, id: string, input: UpdateMonitorInput): Promise<MonitorDto> {
    const row = await this.find(tenantId, id);
    const current = await this.dto(row);
    const merged = { ...current, ...input };
    const target: ResolvedTarget = input.target
      ? await this.resolveTarget(tenantId, input.target)
      : { targetType: current.target.type, targetId: row.targetId, url: row.url };
    const settings: Settings = {
      name: merged.name.trim(),
      ...target,
      method: merged.method,
      interval_seconds: merged.interval_seconds,
      timeout_ms: merged.timeout_ms,
      expected_status_codes: merged.expected_status_codes,
      keyword: merged.keyword,
      keyword_mode: merged.keyword_mode,
      degraded_after_ms: merged.degraded_after_ms,
      confirmation_checks: merged.confirmation_checks,
      notification_channel_ids: merged.notification_channel_ids,
    };
    await this.validate(tenantId, settings);
    await this.checkChannels(tenantId, settings.notification_channel_ids);
    const updated = await queries.updateMonitor(this.db, tenantId, id, columns(settings));
    if (!updated) throw MonitorErrors.notFound(id);
    if (input.notification_channel_ids) await this.channels.attach(id, input.notification_channel_ids);
    return this.dto(updated);
  }

  async delete(tenantId: string, id: string): Promise<MonitorDto> {
    const channels = await this.channels.ofMonitors([id]);
    const row = await queries.deleteMonitor(this.db, tenantId, id);
    if (!row) throw MonitorErrors.notFound(id);
    return toDto(row, channels.get(id) ?? []);
  }

  async pause(tenantId: string, id: string): Promise<MonitorDto> {
    const row = await queries.updateMonitor(
      this.db,
      tenantId,
      id,
      { paused: true, status: 'paused' },
      sql`${monitors.paused} = false`,
    );
    if (row) return this.dto(row);
    await this.find(tenantId, id);
    throw MonitorErrors.alreadyPaused();
  }

  async resume(tenantId: string, id: string): Promise<MonitorDto> {
    const row = await queries.updateMonitor(
      this.db,
      tenantId,
      id,
      { paused: false, status: 'pending', consecutiveFailures: 0, nextCheckAt: new Date() },
      sql`${monitors.paused} = true`,
    );
    if (row) return this.dto(row);
    await this.find(tenantId, id);
    throw MonitorErrors.notPaused();
  }

  async checks(tenantId: string, id: string, window: ListWindow) {
    await this.find(tenantId, id);
    const { rows, total } = await queries.listChecks(this.db, id, window);
    const results: CheckDto[] = rows.map((row) => ({
      id: row.id,
      checked_at: row.checkedAt.toISOString(),
      result: row.result,
      status_code: row.statusCode,
      latency_ms: row.latencyMs,
      timings: row.timings,
      error: row.error,
    }));
    return { results, total };
  }

  async stats(tenantId: string, id: string) {
    await this.find(tenantId, id);
    const window = async (hours: number) => {
      const row = await queries.windowStats(this.db, id, hours);
      const round = (value: number | null) => (value === null ? null : Math.round(Number(value) * 10) / 10);
      return {
        uptime_pct: row.checks === 0 ? null : Math.round((row.up / row.checks) * 100_000) / 1000,
        checks: row.checks,
        p50_ms: round(row.p50),
        p95_ms: round(row.p95),
        p99_ms: round(row.p99),
      };
    };
    return {
      monitor_id: id,
      last_24h: await window(24),
      last_7d: await window(24 * 7),
      last_30d: await window(24 * 30),
    };
  }

  async incidents(
    tenantId: string,
    filters: { status?: IncidentDto['status']; monitorId?: string },
    window: ListWindow,
  ) {
    const { rows, total } = await queries.listIncidents(this.db, tenantId, filters, window);
    return { results: rows.map(incidentDto), total };
  }

  async acknowledge(tenantId: string, id: string): Promise<IncidentDto> {
    const row = await queries.transitionIncident(this.db, tenantId, id, ['open'], {
      status: 'acknowledged',
      acknowledgedAt: new Date(),
    });
    if (row) {
      await this.events.record(
        tenantId,
        'incident.acknowledged',
        { type: 'incident', id: row.id },
        { incident_id: row.id, ...(await this.monitorFields(tenantId, row.monitorId)) },
      );
      return incidentDto(row);
    }
    return this.refuseTransition(tenantId, id, 'acknowledge');
  }

  async resolve(tenantId: string, id: string): Promise<IncidentDto> {
    const row = await queries.transitionIncident(this.db, tenantId, id, ['open', 'acknowledged'], {
      status: 'resolved',
      resolvedAt: new Date(),
    });
    if (row) {
      await this.events.record(
        tenantId,
        'incident.resolved',
        { type: 'incident', id: row.id },
        { incident_id: row.id, ...(await this.monitorFields(tenantId, row.monitorId)), resolved_by: 'user' },
      );
      return incidentDto(row);
    }
    return this.refuseTransition(tenantId, id, 'resolve');
  }

  /** What incident events say of their monitor. */
  private async monitorFields(tenantId: string, monitorId: string) {
    const monitor = await queries.findMonitor(this.db, tenantId, monitorId);
    return { monitor_id: monitorId, ...(monitor ? { name: monitor.name, url: monitor.url } : {}) };
  }

  private async refuseTransition(tenantId: string, id: string, action: string): Promise<never> {
    const incident = await queries.findIncident(this.db, tenantId, id);
    if (!incident) throw MonitorErrors.incidentNotFound(id);
    const allowed =
      incident.status === 'open' ? ['acknowledge', 'resolve'] : incident.status === 'acknowledged' ? ['resolve'] : [];
    throw MonitorErrors.incidentTransitionNotAllowed(action, incident.status, allowed);
  }
}
