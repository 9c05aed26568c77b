import fs from 'node:fs';
import { isDatabaseUnavailable } from '../../db/errors.js';
import type { Database } from '../../db/index.js';
import { type PlatformIncidentDto, type StatusIncidents, toIncidentDto, toMaintenanceDto } from './incidents.js';
import * as queries from './queries.js';
import type { ComponentState } from './schemas.js';
import { uptimeDays } from './uptime.js';

export interface ComponentStatus {
  name: string;
  status: ComponentState;
  detail: string;
}

/** `error`: what made the check fail, for the log (the detail is public). */
type Check = () => Promise<{ status: ComponentState; detail: string; error?: unknown }>;

/** Public texts: the status page is anonymous, so no error messages, addresses or paths (those go to the log). */
const DATABASE_DOWN = 'The database is not answering.';
const CHECK_FAILED = 'The health check failed.';

export interface QueueFigure {
  name: string;
  waiting: number;
  running: number;
  oldest_wait_seconds: number;
}

/** The job queues' depth and wait, as the status page shows them (from the job engine). */
export type QueueFigures = () => Promise<QueueFigure[]>;

/** Seconds the most overdue monitor check is behind its due time, cluster-wide. */
export type MonitoringLag = () => Promise<number>;

/** Monitor checks this far behind schedule make the monitoring worker degraded; four times as far, an outage. */
const MONITORING_LATE_SECONDS = 30;

/** What the page shows from the database; kept in memory so the page renders while the database is down. */
interface History {
  incidents: PlatformIncidentDto[];
  maintenance: queries.MaintenanceRow[];
  checkDays: queries.CheckDayRow[];
  readAt: Date;
}

export type StatusDocument = Awaited<ReturnType<StatusService['snapshot']>>;

/**
 * Tagport's own health: component checks (API, database, scanner, monitoring worker, and any component
 * registered later, such as the gateway) run on a schedule and are counted per day (the 90-day uptime bars);
 * a component failing `failuresToOpen` times in a row opens a platform incident, shown on /status and told to
 * subscribers, and recovery resolves it.
 */
export class StatusService {
  private readonly checks = new Map<string, Check>();
  private readonly failures = new Map<string, number>();
  private latest: ComponentStatus[] = [];
  private latestAt = 0;
  private lastGood: History | null = null;
  private readonly onError: (error: unknown) => void;
  /** How old the last self-check may be before the status page runs one itself (a process that runs no jobs). */
  private readonly freshForMs: number;
  private readonly failuresToOpen: number;
  private readonly database: Database;
  private readonly queues: QueueFigures;
  private readonly incidents: StatusIncidents;

  constructor(
    {
      database,
      monitoringLag,
      queues,
      incidents,
    }: { database: Database; monitoringLag: MonitoringLag; queues: QueueFigures; incidents: StatusIncidents },
    options: {
      chromiumPath: string;
      workersRunning: boolean;
      checkIntervalMs: number;
      /** Consecutive failed self-checks before a platform incident opens. */
      failuresToOpen: number;
      onError: (error: unknown) => void;
    },
  ) {
    this.database = database;
    this.queues = queues;
    this.incidents = incidents;
    this.onError = options.onError;
    this.freshForMs = options.checkIntervalMs * 2;
    this.failuresToOpen = options.failuresToOpen;
    this.register('API', async () => ({ status: 'operational', detail: 'Serving requests.' }));
    this.register('Database', async () => {
      const started = performance.now();
      try {
        await database.ping();
      } catch (error) {
        if (!isDatabaseUnavailable(error)) throw error;
        return { status: 'outage', detail: DATABASE_DOWN, error };
      }
      return {
        status: 'operational',
        detail: `${database.kind === 'pglite' ? 'PGlite' : 'PostgreSQL'} answered in ${Math.round(performance.now() - started)} ms.`,
      };
    });
    this.register('Scanner', async () =>
      fs.existsSync(options.chromiumPath)
        ? { status: 'operational', detail: 'Chromium available.' }
        : { status: 'outage', detail: 'The browser used for scans is not installed.' },
    );
    this.register('Monitoring worker', async () => {
      if (!options.workersRunning) return { status: 'degraded', detail: 'Workers are not running in this instance.' };
      const lag = Math.round(await monitoringLag());
      if (lag >= MONITORING_LATE_SECONDS * 4)
        return { status: 'outage', detail: `Monitor checks are ${lag} s behind schedule.` };
      if (lag >= MONITORING_LATE_SECONDS)
        return { status: 'degraded', detail: `Monitor checks are ${lag} s behind schedule.` };
      return { status: 'operational', detail: 'Monitor checks run on schedule.' };
    });
  }

  register(name: string, check: Check): void {
    this.checks.set(name, check);
  }

