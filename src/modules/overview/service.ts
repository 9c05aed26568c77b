import type { Database } from '../../db/index.js';
import type { AuthContext } from '../../http/context.js';
import type { TenantService } from '../tenants/service.js';
import type { TrackingCheckerService } from '../tracking-checker/service.js';
import * as queries from './queries.js';
import type { AttentionItemDto, AttentionReason, NextStep, OverviewDto } from './schemas.js';
import { ATTENTION_REASONS } from './schemas.js';
import { CONTAINER_STATUSES } from '../containers/schemas.js';
import { MONITOR_STATUSES } from '../monitors/schemas.js';

const ATTENTION_LIMIT = 20;
const INCIDENT_LIMIT = 10;
const LATEST_SCANS = 5;
const TRAFFIC_DAYS = 30;
const DAY_MS = 86_400_000;

const STEPS: Record<NextStep, { title: string; href: string }> = {
  create_api_key: { title: 'Create an API key', href: '/dashboard/api-keys' },
  add_container: { title: 'Add a container', href: '/dashboard/containers' },
  add_domain: { title: 'Add a custom domain', href: '/dashboard/containers' },
  add_monitor: { title: 'Add a monitor', href: '/dashboard/monitors' },
};

/** The dashboard's overview: one answer to "is everything OK, and what needs me?" for the tenant acted for. */
export class OverviewService {
  private readonly database: Database;
  private readonly tenants: TenantService;
  private readonly trackingChecker: TrackingCheckerService;

  constructor({
    database,
    tenants,
    trackingChecker,
  }: { database: Database; tenants: TenantService; trackingChecker: TrackingCheckerService }) {
    this.database = database;
    this.tenants = tenants;
    this.trackingChecker = trackingChecker;
  }

  async summary(auth: AuthContext): Promise<OverviewDto> {
    const tenantId = auth.tenantId;
    const [containers, traffic, monitors, scans, nextSteps, clients] = await Promise.all([
      this.containers(tenantId),
      this.traffic(tenantId),
      this.monitors(tenantId),
      this.scans(auth),
      this.nextSteps(tenantId),
      this.clients(tenantId),
    ]);
    const generated_at = new Date().toISOString();
    return { tenant_id: tenantId, generated_at, containers, traffic, monitors, scans, next_steps: nextSteps, clients };
  }

  private async containers(tenantId: string): Promise<OverviewDto['containers']> {
    const db = this.database.db;
    const [counts, attention] = await Promise.all([
      queries.containerCounts(db, tenantId),
      queries.attentionRows(db, tenantId, ATTENTION_LIMIT),
    ]);
    const by_status = countByStatus(
      CONTAINER_STATUSES.filter((status) => status !== 'deleted'),
      counts,
    );
    const total = counts.reduce((sum, row) => sum + row.count, 0);
    return { total, by_status, needs_attention: attentionItems(attention).slice(0, ATTENTION_LIMIT) };
  }

  private async traffic(tenantId: string): Promise<OverviewDto['traffic']> {
    const days = Array.from({ length: TRAFFIC_DAYS }, (_, index) =>
      new Date(Date.now() - (TRAFFIC_DAYS - 1 - index) * DAY_MS).toISOString().slice(0, 10),
    );
    const rows = await queries.requestsPerDay(this.database.db, tenantId, days[0]);
    const byDay = new Map(rows.map((row) => [row.day, row.requests]));
    const daily = days.map((day) => ({ day, requests: byDay.get(day) ?? 0 }));
    const last_30_days = daily.reduce((sum, entry) => sum + entry.requests, 0);
    return { today: daily[daily.length - 1].requests, last_30_days, daily };
  }

  private async monitors(tenantId: string): Promise<OverviewDto['monitors']> {
    const db = this.database.db;
    const [counts, uptime, incidents] = await Promise.all([
      queries.monitorCounts(db, tenantId),
      queries.uptimeWindows(db, tenantId),
      queries.unresolvedIncidents(db, tenantId, INCIDENT_LIMIT),
    ]);
    return {
      total: counts.reduce((sum, row) => sum + row.count, 0),
      by_status: countByStatus(MONITOR_STATUSES, counts),
      uptime: {
        last_24_hours: percent(uptime.dayUp, uptime.day),
        last_7_days: percent(uptime.weekUp, uptime.week),
        last_30_days: percent(uptime.monthUp, uptime.month),
      },
      open_incidents: incidents.total,
      incidents: incidents.rows.map((row) => ({
        id: row.id,
        monitor_id: row.monitorId,
        monitor_name: row.monitorName,
        status: row.status as 'open' | 'acknowledged',
        cause: row.cause,
        opened_at: row.openedAt.toISOString(),
      })),
    };
  }

