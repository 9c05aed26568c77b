import type { Database } from '../../db/index.js';
import type { ScheduleRunRow } from '../../db/schema.js';
import type { ListWindow } from '../../lib/list-window.js';
import type { ContainerService } from '../containers/service.js';
import { DEFAULT_DELAYED_DELIVERY, DelayedDelivery } from './delivery.js';
import * as queries from './queries.js';
import { Scheduler } from './scheduler.js';
import { GatewaySender } from './sender.js';
import type { DelayedRequestDto, DelayedRequestFilter, ScheduleRunDto, ScheduleRunFilter } from './schemas.js';

type DelayedRow = Awaited<ReturnType<typeof queries.listDelayed>>['rows'][number];

function toDelayedDto(row: DelayedRow): DelayedRequestDto {
  return {
    id: row.id,
    method: row.method,
    path: row.path,
    body_bytes: Number(row.bodyBytes),
    body_start: Buffer.from(row.bodyStart ?? []).toString('utf8'),
    delay_minutes: row.delayMinutes,
    status: row.status,
    due_at: row.dueAt.toISOString(),
    attempts: row.attempts,
    http_status: row.httpStatus,
    error: row.error,
    finished_at: row.finishedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

function toRunDto(row: ScheduleRunRow): ScheduleRunDto {
  return {
    id: row.id,
    schedule: row.scheduleName,
    due_at: row.dueAt.toISOString(),
    status: row.status,
    http_status: row.httpStatus,
    error: row.error,
    duration_ms: row.durationMs,
    started_at: row.startedAt.toISOString(),
  };
}

/**
 * Request Delay and Schedule: what tenants see of their containers' delayed requests and scheduled runs, and the
 * periodic steps that send them (`delivery`, `scheduler`), both through the gateway at `gatewayUrl`.
 */
export class RequestPowerupService {
  readonly delivery: DelayedDelivery;
  readonly scheduler: Scheduler;
  private readonly database: Database;
  private readonly containers: ContainerService;
  private readonly sender: GatewaySender;

  constructor(
    { database, containers }: { database: Database; containers: ContainerService },
    settings: { gatewayUrl: string; timeoutMs: number; platformToken: string },
  ) {
    this.database = database;
    this.containers = containers;
    this.sender = new GatewaySender(settings);
    this.delivery = new DelayedDelivery({ database, sender: this.sender }, DEFAULT_DELAYED_DELIVERY);
    this.scheduler = new Scheduler({ database, sender: this.sender });
  }

  /** Removes delivered and failed requests and old runs kept long enough (a periodic job's step). */
  async prune(now = new Date()): Promise<void> {
    await this.delivery.prune(now);
    await this.scheduler.prune(now);
  }

  close(): Promise<void> {
    return this.sender.close();
  }

  async delayedRequests(
    tenantId: string,
    containerId: string,
    filter: DelayedRequestFilter,
    window: ListWindow,
  ): Promise<{ results: DelayedRequestDto[]; total: number }> {
    await this.containers.find(tenantId, containerId);
    const { rows, total } = await queries.listDelayed(this.database.db, containerId, filter.status, window);
    return { results: rows.map(toDelayedDto), total };
  }

  async scheduleRuns(
    tenantId: string,
    containerId: string,
    filter: ScheduleRunFilter,
    window: ListWindow,
  ): Promise<{ results: ScheduleRunDto[]; total: number }> {
    await this.containers.find(tenantId, containerId);
    const { rows, total } = await queries.listRuns(this.database.db, containerId, filter.schedule, window);
    return { results: rows.map(toRunDto), total };
  }
}
