import fs from 'node:fs';
import { and, desc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { isDatabaseUnavailable } from '../../db/errors.js';
import type { Database } from '../../db/index.js';
import { platformIncidents } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';

export type ComponentState = 'operational' | 'degraded' | 'outage';
export interface ComponentStatus {
  name: string;
  status: ComponentState;
  detail: string;
}

/** `error`: what made the check fail, for the log (the detail is public). */
type Check = () => Promise<{ status: ComponentState; detail: string; error?: unknown }>;

/** Consecutive failed self-checks before a platform incident opens (the loop runs every `intervalMs`). */
const FAILURES_TO_OPEN = 2;

/** Public texts: the status page is anonymous, so no error messages, addresses or paths (those go to the log). */
const DATABASE_DOWN = 'The database is not answering.';
const CHECK_FAILED = 'The health check failed.';

type IncidentRow = typeof platformIncidents.$inferSelect;

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

/**
 * Tagport's own health: component checks (API, database, scanner, monitoring worker, and any component
 * registered later, such as the gateway) run on a schedule; a component failing twice in a row opens a
 * platform incident, shown on /status, and recovery resolves it.
 */
export class StatusService {
  private readonly checks = new Map<string, Check>();
  private readonly failures = new Map<string, number>();
  private latest: ComponentStatus[] = [];
  private latestAt = 0;
  /** The incidents last read, shown while the database cannot be read. */
  private knownIncidents: IncidentRow[] = [];
  private readonly onError: (error: unknown) => void;
  /** How old the last self-check may be before the status page runs one itself (a process that runs no jobs). */
  private readonly freshForMs: number;

  private readonly database: Database;

  private readonly queues: QueueFigures;

  constructor(
    { database, monitoringLag, queues }: { database: Database; monitoringLag: MonitoringLag; queues: QueueFigures },
    options: {
      chromiumPath: string;
      workersRunning: boolean;
      checkIntervalMs: number;
      onError: (error: unknown) => void;
    },
  ) {
    this.database = database;
    this.queues = queues;
    this.onError = options.onError;
    this.freshForMs = options.checkIntervalMs * 2;
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

  /** Runs every component check and opens or resolves platform incidents (a periodic job of the workers). */
  async evaluate(): Promise<ComponentStatus[]> {
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
    for (const component of results) {
      const failed = component.status === 'outage';
      const count = failed ? (this.failures.get(component.name) ?? 0) + 1 : 0;
      this.failures.set(component.name, count);
      if (count === 1 && errors.has(component.name))
        this.onError(new Error(`status check of ${component.name} failed`, { cause: errors.get(component.name) }));
      await this.recordIncident(component, count).catch(() => {
        /* the database itself may be the failing component */
      });
    }
    return results;
  }

  private async recordIncident(component: ComponentStatus, failures: number): Promise<void> {
    const db = this.database.db;
    if (failures >= FAILURES_TO_OPEN) {
      await db
        .insert(platformIncidents)
        .values({
          id: newId('platformIncident'),
          component: component.name,
          title: `${component.name}: ${component.detail}`,
          status: 'open',
        })
        .onConflictDoNothing();
    } else if (failures === 0) {
      await db
        .update(platformIncidents)
        .set({ status: 'resolved', resolvedAt: sql`now()` })
        .where(and(eq(platformIncidents.component, component.name), isNull(platformIncidents.resolvedAt)));
    }
  }

  private async readIncidents(): Promise<IncidentRow[]> {
    return this.database.db
      .select()
      .from(platformIncidents)
      .where(or(isNull(platformIncidents.resolvedAt), gt(platformIncidents.openedAt, sql`now() - interval '30 days'`)))
      .orderBy(desc(platformIncidents.openedAt))
      .limit(50);
  }

  /**
   * The status document. It renders without the database: the components come from the last self-check,
   * the incidents from the last successful read, and a database that cannot be read is shown as down.
   */
  async snapshot() {
    let components = Date.now() - this.latestAt <= this.freshForMs ? this.latest : await this.evaluate();
    let incidents: IncidentRow[];
    let queues: QueueFigure[] = [];
    try {
      incidents = await this.readIncidents();
      queues = await this.queues().catch(() => []);
      this.knownIncidents = incidents;
    } catch (error) {
      incidents = this.knownIncidents;
      if (isDatabaseUnavailable(error)) {
        components = components.map((component) =>
          component.name === 'Database' ? { ...component, status: 'outage', detail: DATABASE_DOWN } : component,
        );
      } else {
        this.onError(error);
      }
    }
    const toDto = (row: IncidentRow) => ({
      id: row.id,
      component: row.component,
      title: row.title,
      status: row.status as 'open' | 'resolved',
      opened_at: row.openedAt.toISOString(),
      resolved_at: row.resolvedAt?.toISOString() ?? null,
    });
    const overall: ComponentState = components.some((c) => c.status === 'outage')
      ? 'outage'
      : components.some((c) => c.status === 'degraded')
        ? 'degraded'
        : 'operational';
    return {
      status: overall,
      components,
      open_incidents: incidents.filter((row) => !row.resolvedAt).map(toDto),
      recent_incidents: incidents.filter((row) => row.resolvedAt).map(toDto),
      queues,
      updated_at: new Date().toISOString(),
    };
  }
}
