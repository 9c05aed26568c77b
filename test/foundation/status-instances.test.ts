import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../helpers/database.js';

describe.runIf(postgresUrl)('status.json on two instances of one PostgreSQL database', () => {
  let shared: TestDatabase;
  /** Runs the workers, and with them the status checks. */
  let worker: TestApp;
  /** Serves the API only, as a second process behind the same load balancer would. */
  let api: TestApp;

  beforeAll(async () => {
    shared = await createTestDatabase('postgres');
    const otherConnection = await openDatabase({ databaseUrl: shared.url, pgliteDataDir: '', poolSize: 5 });
    worker = await startTestApp('postgres', {}, shared);
    api = await startTestApp(
      'postgres',
      { runWorkers: false },
      { database: otherConnection, url: shared.url, drop: () => otherConnection.close() },
    );
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await worker?.close();
    await api?.testDatabase.drop();
    await shared?.drop();
  });

  const statusOf = async (t: TestApp) => {
    const document = (await t.inject({ method: 'GET', url: '/api/status.json' })).json();
    return {
      status: document.status as string,
      components: (document.components as Array<{ name: string; status: string; detail: string }>).map(
        ({ name, status, detail }) => ({ name, status, detail }),
      ),
    };
  };

  it('both answer what the workers last found, whichever instance is asked', async () => {
    const found = await worker.app.services.status.evaluate();
    const fromWorker = await statusOf(worker);
    const fromApi = await statusOf(api);
    expect(fromApi).toEqual(fromWorker);
    expect(fromWorker.components.map(({ name, status }) => ({ name, status }))).toEqual(
      found.map(({ name, status }) => ({ name, status })),
    );
  });
});
