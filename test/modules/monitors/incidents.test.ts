import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidents, webhookDeliveries } from '../../../src/db/schema.js';
import { newId } from '../../../src/lib/ids.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

describe.each(backends)('monitors and incidents on %s', (backend) => {
  let t: TestApp;
  let tenant: { tenantId: string; token: string };

  beforeAll(async () => {
    // No check ever runs (no workers); incidents are written directly, as a failing check would open them.
    t = await startTestApp(backend, { runWorkers: false, allowPrivateNetworks: true });
    tenant = await t.tenantWithKey('business');
  });
  afterAll(() => t?.close());

  const api = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    t.inject({ method, url, token: tenant.token, payload });

  async function monitor(): Promise<string> {
    const created = await api('POST', '/api/monitors/', {
      name: 'Shop',
      target: { type: 'url', url: 'https://127.0.0.1:9/shop' },
    });
    expect(created.statusCode, created.body).toBe(201);
    return created.json().id;
  }

  async function openIncident(monitorId?: string): Promise<string> {
    const id = newId('incident');
    await t.database.db.insert(incidents).values({
      id,
      tenantId: tenant.tenantId,
      monitorId: monitorId ?? (await monitor()),
      status: 'open',
      cause: 'HTTP 500',
    });
    return id;
  }

  describe('deleteMonitor · DELETE /api/monitors/:id/', () => {
    it('deletes the monitor: it is answered once, then 404', async () => {
      const id = await monitor();
      const deleted = await api('DELETE', `/api/monitors/${id}/`);
      expect(deleted.statusCode, deleted.body).toBe(200);
      expect(deleted.json()).toMatchObject({ id, name: 'Shop' });
      expect((await api('GET', `/api/monitors/${id}/`)).statusCode).toBe(404);
      const again = await api('DELETE', `/api/monitors/${id}/`);
      expect(again.statusCode).toBe(404);
      expect(again.json().error.type).toBe('not_found_error');
    });

    it('deletes its incidents with it', async () => {
      const id = await monitor();
      const incident = await openIncident(id);
      await api('DELETE', `/api/monitors/${id}/`);
      const list = (await api('GET', '/api/incidents/')).json();
      expect(list.results.map((row: { id: string }) => row.id)).not.toContain(incident);
    });
  });

  describe('acknowledgeIncident · POST /api/incidents/:id/acknowledge/', () => {
    it('moves an open incident to acknowledged with the time', async () => {
      const id = await openIncident();
      const response = await api('POST', `/api/incidents/${id}/acknowledge/`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ id, status: 'acknowledged', acknowledged_at: expect.any(String) });
    });

    it('answers 409 invalid_transition once acknowledged', async () => {
      const id = await openIncident();
      await api('POST', `/api/incidents/${id}/acknowledge/`);
      const again = await api('POST', `/api/incidents/${id}/acknowledge/`);
      expect(again.statusCode).toBe(409);
      expect(again.json().error.code).toBe('invalid_transition');
    });
  });

  describe('resolveIncident · POST /api/incidents/:id/resolve/', () => {
    it('resolves an acknowledged incident and sends incident.resolved, resolved by the user', async () => {
      const hook = await api('POST', '/api/webhooks/', {
        url: 'https://127.0.0.1:9/hooks',
        event_types: ['incident.resolved'],
      });
      expect(hook.statusCode, hook.body).toBe(201);
      const id = await openIncident();
      await api('POST', `/api/incidents/${id}/acknowledge/`);
      const response = await api('POST', `/api/incidents/${id}/resolve/`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ id, status: 'resolved', resolved_at: expect.any(String) });
      const queued = await t.database.db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.webhookId, hook.json().id));
      expect(queued).toHaveLength(1);
      expect(JSON.stringify(queued[0])).toContain('"resolved_by":"user"');
    });

    it('answers 409 invalid_transition once resolved', async () => {
      const id = await openIncident();
      await api('POST', `/api/incidents/${id}/resolve/`);
      const again = await api('POST', `/api/incidents/${id}/resolve/`);
      expect(again.statusCode).toBe(409);
      expect(again.json().error.code).toBe('invalid_transition');
    });
  });

  describe('listMonitors · GET /api/monitors/', () => {
    it("lists the tenant's monitors, and no other tenant's", async () => {
      const id = await monitor();
      const stranger = await t.tenantWithKey('business');
      const mine = (await api('GET', '/api/monitors/')).json();
      expect(mine.results.map((row: { id: string }) => row.id)).toContain(id);
      const theirs = (await t.inject({ method: 'GET', url: '/api/monitors/', token: stranger.token })).json();
      expect(theirs.count).toBe(0);
    });
  });

  describe('getMonitorStats · GET /api/monitors/:id/stats/', () => {
    it('answers empty windows for a monitor that has not run', async () => {
      const id = await monitor();
      const stats = await api('GET', `/api/monitors/${id}/stats/`);
      expect(stats.statusCode, stats.body).toBe(200);
      expect(stats.json()).toMatchObject({ monitor_id: id, last_24h: { checks: 0 } });
    });
  });

  describe('listIncidents · GET /api/incidents/', () => {
    it('filters by monitor and by status', async () => {
      const monitorId = await monitor();
      // One open incident per monitor at a time: resolve the first before the second opens.
      const resolved = await openIncident(monitorId);
      await api('POST', `/api/incidents/${resolved}/resolve/`);
      const open = await openIncident(monitorId);
      const all = (await api('GET', `/api/incidents/?monitor_id=${monitorId}`)).json();
      expect(all.results.map((row: { id: string }) => row.id).sort()).toEqual([open, resolved].sort());
      const onlyOpen = (await api('GET', `/api/incidents/?monitor_id=${monitorId}&status=open`)).json();
      expect(onlyOpen.results.map((row: { id: string }) => row.id)).toEqual([open]);
    });
  });
});
