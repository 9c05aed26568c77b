import type { Database } from '../../db/index.js';
import type { TrackingMonitorRow, TrackingRunRow } from '../../db/schema.js';
import type { JobEngine } from '../../jobs/engine.js';
import { newId } from '../../lib/ids.js';
import { ScanTargetRefusedError, ScanTargetUnreachableError } from '../../scanner/errors.js';
import type { Scanner } from '../../scanner/index.js';
import type { EventLog } from '../events/service.js';
import { compareWithBaseline, severityOf, withRuleChanges } from './diff.js';
import * as queries from './queries.js';
import type { ChangeDto, PageSnapshotDto } from './schemas.js';
import { failedSnapshot, snapshotsOf } from './snapshot.js';

/** One job per run: the run row says which monitor and when it was due. */
export const TRACKING_RUNS = 'tracking-monitor-run';
/** The periodic step that claims due runs and queues their jobs. */
export const TRACKING_DISPATCH = 'tracking-monitor-dispatch';

export interface RunJob {
  runId: string;
}

export interface RunLog {
  warn(object: object, message: string): void;
}

export interface TrackingRunSettings {
  /** How far ahead runs are queued: at least the longest gap between two dispatch steps. */
  lookaheadMs: number;
  batchSize: number;
  log: RunLog;
}

type Scan = Pick<Scanner, 'scan'>;

/**
 * Tracking monitor runs on the job engine, on their own queue (own concurrency, never counted against the tenant's
 * scan quota). `dispatch()` claims the runs due soon and stores each run with its job in one transaction; `run()`
 * scans every page, compares with the baseline and opens or resolves the monitor's incident.
 */
export class TrackingRuns {
  private readonly database: Database;
  private readonly scanner: Scan;
  private readonly events: EventLog;
  private readonly jobs: Pick<JobEngine, 'insertIn'>;

  constructor(
    {
      database,
      scanner,
      events,
      jobs,
    }: { database: Database; scanner: Scan; events: EventLog; jobs: Pick<JobEngine, 'insertIn'> },
    private readonly settings: TrackingRunSettings,
  ) {
    this.database = database;
    this.scanner = scanner;
    this.events = events;
    this.jobs = jobs;
  }

  private get db() {
    return this.database.db;
  }

