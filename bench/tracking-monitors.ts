import { sql } from 'drizzle-orm';
import { loadConfig } from '../src/config.js';
import type { Database } from '../src/db/index.js';
import { TRACKING_RUNS } from '../src/modules/tracking-monitors/runs.js';
import { Scanner } from '../src/scanner/index.js';
import { createServices, type Services } from '../src/services.js';
import { startFixtureServer, type FixtureServer } from '../test/fixtures/scanner/server.js';
import { withThrowawayDatabase } from './database.js';

/**
 * What one worker process sustains of tracking monitors, on PostgreSQL (BENCH_DATABASE_URL or TEST_DATABASE_URL):
 * - dispatch: BENCH_TRACKING_MONITORS (default 10000) hourly monitors all due at once, claimed and queued by the
 *   dispatch step; its time per monitor.
 * - runs: one-page monitors of the fixture sites, each run (scan, snapshot, comparison, storage) timed against a bare
 *   `scanner.scan()` of the same page, interleaved page by page over BENCH_TRACKING_ROUNDS (default 3) rounds, with
 *   and without the consent check; then runs two at a time (TRACKING_MONITOR_CONCURRENCY=2) for throughput.
 * From the mean run time: monitors one worker runs hourly, one page each, at concurrency 1 and 2.
 */

const SITES = ['shop.example.test', 'zoo.example.test', 'www.firstparty.test', 'clean.example.test'];