  /** Runs every component check, without recording anything (a page served by a process that runs no jobs). */
  private async runChecks(): Promise<{ results: ComponentStatus[]; errors: Map<string, unknown> }> {
    const results: ComponentStatus[] = [];
    const errors = new Map<string, unknown>();
    for (const [name, check] of this.checks) {
      const { error, ...outcome } = await check().catch((error: unknown) => ({
        status: 'outage' as const,
        detail: CHECK_FAILED,
        error,
      }));
      if (error !== undefined) errors.set(name, error);
      results.push({ name, ...outcome });
    }
    this.latest = results;
    this.latestAt = Date.now();
    return { results, errors };
  }

  /**
   * The periodic job of the workers: runs the checks, counts them for the uptime bars, and opens or resolves
   * automatic incidents (telling subscribers).
   */
  async evaluate(): Promise<ComponentStatus[]> {
    const { results, errors } = await this.runChecks();
    const today = new Date().toISOString().slice(0, 10);
    await queries
      .countChecks(
        this.database.db,
        today,
        results.map((component) => ({ component: component.name, failed: component.status === 'outage' })),
      )
      .catch(() => {
        /* the database itself may be the failing component */
      });
    await queries.saveComponents(this.database.db, results).catch(() => {
      /* then every instance shows its own checks until the database answers again */
    });
    for (const component of results) {
      const failed = component.status === 'outage';
      const count = failed ? (this.failures.get(component.name) ?? 0) + 1 : 0;
      this.failures.set(component.name, count);
      if (count === 1 && errors.has(component.name))
        this.onError(new Error(`status check of ${component.name} failed`, { cause: errors.get(component.name) }));
      await this.recordIncident(component, count).catch((error: unknown) => {
        if (!isDatabaseUnavailable(error)) this.onError(error);
      });
    }
    return results;
  }

  private async recordIncident(component: ComponentStatus, failures: number): Promise<void> {
    const db = this.database.db;
    const row =
      failures >= this.failuresToOpen
        ? await queries.openAutomaticIncident(
            db,
            component.name,
            `${component.name}: ${component.detail}`,
            `Our checks found ${component.name} failing: ${component.detail} We are investigating.`,
          )
        : failures === 0
          ? await queries.resolveAutomaticIncident(db, component.name, `${component.name} passes its checks again.`)
          : null;
    if (row) await this.incidents.announce(row);
  }

  /**
   * What the workers' checks found last (any instance's, through the database), in the order the checks are
   * registered: every instance serves the same components. Null when there is none fresh, or no database.
   */
  private async sharedComponents(): Promise<ComponentStatus[] | null> {
    const rows = await queries.freshComponents(this.database.db, this.freshForMs).catch(() => []);
    if (rows.length === 0) return null;
    const order = [...this.checks.keys()];
    const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
    return rows
      .map(({ component, status, detail }) => ({ name: component, status, detail }))
      .sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));
  }

  /** This instance's own checks (recent ones re-used): without workers running anywhere, or without the database. */
  private async ownComponents(): Promise<ComponentStatus[]> {
    return Date.now() - this.latestAt <= this.freshForMs ? this.latest : (await this.runChecks()).results;
  }

  private async readHistory(): Promise<History> {
    const db = this.database.db;
    const rows = await queries.recentIncidents(db);
    const updates = await queries.updatesOf(
      db,
      rows.map((row) => row.id),
    );
    const from = new Date(Date.now() - (queries.HISTORY_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
    return {
      incidents: rows.map((row) => toIncidentDto(row, updates)),
      maintenance: await queries.maintenanceToShow(db),
      checkDays: await queries.checkDays(db, from),
      readAt: new Date(),
    };
  }

  /**
   * The status document. It renders without the database: the components come from the last self-check,
   * the history from the last successful read (`stale` is then true), and the database is shown as down.
   */
  async snapshot() {
    let components = (await this.sharedComponents()) ?? (await this.ownComponents());
    let history: History;
    let stale = false;
    let queues: QueueFigure[] = [];
    try {
      history = await this.readHistory();
      queues = await this.queues().catch(() => []);
      this.lastGood = history;
    } catch (error) {
      if (!isDatabaseUnavailable(error)) this.onError(error);
      stale = true;
      history = this.lastGood ?? { incidents: [], maintenance: [], checkDays: [], readAt: new Date(0) };
      components = components.map((component) =>
        component.name === 'Database' ? { ...component, status: 'outage', detail: DATABASE_DOWN } : component,
      );
    }
    const overall: ComponentState = components.some((c) => c.status === 'outage')
      ? 'outage'
      : components.some((c) => c.status === 'degraded')
        ? 'degraded'
        : 'operational';
    const now = Date.now();
    return {
      status: overall,
      components: components.map((component) => ({
        ...component,
        ...uptimeDays(
          history.checkDays.filter((day) => day.component === component.name),
          queries.HISTORY_DAYS,
          now,
        ),
      })),
      open_incidents: history.incidents.filter((incident) => incident.status === 'open'),
      recent_incidents: history.incidents.filter((incident) => incident.status === 'resolved'),
      maintenance: history.maintenance.map((row) => toMaintenanceDto(row, now)),
      queues,
      stale,
      data_as_of: stale ? (this.lastGood?.readAt.toISOString() ?? null) : new Date(now).toISOString(),
      updated_at: new Date(now).toISOString(),
    };
  }
}
