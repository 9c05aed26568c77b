import type { Database } from '../../db/index.js';
import type { TrackingIncidentRow, TrackingMonitorRow, TrackingRunRow } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import type { ListWindow } from '../../lib/list-window.js';
import { ScanTargetRefusedError } from '../../scanner/errors.js';
import { SsrfGuard } from '../../scanner/ssrf.js';
import type { ContainerService } from '../containers/service.js';
import type { MonitorChannels } from '../notifications/service.js';
import type { TenantService } from '../tenants/service.js';
import { withRuleChanges } from './diff.js';
import { TrackingMonitorErrors } from './errors.js';
import * as queries from './queries.js';
import type { TrackingRuns } from './runs.js';
import type {
  CreateTrackingMonitorInput,
  TrackingIncidentDto,
  TrackingMonitorDto,
  TrackingRunDto,
  UpdateTrackingMonitorInput,
} from './schemas.js';

const iso = (date: Date | null) => date?.toISOString() ?? null;

function toDto(row: TrackingMonitorRow, openIncidentId: string | null): TrackingMonitorDto {
  return {
    id: row.id,
    name: row.name,
    pages: row.pages,
    follow_links: row.followLinks,
    interval_seconds: row.intervalSeconds,
    consent_check: row.consentCheck,
    loss_threshold_pct: row.lossThresholdPct,
    container_id: row.containerId,
    notification_channel_ids: row.notificationChannelIds,
    // Rules added after the monitor was saved show with their defaults.
    rules: withRuleChanges(row.rules),
    status: row.paused ? 'paused' : row.status,
    baseline_run_id: row.baselineRunId,
    open_incident_id: openIncidentId,
    last_run_at: iso(row.lastRunAt),
    next_run_at: row.paused ? null : iso(row.nextRunAt),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function runDto(row: TrackingRunRow): TrackingRunDto {
  return {
    id: row.id,
    monitor_id: row.monitorId,
    result: row.result,
    trigger: row.trigger,
    due_at: row.dueAt.toISOString(),
    started_at: iso(row.startedAt),
    finished_at: iso(row.finishedAt),
    error: row.error,
    changes: row.changes,
    pages: row.pages,
  };
}

function incidentDto(row: TrackingIncidentRow): TrackingIncidentDto {
  return {
    id: row.id,
    monitor_id: row.monitorId,
    status: row.status,
    severity: row.severity,
    opened_run_id: row.openedRunId,
    last_run_id: row.lastRunId,
    changes: row.changes,
    resolution: row.resolution,
    opened_at: row.openedAt.toISOString(),
    resolved_at: iso(row.resolvedAt),
  };
}

export interface TrackingMonitorServiceDependencies {
  database: Database;
  tenants: TenantService;
  containers: Pick<ContainerService, 'findLive'>;
  channels: Pick<MonitorChannels, 'unknownIds'>;
  runs: TrackingRuns;
}

type Settings = Omit<queries.MonitorInsert, 'id' | 'tenantId' | 'status'>;

/** Tracking monitors: their settings, runs, baseline and incidents (the runs themselves are in runs.ts). */
export class TrackingMonitorService {
  private readonly database: Database;
  private readonly tenants: TenantService;
  private readonly containers: Pick<ContainerService, 'findLive'>;
  private readonly channels: Pick<MonitorChannels, 'unknownIds'>;
  private readonly runs: TrackingRuns;

  constructor({ database, tenants, containers, channels, runs }: TrackingMonitorServiceDependencies) {
    this.database = database;
    this.tenants = tenants;
    this.containers = containers;
    this.channels = channels;
    this.runs = runs;
  }

  private get db() {
    return this.database.db;
  }

  private async dtos(rows: TrackingMonitorRow[]): Promise<TrackingMonitorDto[]> {
    const open = await queries.openIncidentIds(
      this.db,
      rows.map((row) => row.id),
    );
    return rows.map((row) => toDto(row, open.get(row.id) ?? null));
  }

  private async dto(row: TrackingMonitorRow): Promise<TrackingMonitorDto> {
    return (await this.dtos([row]))[0];
  }

  private async find(tenantId: string, id: string): Promise<TrackingMonitorRow> {
    const row = await queries.findMonitor(this.db, tenantId, id);
    if (!row) throw TrackingMonitorErrors.notFound(id);
    return row;
  }

  /** Plan limits (interval, pages), page URLs, channels and the linked container. */
  private async checked(tenantId: string, settings: Settings): Promise<Settings> {
    const features = await this.tenants.features(tenantId);
    const minimum = Number(features.tracking_monitor_min_interval_seconds ?? 3600);
    if (settings.intervalSeconds < minimum) throw TrackingMonitorErrors.intervalTooShort(minimum);
    const maxPages = Number(features.tracking_monitor_max_pages ?? 3);
    if (settings.pages.length + settings.followLinks > maxPages) throw TrackingMonitorErrors.tooManyPages(maxPages);
    settings.pages.forEach((page, index) => {
      try {
        SsrfGuard.parseTarget(page);
      } catch (error) {
        if (error instanceof ScanTargetRefusedError) throw TrackingMonitorErrors.invalidPage(index, error.message);
        throw error;
      }
    });
    const [unknown] = await this.channels.unknownIds(tenantId, settings.notificationChannelIds);
    if (unknown) throw TrackingMonitorErrors.channelMissing(unknown);
    if (settings.containerId && !(await this.containers.findLive(tenantId, settings.containerId)))
      throw TrackingMonitorErrors.containerMissing(settings.containerId);
    return settings;
  }

  async create(tenantId: string, input: CreateTrackingMonitorInput): Promise<TrackingMonitorDto> {
    const features = await this.tenants.features(tenantId);
    const limit = Number(features.max_tracking_monitors ?? 0);
    if ((await queries.countMonitors(this.db, tenantId)) >= limit) throw TrackingMonitorErrors.planLimitReached(limit);
    const settings = await this.checked(tenantId, {
      name: input.name.trim(),
      pages: input.pages,
      followLinks: input.follow_links ?? 0,
      intervalSeconds:
        input.interval_seconds ?? Math.max(86_400, Number(features.tracking_monitor_min_interval_seconds ?? 3600)),
      consentCheck: input.consent_check ?? true,
      lossThresholdPct: input.loss_threshold_pct ?? 10,
      rules: withRuleChanges({}, input.rules),
      containerId: input.container_id ?? null,
      notificationChannelIds: input.notification_channel_ids ?? [],
    });
    const row = await queries.insertMonitor(this.db, {
      id: newId('trackingMonitor'),
      tenantId,
      status: 'pending',
      ...settings,
    });
    return this.dto(row);
  }

  async list(tenantId: string, window: ListWindow) {
    const { rows, total } = await queries.listMonitors(this.db, tenantId, window);
    return { results: await this.dtos(rows), total };
  }

  async get(tenantId: string, id: string): Promise<TrackingMonitorDto> {
    return this.dto(await this.find(tenantId, id));
  }

  /**
   * Changes the given fields. New pages, followed links or another container make the baseline stale: the next
   * good run becomes the new baseline (an open incident stays open until then).
   */
  async update(tenantId: string, id: string, input: UpdateTrackingMonitorInput): Promise<TrackingMonitorDto> {
    const row = await this.find(tenantId, id);
    const settings = await this.checked(tenantId, {
      name: input.name?.trim() ?? row.name,
      pages: input.pages ?? row.pages,
      followLinks: input.follow_links ?? row.followLinks,
      intervalSeconds: input.interval_seconds ?? row.intervalSeconds,
      consentCheck: input.consent_check ?? row.consentCheck,
      lossThresholdPct: input.loss_threshold_pct ?? row.lossThresholdPct,
      rules: withRuleChanges(row.rules, input.rules),
      containerId: input.container_id === undefined ? row.containerId : input.container_id,
      notificationChannelIds: input.notification_channel_ids ?? row.notificationChannelIds,
    });
    const scopeChanged =
      JSON.stringify(settings.pages) !== JSON.stringify(row.pages) ||
      settings.followLinks !== row.followLinks ||
      settings.containerId !== row.containerId;
    const rescheduled = settings.intervalSeconds !== row.intervalSeconds ? { nextRunAt: new Date() } : {};
    const updated = await queries.updateMonitor(this.db, id, {
      ...settings,
      ...rescheduled,
      ...(scopeChanged ? { baselineRunId: null } : {}),
    });
    return this.dto(updated);
  }

  async delete(tenantId: string, id: string): Promise<TrackingMonitorDto> {
    const dto = await this.get(tenantId, id);
    await queries.deleteMonitor(this.db, id);
    return dto;
  }

  async pause(tenantId: string, id: string): Promise<TrackingMonitorDto> {
    const row = await this.find(tenantId, id);
    if (row.paused) throw TrackingMonitorErrors.alreadyPaused();
    return this.dto(await queries.updateMonitor(this.db, id, { paused: true }));
  }

  async resume(tenantId: string, id: string): Promise<TrackingMonitorDto> {
    const row = await this.find(tenantId, id);
    if (!row.paused) throw TrackingMonitorErrors.notPaused();
    return this.dto(await queries.updateMonitor(this.db, id, { paused: false, nextRunAt: new Date() }));
  }

  async runNow(tenantId: string, id: string): Promise<TrackingRunDto> {
    return runDto(await this.runs.runNow(await this.find(tenantId, id)));
  }

  async listRuns(tenantId: string, id: string, window: ListWindow) {
    await this.find(tenantId, id);
    const { rows, total } = await queries.listRuns(this.db, id, window);
    return { results: rows.map(runDto), total };
  }

  async getRun(tenantId: string, id: string, runId: string): Promise<TrackingRunDto> {
    await this.find(tenantId, id);
    const run = await queries.findRun(this.db, id, runId);
    if (!run) throw TrackingMonitorErrors.runNotFound(runId);
    return runDto(run);
  }

  async listIncidents(tenantId: string, id: string, window: ListWindow) {
    await this.find(tenantId, id);
    const { rows, total } = await queries.listIncidents(this.db, id, window);
    return { results: rows.map(incidentDto), total };
  }

  /** Makes a run (default: the latest with pages to compare) the baseline and resolves the open incident. */
  async acceptBaseline(tenantId: string, id: string, runId: string | undefined): Promise<TrackingMonitorDto> {
    const monitor = await this.find(tenantId, id);
    const run = runId ? await queries.findRun(this.db, id, runId) : await queries.latestComparableRun(this.db, id);
    if (!run) throw runId ? TrackingMonitorErrors.runNotFound(runId) : TrackingMonitorErrors.noRunToAccept();
    if (!['baseline', 'matched', 'changed'].includes(run.result))
      throw TrackingMonitorErrors.runNotComparable(run.result);
    const updated = await queries.updateMonitor(this.db, id, { baselineRunId: run.id, status: 'passing' });
    await this.runs.resolve(monitor, 'baseline_accepted');
    return this.dto(updated);
  }
}
