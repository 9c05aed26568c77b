import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase, type Database } from '../../src/db/index.js';
import { generateApiToken } from '../../src/lib/tokens.js';
import { startTestApp, testConfig } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { postgresBinDir, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { waitFor } from '../helpers/processes.js';

const CONFIG = { statusCheckMs: 100, runWorkers: true };

interface Outage {
  app: FastifyInstance;
  token: string;
  /** Makes the database unreachable. */
  breakDatabase(): Promise<void>;
}

function expectUnavailable(response: LightMyRequestResponse) {
  expect(response.statusCode, response.body).toBe(503);
  expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
  expect(response.json()).toEqual({
    error: { type: 'api_error', code: 'service_unavailable', message: expect.any(String) },
    api_meta: { request_id: response.headers['x-request-id'] },
  });
}

/** The same behaviour on both backends: 503 with Retry-After, and a status page that still renders. */
function describeOutage(setup: () => Promise<Outage>) {
  let outage: Outage;
  const inject = (options: InjectOptions) =>
    outage.app.inject({ ...options, headers: { authorization: `Bearer ${outage.token}`, ...(options.headers ?? {}) } });
  const status = async () => (await outage.app.inject({ method: 'GET', url: '/api/status.json' })).json();

  beforeAll(async () => {
    outage = await setup();
    expect((await inject({ method: 'GET', url: '/api/tenants/' })).statusCode).toBe(200); // the key is now cached
    // A component failing before the outage: its incident is recorded while the database is up.
    outage.app.services.status.register('Gateway', async () => ({ status: 'outage', detail: 'Test gateway down.' }));
    await waitFor(
      async () =>
        (await status()).open_incidents.some((incident: { component: string }) => incident.component === 'Gateway'),
      10_000,
      'the gateway incident',
    );
    await outage.breakDatabase();
  });

  it('answers 503 service_unavailable with Retry-After, for cached and uncached credentials, reads and writes', async () => {
    expectUnavailable(await inject({ method: 'GET', url: '/api/webhooks/' }));
    expectUnavailable(await inject({ method: 'POST', url: '/api/api-keys/', payload: { name: 'During the outage' } }));
    expectUnavailable(
      await inject({ method: 'GET', url: '/api/tenants/', headers: { authorization: `Bearer ${generateApiToken()}` } }),
    );
  });

  it('still renders /api/status.json and /status from what the instance knows, with the database down', async () => {
    const response = await outage.app.inject({ method: 'GET', url: '/api/status.json' });
    expect(response.statusCode, response.body).toBe(200);
    const document = response.json();
    expect(document.status).toBe('outage');
    expect(document.components.find((component: { name: string }) => component.name === 'Database')).toMatchObject({
      name: 'Database',
      status: 'outage',
      detail: 'The database is not answering.',
    });
    expect(document.stale).toBe(true);
    expect(document.components.map((component: { name: string }) => component.name)).toEqual([
      'API',
      'Database',
      'Scanner',
      'Monitoring worker',
      'Gateway',
    ]);
    expect(document.open_incidents.map((incident: { component: string }) => incident.component)).toContain('Gateway');
    expect(response.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|PGlite is closed|terminat/i);

    const page = await outage.app.inject({ method: 'GET', url: '/status' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('The database is not answering.');
    expect(page.body).toContain('Test gateway down.');
  });

  it('keeps reporting the database as down in the self-checks', async () => {
    const checks = await outage.app.services.status.evaluate();
    expect(checks.find((check) => check.name === 'Database')).toEqual({
      name: 'Database',
      status: 'outage',
      detail: 'The database is not answering.',
    });
  });
}

describe('database outage on PGlite (the instance is closed)', () => {
  let close: () => Promise<void>;
  describeOutage(async () => {
    const t = await startTestApp('pglite', CONFIG);
    const { token } = await t.tenantWithKey('pro');
    close = () => t.close();
    return { app: t.app, token, breakDatabase: () => t.database.close() };
  });
  afterAll(() => close?.());
});

describe.runIf(backends.includes('postgres') && postgresBinDir)(
  'database outage on PostgreSQL (a private cluster, stopped and started again)',
  () => {
    let cluster: PostgresCluster | undefined;
    let database: Database | undefined;
    let app: FastifyInstance | undefined;
    let token: string;

    const get = () =>
      app!.inject({ method: 'GET', url: '/api/webhooks/', headers: { authorization: `Bearer ${token}` } });

    describeOutage(async () => {
      cluster = await startPostgresCluster('outage');
      database = await openDatabase({ databaseUrl: cluster.url, pgliteDataDir: '', poolSize: 4 });
      await database.migrate();
      app = await buildApp({ config: testConfig(CONFIG), database });
      await app.ready();
      const tenant = await app.services.tenants.create({ name: 'Outage', plan: 'pro', parentId: null });
      token = (await app.services.apiKeys.create(tenant.id, { name: 'outage' })).token;
      return { app, token, breakDatabase: () => cluster!.stop() };
    });

    it('recovers once the server is back', async () => {
      await cluster!.start();
      await waitFor(async () => (await get()).statusCode === 200, 15_000, 'requests to succeed again');
      await waitFor(
        async () => {
          const document = (await app!.inject({ method: 'GET', url: '/api/status.json' })).json();
          return (
            document.components.find((component: { name: string }) => component.name === 'Database').status ===
            'operational'
          );
        },
        15_000,
        'the database to be operational again',
      );
    });

    // After the outage the app's stop waits for the job engine's graceful stop (up to the shutdown timeout) and the
    // pool's reconnects; on a loaded CI machine that once took more than the default 60 s.
    afterAll(async () => {
      await app?.close().catch(() => {});
      await database?.close().catch(() => {});
      await cluster?.destroy();
    }, 150_000);
  },
);
