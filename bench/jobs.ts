import { JobEngine } from '../src/jobs/engine.js';
import { withThrowawayDatabase } from './database.js';

const JOBS = 5_000;

/**
 * Jobs per second through pg-boss on PostgreSQL (BENCH_DATABASE_URL or TEST_DATABASE_URL, a throw-away database is
 * created on it): jobs sent in batches, one worker process with the webhook deliveries' settings (4 handler slots fetching batches of 10), handlers doing nothing.
 */
export async function runJobsBench() {
  return withThrowawayDatabase(async (database) => {
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
  });
}
