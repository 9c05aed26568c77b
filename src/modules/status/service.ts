import fs from 'node:fs';
import { and, desc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/index.js';
import { platformIncidents } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { startLoop } from '../../lib/loop.js';
import type { MonitorScheduler } from '../monitors/scheduler.js';

export type ComponentState = 'operational' | 'degraded' | 'outage';
export interface ComponentStatus {
  name: string;
  status: ComponentState;
  detail: string;
}

type Check = () => Promise<{ status: ComponentState; detail: string }>;

/** Consecutive failed self-checks before a platform incident opens (the loop runs every `intervalMs`). */
const FAILURES_TO_OPEN = 2;

/**
 * Tagport's own health: component checks (API, database, scanner, monitoring worker, and any component
 * registered later, such as the gateway) run on a schedule; a component failing twice in a row opens a
 * platform incident, shown on /status, and recovery resolves it.
 */
export class StatusService {
  private readonly checks = new Map<string, Check>();
  private readonly failures = new Map<string, number>();
  private latest: ComponentStatus[] = [];
  private loop: { stop(): Promise<void> } | null = null;

  constructor(
    private readonly database: Database,
    options: { chromiumPath: string; scheduler: MonitorScheduler; workersRunning: boolean; tickMs: number },
  ) {
    const startedAt = new Date();
    this.register('API', async () => ({ status: 'operational', detail: 'Serving requests.' }));
    this.register('Database', async () => {
      const started = performance.now();
      await database.ping();
      return { status: 'operational', detail: `${database.kind === 'pglite' ? 'PGlite' : 'PostgreSQL'} answered in ${Math.round(performance.now() - started)} ms.` };
    });
    this.register('Scanner', async () =>
      fs.existsSync(options.chromiumPath)
        ? { status: 'operational', detail: 'Chromium available.' }
        : { status: 'outage', detail: `Chromium not found at ${options.chromiumPath}.` },
    );
    this.register('Monitoring worker', async () => {
      if (!options.workersRunning) return { status: 'degraded', detail: 'Workers are not running in this instance.' };
      const last = options.scheduler.lastTickAt ?? startedAt;
      const staleAfter = options.tickMs * 5 + 10_000;
      if (Date.now() - last.getTime() > staleAfter) return { status: 'outage', detail: 'The scheduler has not run recently.' };
      if (!options.scheduler.lastTickAt) return { status: 'operational', detail: 'Starting.' };
      return { status: 'operational', detail: `Last run ${Math.round((Date.now() - last.getTime()) / 1000)} s ago.` };
    });
  }

  register(name: string, check: Check): void {
    this.checks.set(name, check);
  }

  start(intervalMs: number, onError: (error: unknown) => void): void {
    this.loop = startLoop(() => this.evaluate(), intervalMs, onError);
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
  }

  /** Runs every component check and opens or resolves platform incidents. */
  async evaluate(): Promise<ComponentStatus[]> {
    const results: ComponentStatus[] = [];
    for (const [name, check] of this.checks) {
      const outcome = await check().catch((error: unknown) => ({ status: 'outage' as const, detail: error instanceof Error ? error.message : String(error) }));
      results.push({ name, ...outcome });
    }
    this.latest = results;
    for (const component of results) {
      const failed = component.status === 'outage';
      const count = failed ? (this.failures.get(component.name) ?? 0) + 1 : 0;
      this.failures.set(component.name, count);
      await this.recordIncident(component, count).catch(() => {
        /* the database itself may be the failing component */
      });
    }
    return results;
  }

  private async recordIncident(component: ComponentStatus, failures: number): Promise<void> {
    const db = this.database.db;
    if (failures >= FAILURES_TO_OPEN) {
      await db.insert(platformIncidents).values({ id: newId('platformIncident'), component: component.name, title: `${component.name}: ${component.detail}`, status: 'open' }).onConflictDoNothing();
    } else if (failures === 0) {
      await db
        .update(platformIncidents)
        .set({ status: 'resolved', resolvedAt: sql`now()` })
        .where(and(eq(platformIncidents.component, component.name), isNull(platformIncidents.resolvedAt)));
    }
  }

  async snapshot() {
    const components = this.latest.length ? this.latest : await this.evaluate();
    const incidents = await this.database.db
      .select()
      .from(platformIncidents)
      .where(or(isNull(platformIncidents.resolvedAt), gt(platformIncidents.openedAt, sql`now() - interval '30 days'`)))
      .orderBy(desc(platformIncidents.openedAt))
      .limit(50);
    const toDto = (row: typeof incidents[number]) => ({
      id: row.id,
      component: row.component,
      title: row.title,
      status: row.status as 'open' | 'resolved',
      opened_at: row.openedAt.toISOString(),
      resolved_at: row.resolvedAt?.toISOString() ?? null,
    });
    const overall: ComponentState = components.some((c) => c.status === 'outage') ? 'outage' : components.some((c) => c.status === 'degraded') ? 'degraded' : 'operational';
    return {
      status: overall,
      components,
      open_incidents: incidents.filter((row) => !row.resolvedAt).map(toDto),
      recent_incidents: incidents.filter((row) => row.resolvedAt).map(toDto),
      updated_at: new Date().toISOString(),
    };
  }
}
