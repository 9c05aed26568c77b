import type { Database } from '../../db/index.js';
import type { OutgoingLogRow } from '../../db/schema.js';
import type { ListWindow } from '../../lib/list-window.js';
import type { ContainerService } from '../containers/service.js';
import * as queries from './queries.js';
import type { OutgoingLogEntryDto, OutgoingLogFilter } from './schemas.js';
import type { OutgoingLogWriter } from './writer.js';

/** Days the outgoing log is kept for a plan without `outgoing_log_retention_days`. */
export const DEFAULT_OUTGOING_LOG_RETENTION_DAYS = 7;

export interface OutgoingLogRetention {
  /** Rows per delete statement; statements per run at most (the rest waits for the next run). */
  batchSize: number;
  maxBatches: number;
}

function toDto(row: OutgoingLogRow): OutgoingLogEntryDto {
  return {
    id: row.id,
    vendor: row.vendor,
    destination: row.destination,
    event_name: row.eventName,
    event_id: row.eventId,
    request: row.request,
    status: row.status,
    http_status: row.httpStatus,
    error: row.error,
    attempts: row.attempts,
    latency_ms: row.latencyMs,
    at: row.at.toISOString(),
  };
}

/**
 * The outgoing log of containers on the built-in runtime: what was sent to GA4 and Meta and what they answered,
 * written by the gateway's `OutgoingLogWriter`, read by tenants per container, kept as long as their plan says.
 */
export class OutgoingLogService {
  private readonly database: Database;
  private readonly containers: ContainerService;
  /** This process's writer, flushed before a read so the newest forwards show; null without the gateway role. */
  private readonly writer: OutgoingLogWriter | null;

  constructor(
    {
      database,
      containers,
      writer,
    }: { database: Database; containers: ContainerService; writer: OutgoingLogWriter | null },
    private readonly retention: OutgoingLogRetention,
  ) {
    this.database = database;
    this.containers = containers;
    this.writer = writer;
  }

  /** Writes what this process's writer holds (tests, shutdown). */
  flush(): Promise<void> {
    return this.writer?.flush() ?? Promise.resolve();
  }

  async list(
    tenantId: string,
    containerId: string,
    filter: OutgoingLogFilter,
    window: ListWindow,
  ): Promise<{ results: OutgoingLogEntryDto[]; total: number }> {
    await this.containers.find(tenantId, containerId);
    await this.flush();
    const { rows, total } = await queries.listOutgoing(
      this.database.db,
      containerId,
      {
        vendor: filter.vendor,
        status: filter.status,
        eventName: filter.event_name,
        eventId: filter.event_id,
        since: filter.since ? new Date(filter.since) : undefined,
      },
      window,
    );
    return { results: rows.map(toDto), total };
  }

  /** Deletes rows older than their tenant's plan keeps them, in batches; returns how many. A periodic job's step. */
  async prune(now = new Date()): Promise<number> {
    let total = 0;
    for (let batch = 0; batch < this.retention.maxBatches; batch++) {
      const deleted = await queries.deleteExpiredBatch(
        this.database.db,
        now,
        DEFAULT_OUTGOING_LOG_RETENTION_DAYS,
        this.retention.batchSize,
      );
      total += deleted;
      if (deleted < this.retention.batchSize) break;
    }
    return total;
  }
}
