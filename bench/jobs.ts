import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase } from '../src/db/index.js';
import { JobEngine } from '../src/jobs/engine.js';

const JOBS = 5_000;

/**
 * Jobs per second through pg-boss on PostgreSQL (BENCH_DATABASE_URL or TEST_DATABASE_URL, a throw-away database is
 * created on it): jobs sent in batches, one worker process with the webhook deliveries' settings (4 handler slots fetching batches of 10), handlers doing nothing.
 */
export async function runJobsBench() {
  const server = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!server) throw new Error('set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server');
  const name = `tagport_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), pgliteDataDir: '', poolSize: 20 });
  try {
    await database.migrate();
    let done = 0;
    const engine = new JobEngine(
      { store: database.jobs },
      { pollingIntervalSeconds: 0.5, superviseIntervalSeconds: 10, instanceName: 'bench', onError: () => {} },
    );
    engine.define('bench', {}, async () => void done++, { concurrency: 4, batchSize: 10 });
    await engine.start({ work: 'none' });
    const sendStarted = performance.now();
    for (let sent = 0; sent < JOBS; sent += 500)
      await engine.sendMany(
        'bench',
        Array.from({ length: 500 }, (_, n) => ({ n: sent + n })),
      );
    const sendSeconds = (performance.now() - sendStarted) / 1000;
    await engine.stop();
    const worker = new JobEngine(
      { store: database.jobs },
      { pollingIntervalSeconds: 0.5, superviseIntervalSeconds: 10, instanceName: 'bench', onError: () => {} },
    );
    worker.define('bench', {}, async () => void done++, { concurrency: 4, batchSize: 10 });
    const workStarted = performance.now();
    await worker.start({ work: 'all' });
    await worker.idle(['bench'], 600_000);
    const workSeconds = (performance.now() - workStarted) / 1000;
    await worker.stop();
    return {
      jobs: JOBS,
      sent_per_second: Math.round(JOBS / sendSeconds),
      worked_per_second: Math.round(done / workSeconds),
    };
  } finally {
    await database.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
