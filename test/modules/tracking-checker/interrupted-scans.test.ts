import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/lib/ids.js';
import { reserveScan } from '../../../src/modules/tracking-checker/queries.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends, createTestDatabase, type TestDatabase } from '../../helpers/database.js';

const SCAN_TIMEOUT_MS = 5_000;
const interrupted = newId('scan');
const inProgress = newId('scan');

describe.each(backends)('scans interrupted by a crash, on %s', (backend) => {
  let database: TestDatabase;
  let tenant: { tenantId: string; token: string; keyId: string };
  let webhookId: string;

  const scanRow = (id: string) => ({
    id,
    tenantId: tenant.tenantId,
    apiKeyId: null,
    url: 'https://shop.example/',
    language: 'en' as const,
    options: { ai_summary: false, pagespeed: false },
    status: 'running' as const,
  });

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    // The state a killed process leaves: one scan started long before the cap, one started just now (still in time).
    const before = await startTestApp(backend, { runWorkers: false, allowPrivateNetworks: true }, database);
    tenant = await before.tenantWithKey('pro');
    const webhook = await before.inject({
      method: 'POST',
      url: '/api/webhooks/',
      token: tenant.token,
      payload: { url: 'https://127.0.0.1:9/hook', event_types: ['tracking_checker.scan.failed'] },
    });
    expect(webhook.statusCode, webhook.body).toBe(201);
    webhookId = webhook.json().id;
    await before.database.db.execute(sql`insert into scans (id, tenant_id, url, language, options, status, created_at)
      values (${interrupted}, ${tenant.tenantId}, 'https://shop.example/', 'en', '{"ai_summary":false,"pagespeed":false}', 'running', now() - interval '10 minutes'),
             (${inProgress}, ${tenant.tenantId}, 'https://shop.example/', 'en', '{"ai_summary":false,"pagespeed":false}', 'running', now())`);
    expect((await reserveScan(before.database.db, scanRow(newId('scan')), 2)).reserved).toBe(false);
    await before.close();
  }, 60_000);
  afterAll(async () => {
    await database?.drop();
  });

  describe('after a start', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(
        backend,
        {
          runWorkers: true,
          scanner: {
            chromiumPath: '/nonexistent',
            hostResolverRules: null,
            concurrency: 1,
            scanTimeoutMs: SCAN_TIMEOUT_MS,
            observationCapMs: 10_000,
            syncWaitMs: 10_000,
          },
          webhooks: { retryBaseMs: 60_000, maxAttempts: 1, timeoutMs: 1000 },
        },
        database,
      );
    }, 60_000);
    afterAll(async () => {
      await t?.close();
    });

    it('marks a scan running longer than the cap as failed with reason interrupted, and leaves a scan in time running', async () => {
      const list = (
        await t.inject({ method: 'GET', url: '/api/v1/tracking-checker/scans/', token: tenant.token })
      ).json();
      const byId = Object.fromEntries(list.results.map((scan: { scan_id: string }) => [scan.scan_id, scan]));
      expect(byId[interrupted]).toMatchObject({
        status: 'failed',
        error: { code: 'interrupted' },
        completed_at: expect.any(String),
      });
      expect(byId[inProgress]).toMatchObject({ status: 'running', error: null });
      const stored = await t.inject({
        method: 'GET',
        url: `/api/v1/tracking-checker/scans/${interrupted}/`,
        token: tenant.token,
      });
      expect(stored.statusCode).toBe(200);
      expect(stored.json()).toMatchObject({ status: 'failed', error: { code: 'interrupted' } });
    });

    it('gives the interrupted scan its quota slot back', async () => {
      expect((await reserveScan(t.database.db, scanRow(newId('scan')), 2)).reserved).toBe(true);
      expect((await reserveScan(t.database.db, scanRow(newId('scan')), 2)).reserved).toBe(false);
    });

    it('queues one tracking_checker.scan.failed delivery, also when sweeps run side by side', async () => {
      expect(
        await Promise.all([
          t.app.services.trackingChecker.failInterruptedScans(),
          t.app.services.trackingChecker.failInterruptedScans(),
        ]),
      ).toEqual([0, 0]);
      const deliveries = (
        await t.inject({ method: 'GET', url: `/api/webhooks/${webhookId}/deliveries/`, token: tenant.token })
      ).json();
      expect(deliveries.results).toHaveLength(1);
      // Sent at once by the worker: to a closed port, with one attempt allowed.
      expect(deliveries.results[0]).toMatchObject({ event_type: 'tracking_checker.scan.failed' });
      expect(deliveries.results[0].payload).toMatchObject({
        type: 'tracking_checker.scan.failed',
        tenant_id: tenant.tenantId,
        data: { scan_id: interrupted, url: 'https://shop.example/', error: { code: 'interrupted' } },
      });
    });

    it('sweeps again on its schedule: a scan that outlives the cap later is failed by the next sweep', async () => {
      await t.database.db.execute(
        sql`update scans set created_at = now() - interval '10 minutes' where id = ${inProgress}`,
      );
      expect(await t.app.services.trackingChecker.failInterruptedScans()).toBe(1);
      const list = (
        await t.inject({ method: 'GET', url: '/api/v1/tracking-checker/scans/', token: tenant.token })
      ).json();
      expect(list.results.find((scan: { scan_id: string }) => scan.scan_id === inProgress)).toMatchObject({
        status: 'failed',
        error: { code: 'interrupted' },
      });
    });
  });
});