  /** Claims every run due within the lookahead, stores it queued and queues its job; returns how many. */
  async dispatch(): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await this.db.transaction(async (tx) => {
        const due = await queries.claimDueRuns(tx, this.settings.lookaheadMs, this.settings.batchSize);
        const runs = await queries.insertRuns(
          tx,
          due.map((run) => ({ ...queuedRun(run.monitorId, run.tenantId, run.dueAt), trigger: 'schedule' as const })),
        );
        await this.queue(tx, runs);
        return due.length;
      });
      total += claimed;
      if (claimed < this.settings.batchSize) return total;
    }
  }

  /** A run now, outside the schedule (the API's "run now"). */
  async runNow(monitor: TrackingMonitorRow): Promise<TrackingRunRow> {
    return this.db.transaction(async (tx) => {
      const [run] = await queries.insertRuns(tx, [
        { ...queuedRun(monitor.id, monitor.tenantId, new Date()), trigger: 'manual' },
      ]);
      await this.queue(tx, [run]);
      return run;
    });
  }

  private async queue(tx: Parameters<Parameters<Database['db']['transaction']>[0]>[0], runs: TrackingRunRow[]) {
    await this.jobs.insertIn(
      tx,
      TRACKING_RUNS,
      runs.map((run) => ({ data: { runId: run.id } satisfies RunJob, startAfter: run.dueAt })),
    );
  }

  /** The job handler: scans, compares, records, announces. A run whose worker died runs again. */
  async run({ runId }: RunJob): Promise<void> {
    const run = await queries.startRun(this.db, runId);
    if (!run) return;
    const monitor = await queries.findMonitorById(this.db, run.monitorId);
    if (!monitor) return;
    const pages = await this.scanPages(monitor);
    const failure = pages.find((page) => page.error !== null);
    if (failure) {
      await queries.finishRun(this.db, run.id, { result: 'failed', error: failure.error, changes: [], pages });
      await queries.updateMonitor(this.db, monitor.id, { status: 'failing', lastRunAt: new Date() });
      return;
    }
    const baseline = monitor.baselineRunId ? await queries.findRun(this.db, monitor.id, monitor.baselineRunId) : null;
    const changes = compareWithBaseline(baseline?.pages ?? pages, pages, {
      rules: withRuleChanges(monitor.rules),
      lossThresholdPct: monitor.lossThresholdPct,
    });
    const result = baseline ? (changes.length ? 'changed' : 'matched') : 'baseline';
    await queries.finishRun(this.db, run.id, { result, error: null, changes, pages });
    await queries.updateMonitor(this.db, monitor.id, {
      status: changes.length ? 'changed' : 'passing',
      lastRunAt: new Date(),
      ...(baseline ? {} : { baselineRunId: run.id }),
    });
    if (changes.length) await this.openOrUpdate(monitor, run.id, changes);
    else await this.resolve(monitor, 'run_matched');
  }

  private async scanPages(monitor: TrackingMonitorRow): Promise<PageSnapshotDto[]> {
    // Looked up at each run: a custom domain added since the monitor was saved counts.
    const hosts = monitor.containerId ? await queries.containerHosts(this.db, monitor.containerId) : [];
    const pages: PageSnapshotDto[] = [];
    for (const [index, url] of monitor.pages.entries()) {
      try {
        const result = await this.scanner.scan({
          url,
          aiSummary: false,
          pagespeed: false,
          consentCheck: monitor.consentCheck,
          pages: index === 0 ? 1 + monitor.followLinks : 1,
          language: 'en',
        });
        pages.push(...snapshotsOf(result, hosts));
      } catch (error) {
        pages.push(failedSnapshot(url, this.failureMessage(monitor, error)));
      }
    }
    return pages;
  }

  private failureMessage(monitor: TrackingMonitorRow, error: unknown): string {
    if (error instanceof ScanTargetRefusedError || error instanceof ScanTargetUnreachableError) return error.message;
    this.settings.log.warn({ err: error, tracking_monitor_id: monitor.id }, 'tracking monitor scan failed');
    return 'The scan failed unexpectedly.';
  }

  private async openOrUpdate(monitor: TrackingMonitorRow, runId: string, changes: ChangeDto[]): Promise<void> {
    const severity = severityOf(changes);
    const incident = await queries.insertIncident(this.db, {
      id: newId('trackingIncident'),
      tenantId: monitor.tenantId,
      monitorId: monitor.id,
      status: 'open',
      severity,
      openedRunId: runId,
      lastRunId: runId,
      changes,
    });
    if (!incident) {
      // Already open (one open incident per monitor): it now shows this run's changes.
      const open = await queries.openIncidentOf(this.db, monitor.id);
      if (open) await queries.updateIncident(this.db, open.id, { lastRunId: runId, changes, severity });
      return;
    }
    await this.events.record(
      monitor.tenantId,
      'tracking_incident.opened',
      { type: 'trackingIncident', id: incident.id },
      {
        tracking_monitor_id: monitor.id,
        name: monitor.name,
        incident_id: incident.id,
        run_id: runId,
        severity,
        changes: changes.map(({ rule, severity, page, tracker, message }) => ({
          rule,
          severity,
          page,
          tracker,
          message,
        })),
      },
    );
  }

  /** Resolves the monitor's open incident, if any, and announces it. */
  async resolve(monitor: TrackingMonitorRow, resolution: 'run_matched' | 'baseline_accepted'): Promise<void> {
    const open = await queries.openIncidentOf(this.db, monitor.id);
    if (!open) return;
    const resolved = await queries.resolveIncident(this.db, open.id, resolution);
    if (!resolved) return;
    await this.events.record(
      monitor.tenantId,
      'tracking_incident.resolved',
      { type: 'trackingIncident', id: resolved.id },
      { tracking_monitor_id: monitor.id, name: monitor.name, incident_id: resolved.id, resolution },
    );
  }
}

function queuedRun(monitorId: string, tenantId: string, dueAt: Date) {
  return {
    id: newId('trackingRun'),
    monitorId,
    tenantId,
    result: 'queued' as const,
    dueAt,
    changes: [],
    pages: [],
  };
}
