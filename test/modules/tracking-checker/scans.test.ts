import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scans } from '../../../src/db/schema.js';
import { newId } from '../../../src/lib/ids.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

/** Stored scans, written directly (a real scan is covered by api.test.ts): reading them back needs no browser. */
describe.each(backends)('stored scans on %s', (backend) => {
  let t: TestApp;
  let tenant: { tenantId: string; token: string };

  beforeAll(async () => {
    t = await startTestApp(backend, { runWorkers: false });
    tenant = await t.tenantWithKey('pro');
  });
  afterAll(() => t?.close());

  async function storedScan(status: 'running' | 'failed'): Promise<string> {
    const id = newId('scan');
    await t.database.db.insert(scans).values({
      id,
      tenantId: tenant.tenantId,
      url: 'https://shop.example/',
      language: 'en',
      options: { ai_summary: false, pagespeed: false },
      status,
      ...(status === 'failed'
        ? { error: { code: 'target_unreachable', message: 'The page could not be reached' }, completedAt: new Date() }
        : {}),
    });
    return id;
  }

  const get = (url: string, token = tenant.token) => t.inject({ method: 'GET', url, token });

  describe('listScans · GET /api/v1/tracking-checker/scans/', () => {
    it("lists the tenant's scans with their status, and no other tenant's", async () => {
      const running = await storedScan('running');
      const failed = await storedScan('failed');
      const list = await get('/api/v1/tracking-checker/scans/');
      expect(list.statusCode, list.body).toBe(200);
      const byId = Object.fromEntries(list.json().results.map((row: { scan_id: string }) => [row.scan_id, row]));
      expect(byId[running]).toMatchObject({ status: 'running' });
      expect(byId[failed]).toMatchObject({ status: 'failed' });
      const stranger = await t.tenantWithKey('pro');
      expect((await get('/api/v1/tracking-checker/scans/', stranger.token)).json().count).toBe(0);
    });
  });

  describe('getScan · GET /api/v1/tracking-checker/scans/:id/', () => {
    it('shows a running scan with its stage', async () => {
      const id = await storedScan('running');
      const response = await get(`/api/v1/tracking-checker/scans/${id}/`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ scan_id: id, status: 'running', stage: 'scanning', completed_at: null });
    });

    it('shows a failed scan with its error', async () => {
      const response = await get(`/api/v1/tracking-checker/scans/${await storedScan('failed')}/`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({
        status: 'failed',
        error: { code: 'target_unreachable', message: 'The page could not be reached' },
      });
    });
  });
});