export interface TrackingBenchResult {
  dispatch: { monitors: number; seconds: number; ms_per_1000_monitors: number };
  runs: Array<{
    consent_check: boolean;
    runs: number;
    mean_run_s: number;
    mean_bare_scan_s: number;
    run_to_scan_ratio: number;
  }>;
  parallel: { runs: number; seconds: number; runs_per_hour: number };
  hourly_monitors_per_worker: { concurrency_1: number; concurrency_2: number };
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const round2 = (value: number) => Math.round(value * 100) / 100;

async function seedTenant(services: Services, database: Database) {
  const tenant = await services.tenants.create({ name: 'Bench', plan: 'agency', parentId: null });
  await database.db.execute(
    sql`update tenants set feature_overrides = '{"max_tracking_monitors": 100000, "tracking_monitor_max_pages": 20}'
        where id = ${tenant.id}`,
  );
  return tenant.id;
}

async function benchDispatch(services: Services, db: Database['db'], tenantId: string, count: number) {
  await db.execute(sql`
    insert into tracking_monitors (id, tenant_id, name, pages, follow_links, interval_seconds, consent_check,
                                   loss_threshold_pct, rules, notification_channel_ids, status,
                                   next_run_at)
    select 'tmo_bench' || lpad(n::text, 17, '0'), ${tenantId}, 'Bench ' || n, '["https://shop.example.test/"]', 0,
           3600, false, 10, '{}', '[]', 'pending', now() - interval '1 second'
      from generate_series(1, ${count}) as n`);
  const started = performance.now();
  const claimed = await services.trackingRuns.dispatch();
  const seconds = (performance.now() - started) / 1000;
  if (claimed !== count) throw new Error(`dispatch claimed ${claimed} of ${count}`);
  await db.execute(sql`delete from tracking_monitors where id like 'tmo_bench%'`);
  await db.execute(sql`delete from pgboss.job where name = ${TRACKING_RUNS}`);
  return { monitors: count, seconds: round2(seconds), ms_per_1000_monitors: round2((seconds * 1_000_000) / count) };
}

async function createMonitor(services: Services, tenantId: string, url: string, consentCheck: boolean) {
  const monitor = await services.trackingMonitors.create(tenantId, {
    name: url,
    pages: [url],
    interval_seconds: 86_400,
    consent_check: consentCheck,
  });
  return monitor.id;
}

async function timeRun(services: Services, tenantId: string, monitorId: string): Promise<number> {
  await services.trackingMonitors.runNow(tenantId, monitorId);
  const started = performance.now();
  await services.jobs.runQueued(TRACKING_RUNS);
  return (performance.now() - started) / 1000;
}

async function timeScan(scanner: Scanner, url: string, consentCheck: boolean): Promise<number> {
  const started = performance.now();
  await scanner.scan({ url, aiSummary: false, pagespeed: false, consentCheck, language: 'en' });
  return (performance.now() - started) / 1000;
}

async function benchRuns(services: Services, scanner: Scanner, fixture: FixtureServer, tenantId: string) {
  const rounds = Number(process.env.BENCH_TRACKING_ROUNDS ?? 3);
  const results: TrackingBenchResult['runs'] = [];
  for (const consentCheck of [false, true]) {
    const monitors = await Promise.all(
      SITES.map(async (site) => {
        const url = fixture.url(site, '/');
        return { url, id: await createMonitor(services, tenantId, url, consentCheck) };
      }),
    );
    // The first run of each becomes its baseline; warm the browser with it, untimed.
    for (const monitor of monitors) await timeRun(services, tenantId, monitor.id);
    const runs: number[] = [];
    const scans: number[] = [];
    for (let round = 0; round < rounds; round++)
      for (const monitor of monitors) {
        const order = round % 2 === 0 ? ['run', 'scan'] : ['scan', 'run'];
        for (const step of order)
          if (step === 'run') runs.push(await timeRun(services, tenantId, monitor.id));
          else scans.push(await timeScan(scanner, monitor.url, consentCheck));
      }
    results.push({
      consent_check: consentCheck,
      runs: runs.length,
      mean_run_s: round2(mean(runs)),
      mean_bare_scan_s: round2(mean(scans)),
      run_to_scan_ratio: round2(mean(runs) / mean(scans)),
    });
  }
  return results;
}

async function benchParallel(services: Services, fixture: FixtureServer, tenantId: string) {
  const monitors = await Promise.all(
    [...SITES, ...SITES].map((site) => createMonitor(services, tenantId, fixture.url(site, '/'), false)),
  );
  for (const id of monitors) await services.trackingMonitors.runNow(tenantId, id);
  const started = performance.now();
  await services.jobs.runQueued(TRACKING_RUNS, { parallel: true });
  const seconds = (performance.now() - started) / 1000;
  return {
    runs: monitors.length,
    seconds: round2(seconds),
    runs_per_hour: Math.round((monitors.length / seconds) * 3600),
  };
}

export async function runTrackingMonitorsBench(): Promise<TrackingBenchResult> {
  const fixture = await startFixtureServer();
  const scanner = new Scanner(fixture.scannerOptions({ browserConcurrency: 2 }));
  try {
    return await withThrowawayDatabase(async (database) => {
      const config = loadConfig(
        { LOG_LEVEL: 'silent', TAGPORT_ROLES: 'api,worker', RUN_WORKERS: 'false' },
        { runMigrations: false },
      );
      const services = createServices({ database, config, scanner });
      await services.start();
      try {
        const tenantId = await seedTenant(services, database);
        const dispatch = await benchDispatch(
          services,
          database.db,
          tenantId,
          Number(process.env.BENCH_TRACKING_MONITORS ?? 10_000),
        );
        const runs = await benchRuns(services, scanner, fixture, tenantId);
        const parallel = await benchParallel(services, fixture, tenantId);
        const single = runs.find((row) => !row.consent_check)!.mean_run_s;
        return {
          dispatch,
          runs,
          parallel,
          hourly_monitors_per_worker: {
            concurrency_1: Math.floor(3600 / single),
            concurrency_2: parallel.runs_per_hour,
          },
        };
      } finally {
        await services.stop({ graceful: false });
      }
    });
  } finally {
    await scanner.close();
    await fixture.close();
  }
}

export function printTrackingMonitorsBench(result: TrackingBenchResult): void {
  console.log('\nTracking monitors: dispatch of due monitors, and runs against a bare scan of the same page');
  console.table([result.dispatch]);
  console.table(result.runs);
  console.table([result.parallel]);
  console.log('One-page monitors one worker runs hourly:', result.hourly_monitors_per_worker);
  console.log(JSON.stringify({ tracking_monitors: result }));
}
