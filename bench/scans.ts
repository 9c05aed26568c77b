import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { Database } from '../src/db/index.js';
import { JOB_SCHEMA } from '../src/db/job-store.js';
import { JobEngine } from '../src/jobs/engine.js';
import { ANONYMOUS_SCANS, type AnonymousScanJob } from '../src/modules/tracking-checker/worker.js';
import { startFixtureServer } from '../test/fixtures/scanner/server.js';
import { withThrowawayDatabase } from './database.js';

/**
 * Scans per minute through the job engine with one and with two worker processes, on PostgreSQL
 * (BENCH_DATABASE_URL or TEST_DATABASE_URL): scans of the local fixture pages (browser stage on, no pagespeed) are
 * queued at once and timed until the last one has ended; each process runs `SCANNER_CONCURRENCY` (default 2) scans at
 * a time. Rounds alternate 1, 2, 1, 2… workers so that the machine's other load falls on both alike; each round starts
 * fresh processes and warms their browsers up first. Env: BENCH_SCANS (per round, default 12), BENCH_SCAN_ROUNDS
 * (rounds per worker count, default 2).
 */

const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'scan-worker.ts');
const TSX = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'tsx', 'dist', 'cli.mjs');
const SITES = ['shop.example.test', 'zoo.example.test', 'www.firstparty.test', 'clean.example.test'];

export interface ScanBenchRound {
  workers: number;
  scans: number;
  seconds: number;
  scans_per_minute: number;
}

export interface ScanBenchResult {
  rounds: ScanBenchRound[];
  median_one_worker: number;
  median_two_workers: number;
  ratio: number;
}

function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [TSX, WORKER], {
    env: { ...process.env, LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('scan worker not ready in time')), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (!chunk.toString().includes('ready')) return;
      clearTimeout(timer);
      resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`scan worker exited with ${code}`)));
  });
}

async function stopWorkers(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
          child.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}

/** Queues `count` scans and waits until every one has ended; throws unless each completed with its browser stage. */
async function scanAll(engine: JobEngine, database: Database, url: (host: string) => string, count: number) {
  await database.db.execute(sql.raw(`delete from ${JOB_SCHEMA}.job where name = '${ANONYMOUS_SCANS}'`));
  const jobs: AnonymousScanJob[] = Array.from({ length: count }, (_, n) => ({
    url: url(SITES[n % SITES.length]),
    aiSummary: true,
    pagespeed: false,
    language: 'en',
  }));
  const started = performance.now();
  await engine.sendMany(ANONYMOUS_SCANS, jobs);
  await engine.idle([ANONYMOUS_SCANS], 600_000);
  const seconds = (performance.now() - started) / 1000;
  const { rows } = (await database.db.execute(
    sql.raw(`select state::text as state, output from ${JOB_SCHEMA}.job where name = '${ANONYMOUS_SCANS}'`),
  )) as unknown as { rows: Array<{ state: string; output: { result?: { stages: { browser: { status: string } } } } }> };
  const bad = rows.filter((row) => row.state !== 'completed' || row.output?.result?.stages.browser.status !== 'ok');
  if (bad.length)
    throw new Error(`${bad.length} scans did not complete with the browser stage: ${JSON.stringify(bad[0])}`);
  return seconds;
}

export async function runScansBench(): Promise<ScanBenchResult> {
  const scans = Number(process.env.BENCH_SCANS || 12);
  const roundsEach = Number(process.env.BENCH_SCAN_ROUNDS || 2);
  const fixture = await startFixtureServer({ bigPageBytes: 1 });
  try {
    return await withThrowawayDatabase(async (database, databaseUrl) => {
      const engine = new JobEngine(
        { store: database.jobs },
        { pollingIntervalSeconds: 0.5, superviseIntervalSeconds: 10, instanceName: 'bench', onError: () => {} },
      );
      engine.define(ANONYMOUS_SCANS, {});
      await engine.start({ work: 'none' });
      const env = {
        DATABASE_URL: databaseUrl,
        ALLOW_PRIVATE_NETWORKS: 'true',
        BENCH_FIXTURE: JSON.stringify({
          port: fixture.port,
          caPem: fixture.certs.caPem,
          leafSpki: fixture.certs.leafSpki,
        }),
      };
      const rounds: ScanBenchRound[] = [];
      try {
        for (let round = 0; round < roundsEach * 2; round++) {
          const workers = (round % 2) + 1;
          const children: ChildProcess[] = [];
          try {
            for (let n = 0; n < workers; n++) children.push(await startWorker(env));
            await scanAll(engine, database, fixture.url, workers * 2);
            const seconds = await scanAll(engine, database, fixture.url, scans);
            rounds.push({
              workers,
              scans,
              seconds: Math.round(seconds * 10) / 10,
              scans_per_minute: Math.round((scans / seconds) * 600) / 10,
            });
          } finally {
            await stopWorkers(children);
          }
        }
      } finally {
        await engine.stop();
      }
      const median = (workers: number) => {
        const values = rounds
          .filter((round) => round.workers === workers)
          .map((round) => round.scans_per_minute)
          .sort((a, b) => a - b);
        const middle = Math.floor(values.length / 2);
        const value = values.length % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
        return Math.round(value * 10) / 10;
      };
      const one = median(1);
      const two = median(2);
      return {
        rounds,
        median_one_worker: one,
        median_two_workers: two,
        ratio: Math.round((two / one) * 100) / 100,
      };
    });
  } finally {
    await fixture.close();
  }
}

export function printScansBench(result: ScanBenchResult): void {
  console.log('\nScans per minute through the job engine (PostgreSQL, fixture pages, browser stage on)');
  console.table(result.rounds);
  console.log(
    `median: ${result.median_one_worker} scans/min with one worker, ${result.median_two_workers} with two (×${result.ratio})`,
  );
  console.log(JSON.stringify({ scans: result }));
}
