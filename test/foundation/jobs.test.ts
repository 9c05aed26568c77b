import { spawn } from 'node:child_process';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobEngine } from '../../src/jobs/engine.js';
import type { Database } from '../../src/db/index.js';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { waitFor } from '../helpers/processes.js';

const hangingWorker = path.resolve('test/fixtures/jobs/hanging-worker.ts');

const settings = {
  pollingIntervalSeconds: 0.5,
  superviseIntervalSeconds: 1,
  instanceName: 'test',
  onError: () => {},
};

/** A queue whose handler records which engine ran which job, and can be told to hang (a worker that dies). */
function engineOn(database: Database, name: string, runs: string[], hang = false) {
  const engine = new JobEngine({ store: database.jobs }, { ...settings, instanceName: name });
  engine.define('probe', { retryLimit: 3 }, async (data: { n: number }) => {
    runs.push(`${name}:${data.n}`);
    if (hang) await new Promise(() => {});
  });
  return engine;
}

describe.each(backends)('the job engine on %s', (backend) => {
  let testDatabase: TestDatabase;
  beforeAll(async () => {
    testDatabase = await createTestDatabase(backend);
  }, 120_000);
  afterAll(() => testDatabase?.drop());

  it('keeps jobs across a restart: a job sent while no worker runs is done by the next one', async () => {
    const runs: string[] = [];
    const sender = engineOn(testDatabase.database, 'sender', runs);
    await sender.start({ work: 'none' });
    await sender.send('probe', { n: 1 });
    await sender.stop();
    const worker = engineOn(testDatabase.database, 'worker', runs);
    await worker.start({ work: 'all' });
    try {
      await worker.idle(['probe']);
      expect(runs).toEqual(['worker:1']);
    } finally {
      await worker.stop();
    }
  }, 60_000);

  it('stops gracefully: a job in hand finishes within the grace, one that outlasts it goes back to the queue', async () => {
    const engine = new JobEngine({ store: testDatabase.database.jobs }, settings);
    const started: number[] = [];
    engine.define('slow', { retryLimit: 3 }, async (data: { n: number }) => {
      started.push(data.n);
      await new Promise((resolve) => setTimeout(resolve, data.n === 1 ? 300 : 60_000));
    });
    await engine.start({ work: 'all' });
    await engine.send('slow', { n: 1 });
    await waitFor(async () => started.includes(1), 20_000, 'the first job to start');
    await engine.stop({ graceful: true, timeoutMs: 5_000 });
    expect(await states('slow')).toEqual(['completed']);

    const again = new JobEngine({ store: testDatabase.database.jobs }, settings);
    again.define('slow', { retryLimit: 3 }, async (data: { n: number }) => {
      started.push(data.n);
      await new Promise((resolve) => setTimeout(resolve, 60_000));
    });
    await again.start({ work: 'all' });
    await again.send('slow', { n: 2 });
    await waitFor(async () => started.includes(2), 20_000, 'the second job to start');
    const stopping = Date.now();
    await again.stop({ graceful: true, timeoutMs: 1_000 });
    expect(Date.now() - stopping).toBeLessThan(10_000);
    expect((await states('slow')).sort()).toEqual(['completed', 'retry']);
  }, 60_000);

  it('lets a job in hand send jobs while the engine stops gracefully (a scan announcing its end)', async () => {
    const engine = new JobEngine({ store: testDatabase.database.jobs }, settings);
    const sent: Array<string | null> = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    engine.define('announcing', { retryLimit: 0 }, async () => {
      await held;
      sent.push(await engine.send('announcement', {}));
    });
    engine.define('announcement', {});
    await engine.start({ work: 'all' });
    await engine.send('announcing', {});
    await waitFor(async () => (await states('announcing'))[0] === 'active', 20_000, 'the job to start');
    const stopped = engine.stop({ graceful: true, timeoutMs: 5_000 });
    release();
    await stopped;
    expect(await states('announcing')).toEqual(['completed']);
    expect(sent).toEqual([expect.any(String)]);
    expect(await states('announcement')).toEqual(['created']);
  }, 60_000);

  describe('with a backstop poll of a minute, jobs that come due unannounced are woken', () => {
    // The backstop poll cannot find a job within the tests' 20 s: whatever runs sooner was woken when due.
    const woken = { ...settings, backstopPollSeconds: 60 };
    let engine: JobEngine;
    const runs: Array<{ queue: string; n: number; at: number }> = [];
    const ran = (queue: string, n: number) => runs.some((run) => run.queue === queue && run.n === n);
    beforeAll(async () => {
      engine = new JobEngine({ store: testDatabase.database.jobs }, woken);
      const record = (queue: string) => async (data: { n: number }) => {
        runs.push({ queue, n: data.n, at: Date.now() });
      };
      engine.define('deferred', { retryLimit: 0 }, record('deferred'));
      engine.define('pooled', { retryLimit: 0 }, record('pooled'), { concurrency: 2, pool: {} });
      engine.define('flaky', { retryLimit: 2, retryDelay: 1 }, async (data: { n: number }) => {
        runs.push({ queue: 'flaky', n: data.n, at: Date.now() });
        if (runs.filter((run) => run.queue === 'flaky' && run.n === data.n).length === 1) throw new Error('first try');
      });
      engine.every('ticking', 400, async () => {
        runs.push({ queue: 'ticking', n: 0, at: Date.now() });
      });
      await engine.start({ work: 'all' });
    }, 60_000);
    afterAll(() => engine?.stop());

    it('runs a deferred job when it is due, not before', async () => {
      const due = Date.now() + 1_500;
      await engine.send('deferred', { n: 1 }, { startAfter: new Date(due) });
      await waitFor(async () => ran('deferred', 1), 20_000, 'the deferred job to run');
      expect(runs.find((run) => run.queue === 'deferred')!.at).toBeGreaterThanOrEqual(due);
    }, 30_000);

    it('runs a pooled job sent for now and one deferred (pools get no NOTIFY)', async () => {
      await engine.send('pooled', { n: 1 });
      await engine.send('pooled', { n: 2 }, { startAfter: new Date(Date.now() + 1_000) });
      await waitFor(async () => ran('pooled', 1) && ran('pooled', 2), 20_000, 'both pooled jobs to run');
    }, 30_000);

    it('retries a failed job when its retry delay is over', async () => {
      await engine.send('flaky', { n: 1 });
      await waitFor(
        async () => runs.filter((run) => run.queue === 'flaky').length === 2,
        20_000,
        'the failed job to be retried',
      );
      const [first, second] = runs.filter((run) => run.queue === 'flaky');
      expect(second.at - first.at).toBeGreaterThanOrEqual(1_000);
    }, 30_000);

    it('keeps a periodic job running on its interval', async () => {
      const before = runs.filter((run) => run.queue === 'ticking').length;
      await waitFor(
        async () => runs.filter((run) => run.queue === 'ticking').length >= before + 5,
        20_000,
        'five more runs of the periodic job',
      );
    }, 30_000);

    it.runIf(backend === 'postgres')(
      'runs a job another process deferred, woken through NOTIFY',
      async () => {
        const sender = new JobEngine(
          { store: testDatabase.database.jobs, signals: testDatabase.database },
          { ...woken, instanceName: 'sender' },
        );
        sender.define('deferred', { retryLimit: 0 });
        await sender.start({ work: 'none' });
        const receiver = new JobEngine(
          { store: testDatabase.database.jobs, signals: testDatabase.database },
          { ...woken, instanceName: 'receiver' },
        );
        const received: number[] = [];
        receiver.define('deferred', { retryLimit: 0 }, async (data: { n: number }) => {
          received.push(data.n);
        });
        await receiver.start({ work: 'all' });
        try {
          await sender.send('deferred', { n: 7 }, { startAfter: new Date(Date.now() + 1_000) });
          await waitFor(async () => received.includes(7), 20_000, 'the other process to run the deferred job');
        } finally {
          await receiver.stop();
          await sender.stop();
        }
      },
      60_000,
    );
  });

  async function states(queue: string): Promise<string[]> {
    const result = await testDatabase.database.db.execute(
      sql`select state::text as state from pgboss.job where name = ${queue} order by created_on`,
    );
    return (result as unknown as { rows: { state: string }[] }).rows.map((row) => row.state);
  }

  it.runIf(backend === 'postgres')(
    'retries on another process a job held by a process killed with SIGKILL',
    async () => {
      // Node itself with tsx's loader, so that SIGKILL reaches the process holding the job (no wrapper in between).
      const child = spawn(process.execPath, ['--import', 'tsx', hangingWorker, testDatabase.url!], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const runs: string[] = [];
      try {
        await waitFor(async () => output.includes('ready'), 60_000, `the worker process (${output})`);
        const sender = engineOn(testDatabase.database, 'sender', runs);
        await sender.start({ work: 'none' });
        await sender.send('probe', { n: 2 });
        await sender.stop();
        await waitFor(async () => output.includes('took 2'), 20_000, 'the worker process to take the job');
      } finally {
        child.kill('SIGKILL');
        await exited;
      }
      // It died holding the job: no completion, no failure; once its heartbeat lapses the job is retried here.
      const survivor = engineOn(testDatabase.database, 'survivor', runs);
      await survivor.start({ work: 'all' });
      try {
        await waitFor(async () => runs.includes('survivor:2'), 60_000, 'the other worker to retry the job');
        await survivor.idle(['probe']);
        expect(runs).toEqual(['survivor:2']);
      } finally {
        await survivor.stop();
      }
    },
    180_000,
  );
});
