import type { Database } from '../../db/index.js';
import type { MonitorRow } from '../../db/schema.js';
import type { JobEngine } from '../../jobs/engine.js';
import { newId } from '../../lib/ids.js';
import type { OutboundClient } from '../../lib/outbound.js';
import type { EventLog } from '../events/service.js';
import { runCheck, type CheckOutcome } from './checker.js';
import * as queries from './queries.js';
import type { RecordedCheck } from './queries.js';

/** One job per check: a monitor and the due time it runs for. */
export const MONITOR_CHECKS = 'monitor-check';
/** The periodic step that claims due checks and queues their jobs. */
export const MONITOR_DISPATCH = 'monitor-dispatch';

export interface CheckJob {
  monitorId: string;
  /** ISO time the check is due; the job starts then (`startAfter`). */
  dueAt: string;
}

export interface DispatchSettings {
  /** How far ahead checks are queued: at least the longest gap between two dispatch runs, so none starts late. */
  lookaheadMs: number;
  /** Monitors claimed per transaction. */
  batchSize: number;
}

/**
 * Monitor checks on the job engine. `dispatch()` (a periodic job on one worker of the cluster) claims the checks due
 * soon and queues one job per check, starting at its due time, in the transaction of the claim: a claimed due time
 * always has its job, and no due time gets two. `run()` (the job) checks and records; a job whose worker died is
 * retried by another, and a check already recorded for its due time is not run again.
 */
export class MonitorChecks {
  private readonly database: Database;
  private readonly outbound: OutboundClient;
  private readonly events: EventLog;
  private readonly jobs: Pick<JobEngine, 'insertIn'>;

  constructor(
    {
      database,
      outbound,
      events,
      jobs,
    }: { database: Database; outbound: OutboundClient; events: EventLog; jobs: Pick<JobEngine, 'insertIn'> },
    private readonly settings: DispatchSettings,
  ) {
    this.database = database;
    this.outbound = outbound;
    this.events = events;
    this.jobs = jobs;
  }

  /** Claims every check due within the lookahead and queues its job; returns how many. */
  async dispatch(): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await this.database.db.transaction(async (tx) => {
        const due = await queries.claimDueChecks(tx, this.settings.lookaheadMs, this.settings.batchSize);
        await this.jobs.insertIn(
          tx,
          MONITOR_CHECKS,
          due.map((check) => ({
            data: { monitorId: check.monitorId, dueAt: check.dueAt.toISOString() } satisfies CheckJob,
            startAfter: check.dueAt,
          })),
        );
        return due.length;
      });
      total += claimed;
      if (claimed < this.settings.batchSize) return total;
    }
  }

  /** Runs one check (the job handler): records the outcome, judged, and announces a change of status. */
  async run({ monitorId, dueAt }: CheckJob): Promise<void> {
    const due = new Date(dueAt);
    const found = await queries.findMonitorForCheck(this.database.db, monitorId, due);
    // Gone, paused, or a retried job whose first worker recorded the check before it died.
    if (!found || found.monitor.paused || found.recorded) return;
    const { monitor } = found;
    const checkedAt = new Date();
    const outcome = await runCheck(this.outbound, monitor);
    const recorded = await queries.recordCheck(this.database.db, {
      id: newId('check'),
      monitorId,
      tenantId: monitor.tenantId,
      checkedAt,
      dueAt: due,
      result: outcome.result,
      statusCode: outcome.statusCode,
      latencyMs: outcome.latencyMs,
      timings: outcome.timings,
      error: outcome.error,
    });
    if (recorded) await this.announce(monitor, outcome, recorded);
  }

  /** Opens or resolves the incident and records the events (and so the webhooks) a status change calls for. */
  private async announce(monitor: MonitorRow, outcome: CheckOutcome, recorded: RecordedCheck): Promise<void> {
    const wasDown = recorded.previousStatus === 'down';
    const confirmedDown = recorded.status === 'down';
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
        { ...base, error: outcome.error, status_code: outcome.statusCode },
      );
      if (incident)
        await this.events.record(
          monitor.tenantId,
          'incident.opened',
          { type: 'incident', id: incident.id },
          { ...base, incident_id: incident.id, cause: incident.cause },
        );
    }
    if (wasDown && outcome.result !== 'down') {
      const incident = await queries.resolveOpenIncident(this.database.db, monitor.id);
      await this.events.record(
        monitor.tenantId,
        'monitor.up',
        { type: 'monitor', id: monitor.id },
        { ...base, status_code: outcome.statusCode, latency_ms: outcome.latencyMs },
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

  /** Seconds the most overdue monitor waits for its claim (the status page's lag figure). */
  overdueSeconds(): Promise<number> {
    return queries.overdueSeconds(this.database.db);
  }
}
