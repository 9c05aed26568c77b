import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/index.js';
import { monitors, type MonitorRow } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { startLoop } from '../../lib/loop.js';
import type { OutboundClient } from '../../lib/outbound.js';
import type { EventLog } from '../events/service.js';
import { runCheck, type CheckOutcome } from './checker.js';
import * as queries from './queries.js';

export interface SchedulerSettings {
  tickMs: number;
  batchSize: number;
  maxInFlight: number;
}

/**
 * Runs due checks. Every instance runs a scheduler; database leases (FOR UPDATE SKIP LOCKED) give each due
 * monitor to exactly one of them. Checks run concurrently and each has its own hard timeout, so a
 * hanging target never holds up other monitors.
 */
export class MonitorScheduler {
  readonly instanceId = randomUUID();
  private readonly inFlight = new Set<Promise<void>>();
  private loop: { stop(): Promise<void> } | null = null;
  lastTickAt: Date | null = null;

  private readonly database: Database;
  private readonly outbound: OutboundClient;
  private readonly events: EventLog;
  private readonly onError: (error: unknown) => void;

  constructor(
    { database, outbound, events }: { database: Database; outbound: OutboundClient; events: EventLog },
    private readonly settings: SchedulerSettings & { onError: (error: unknown) => void },
  ) {
    this.database = database;
    this.outbound = outbound;
    this.events = events;
    this.onError = settings.onError;
  }

  start(): void {
    this.loop = startLoop(() => this.tick(), this.settings.tickMs, this.onError);
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
    await Promise.allSettled([...this.inFlight]);
  }

  /** Claims the due monitors this instance has room for and starts their checks (not awaited). */
  async tick(): Promise<number> {
    this.lastTickAt = new Date();
    const room = this.settings.maxInFlight - this.inFlight.size;
    if (room <= 0) return 0;
    const claimed = await queries.claimDueMonitors(
      this.database.db,
      this.instanceId,
      Math.min(room, this.settings.batchSize),
      90,
    );
    for (const monitor of claimed) {
      const running: Promise<void> = this.check(monitor)
        .catch(this.onError)
        .finally(() => this.inFlight.delete(running));
      this.inFlight.add(running);
    }
    return claimed.length;
  }

  /** Waits for the checks started so far (tests). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private async check(monitor: MonitorRow): Promise<void> {
    const checkedAt = new Date();
    const outcome = await runCheck(this.outbound, monitor);
    const failures = outcome.result === 'down' ? monitor.consecutiveFailures + 1 : 0;
    const confirmedDown = outcome.result === 'down' && failures >= monitor.confirmationChecks;
    const status = outcome.result !== 'down' ? outcome.result : confirmedDown ? 'down' : monitor.status;
    const check = {
      id: newId('check'),
      monitorId: monitor.id,
      tenantId: monitor.tenantId,
      checkedAt,
      result: outcome.result,
      statusCode: outcome.statusCode,
      latencyMs: outcome.latencyMs,
      timings: outcome.timings,
      error: outcome.error,
    };
    const updated = await queries.recordCheck(this.database.db, check, this.instanceId, {
      status: sql`case when ${monitors.paused} then 'paused' else ${status} end` as unknown as string,
      consecutiveFailures: failures,
      lastCheckedAt: checkedAt,
      nextCheckAt: new Date(checkedAt.getTime() + monitor.intervalSeconds * 1000),
    });
    if (updated) await this.announce(monitor, outcome, confirmedDown);
  }

  /** Opens or resolves the incident and records the events (and so the webhooks) a status change calls for. */
  private async announce(monitor: MonitorRow, outcome: CheckOutcome, confirmedDown: boolean): Promise<void> {
    const wasDown = monitor.status === 'down';
    const base = { monitor_id: monitor.id, name: monitor.name, url: monitor.url };
    if (confirmedDown && !wasDown) {
      const incident = await queries.openIncident(this.database.db, {
        id: newId('incident'),
        tenantId: monitor.tenantId,
        monitorId: monitor.id,
        status: 'open',
        cause: outcome.error ?? 'check failed',
      });
      await this.events.record(
        monitor.tenantId,
        'monitor.down',
        { type: 'monitor', id: monitor.id },
        {
          ...base,
          error: outcome.error,
          status_code: outcome.statusCode,
        },
      );
      if (incident)
        await this.events.record(
          monitor.tenantId,
          'incident.opened',
          { type: 'incident', id: incident.id },
          {
            ...base,
            incident_id: incident.id,
            cause: incident.cause,
          },
        );
    }
    if (wasDown && outcome.result !== 'down') {
      const incident = await queries.resolveOpenIncident(this.database.db, monitor.id);
      await this.events.record(
        monitor.tenantId,
        'monitor.up',
        { type: 'monitor', id: monitor.id },
        {
          ...base,
          status_code: outcome.statusCode,
          latency_ms: outcome.latencyMs,
        },
      );
      if (incident)
        await this.events.record(
          monitor.tenantId,
          'incident.resolved',
          { type: 'incident', id: incident.id },
          { ...base, incident_id: incident.id },
        );
    }
  }
}