  private async scans(auth: AuthContext): Promise<OverviewDto['scans']> {
    const [quota, latest] = await Promise.all([
      this.trackingChecker.quota(auth.tenantId),
      this.trackingChecker.list(auth, { kind: 'offset', limit: LATEST_SCANS, offset: 0 }),
    ]);
    return {
      hourly_quota: quota.limit,
      used_this_hour: quota.limit - quota.remaining,
      resets_in_seconds: quota.resetSeconds,
      latest: latest.results.map((scan) => ({
        scan_id: scan.scan_id,
        url: scan.url,
        status: scan.status,
        tracker_count: scan.tracker_count,
        created_at: scan.created_at,
      })),
    };
  }

  private async nextSteps(tenantId: string): Promise<OverviewDto['next_steps']> {
    const done = await queries.setupProgress(this.database.db, tenantId);
    const state: Record<NextStep, boolean> = {
      create_api_key: done.apiKey,
      add_container: done.container,
      add_domain: done.domain,
      add_monitor: done.monitor,
    };
    return (Object.keys(STEPS) as NextStep[]).map((step) => ({ step, done: Boolean(state[step]), ...STEPS[step] }));
  }

  private async clients(tenantId: string): Promise<OverviewDto['clients']> {
    if ((await this.tenants.features(tenantId)).can_own_clients !== true) return null;
    const { rows, total } = await queries.clientsInTrouble(this.database.db, tenantId, ATTENTION_LIMIT);
    return {
      total,
      needs_attention: rows.map((row) => ({
        id: row.id,
        name: row.name,
        failed_containers: row.failedContainers,
        open_incidents: row.openIncidents,
      })),
    };
  }
}

function countByStatus(statuses: readonly string[], rows: Array<{ status: string; count: number }>) {
  const counts: Record<string, number> = Object.fromEntries(statuses.map((status) => [status, 0]));
  for (const row of rows) counts[row.status] = row.count;
  return counts;
}

function percent(up: number, all: number): number | null {
  return all === 0 ? null : Math.round((up / all) * 100_000) / 1000;
}

function expiryDetail(row: { certificateNotAfter: Date | null; certificateError: string | null }): string {
  const expires = `Expires ${row.certificateNotAfter?.toISOString()}`;
  return row.certificateError ? `${expires}; the last renewal failed: ${row.certificateError}` : expires;
}

function attentionItems({
  stuckContainers,
  stuckDomains,
}: Awaited<ReturnType<typeof queries.attentionRows>>): AttentionItemDto[] {
  const items: AttentionItemDto[] = stuckContainers.map((row) => ({
    reason: row.status === 'failed' ? 'container_failed' : 'container_stopped',
    container_id: row.containerId,
    container_name: row.containerName,
    domain_id: null,
    hostname: null,
    detail: row.detail,
  }));
  for (const row of stuckDomains) {
    const domain = { container_id: row.containerId, container_name: row.containerName, domain_id: row.domainId };
    if (row.certificateStatus === 'failed') {
      items.push({ reason: 'certificate_failed', ...domain, hostname: row.hostname, detail: row.certificateError });
    } else if (row.certificateExpiring && row.certificateNotAfter) {
      items.push({ reason: 'certificate_expiring', ...domain, hostname: row.hostname, detail: expiryDetail(row) });
    }
    if (row.domainStatus !== 'active') {
      const reason: AttentionReason = row.domainStatus === 'failed' ? 'domain_failed' : 'domain_not_verified';
      items.push({ reason, ...domain, hostname: row.hostname, detail: row.failureReason });
    }
  }
  const urgency = (item: AttentionItemDto) => ATTENTION_REASONS.indexOf(item.reason);
  return items.sort((a, b) => urgency(a) - urgency(b));
}
