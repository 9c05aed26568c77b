import http from 'node:http';
import type net from 'node:net';
import { sql } from 'drizzle-orm';
import type { Database } from '../src/db/index.js';
import { JOB_SCHEMA } from '../src/db/job-store.js';
import { MONITOR_CHECKS } from '../src/modules/monitors/checks.js';
import { withThrowawayDatabase } from './database.js';
import { startWorkerProcesses } from './worker-processes.js';

/**
 * Monitor checks the worker processes hold on schedule, on PostgreSQL (BENCH_DATABASE_URL or TEST_DATABASE_URL):
 * N monitors at one interval, spread evenly over it, checking a tiny local HTTP target; `tagport serve --role worker`
 * processes run for a fixed window. Lag is a check's start minus its due time (`checked_at - due_at`), over the
 * checks due in the window. Env: BENCH_MONITORS (default "5000,10000"), BENCH_INTERVAL_SECONDS (30),
 * BENCH_WINDOW_SECONDS (60), BENCH_WORKERS (worker process counts, default "1,2").
 */

const list = (value: string | undefined, fallback: string) => (value || fallback).split(',').map(Number);
const WARM_UP_SECONDS = 5;
/** Checks due at the end of the window are given this long to start before the workers stop. */
const GRACE_SECONDS = 5;

export interface MonitorBenchRound {
  monitors: number;
  workers: number;
  interval_seconds: number;
  window_seconds: number;
  due: number;
  checked: number;
  checks_per_minute: number;
  lag_p50_ms: number;
  lag_p95_ms: number;
  lag_max_ms: number;
  /** CPU the worker processes used per check during the window (what a check costs, whatever else the machine runs). */
  worker_cpu_ms_per_check: number;
}

async function startTarget(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_request, response) => response.end('ok'));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function seed(database: Database, count: number, intervalSeconds: number, url: string): Promise<void> {
  await database.db.execute(sql`delete from monitors`);
  await database.db.execute(
    sql`insert into tenants (id, name, plan_id) values ('tenant_bench', 'Bench', 'business') on conflict do nothing`,
  );
  await database.db.execute(sql`
    insert into monitors (id, tenant_id, name, target_type, url, method, interval_seconds, timeout_ms,
                          expected_status_codes, confirmation_checks, status, paused, next_check_at)
    select 'monitor_bench_' || n, 'tenant_bench', 'Bench ' || n, 'url', ${url}, 'GET', ${intervalSeconds}, 5000,
           '["2xx"]'::jsonb, 2, 'pending', true, now()
      from generate_series(1, ${count}) as n`);
}

async function round(
  database: Database,
  databaseUrl: string,
  monitors: number,
  workers: number,
  intervalSeconds: number,
  windowSeconds: number,
): Promise<MonitorBenchRound> {
  const db = database.db;
  await db.execute(sql`update monitors set paused = true`);
  await db.execute(sql`delete from monitor_checks`);
  await db.execute(sql.raw(`delete from ${JOB_SCHEMA}.job where name = '${MONITOR_CHECKS}'`));
  const processes = await startWorkerProcesses(workers, { DATABASE_URL: databaseUrl, ALLOW_PRIVATE_NETWORKS: 'true' });
  try {
    const [{ start }] = (
      (await db.execute(sql`
        with numbered as (select id, row_number() over (order by id) - 1 as n from monitors)
        update monitors m
           set paused = false,
               next_check_at = date_trunc('second', now()) + interval '2 seconds'
                 + make_interval(secs => numbered.n * ${intervalSeconds}::float / ${monitors})
          from numbered where m.id = numbered.id
        returning date_trunc('second', now()) + interval '2 seconds' as start`)) as unknown as {
        rows: Array<{ start: string | Date }>;
      }
    ).rows;
    const from = new Date(new Date(start).getTime() + WARM_UP_SECONDS * 1000);
    const until = new Date(from.getTime() + windowSeconds * 1000);
    await new Promise((resolve) => setTimeout(resolve, from.getTime() - Date.now()));
    const cpuAtStart = processes.cpuSeconds();
    await new Promise((resolve) => setTimeout(resolve, until.getTime() - Date.now()));
    const cpuSeconds = processes.cpuSeconds() - cpuAtStart;
    await new Promise((resolve) => setTimeout(resolve, GRACE_SECONDS * 1000));
    const [figures] = (
      (await db.execute(sql`
        select count(*)::int as checked,
               coalesce(percentile_cont(0.5) within group (order by lag), 0)::float as p50,
               coalesce(percentile_cont(0.95) within group (order by lag), 0)::float as p95,
               coalesce(max(lag), 0)::float as max
          from (select extract(epoch from checked_at - due_at) * 1000 as lag from monitor_checks
                 where due_at >= ${from.toISOString()} and due_at < ${until.toISOString()}) as checks`)) as unknown as {
        rows: Array<{ checked: number; p50: number; p95: number; max: number }>;
      }
    ).rows;
    return {
      monitors,
      workers,
      interval_seconds: intervalSeconds,
      window_seconds: windowSeconds,
      due: Math.round((monitors * windowSeconds) / intervalSeconds),
      checked: figures.checked,
      checks_per_minute: Math.round((figures.checked / windowSeconds) * 60),
      lag_p50_ms: Math.round(figures.p50),
      lag_p95_ms: Math.round(figures.p95),
      lag_max_ms: Math.round(figures.max),
      worker_cpu_ms_per_check: Math.round((cpuSeconds * 10_000) / Math.max(1, figures.checked)) / 10,
    };
  } finally {
    await processes.stop();
  }
}

export async function runMonitorsBench(): Promise<MonitorBenchRound[]> {
  const counts = list(process.env.BENCH_MONITORS, '5000,10000');
  const workerCounts = list(process.env.BENCH_WORKERS, '1,2');
  const intervalSeconds = Number(process.env.BENCH_INTERVAL_SECONDS || 30);
  const windowSeconds = Number(process.env.BENCH_WINDOW_SECONDS || 60);
  const target = await startTarget();
  try {
    return await withThrowawayDatabase(async (database, url) => {
      const rounds: MonitorBenchRound[] = [];
      for (const monitors of counts) {
        await seed(database, monitors, intervalSeconds, target.url);
        for (const workers of workerCounts)
          rounds.push(await round(database, url, monitors, workers, intervalSeconds, windowSeconds));
      }
      return rounds;
    });
  } finally {
    await target.close();
  }
}

export function printMonitorsBench(rounds: MonitorBenchRound[]): void {
  console.log('\nMonitor checks held on schedule (PostgreSQL, local HTTP target, `tagport serve --role worker`)');
  console.table(rounds);
  console.log(JSON.stringify({ monitors: rounds }));
}
