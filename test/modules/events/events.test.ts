import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';
import { CONFIG } from '../../helpers/gateway-app.js';

describe.each(backends)('events on %s', (backend) => {
  let t: TestApp;
  let tenant: { tenantId: string; token: string };

  beforeAll(async () => {
    t = await startTestApp(backend, { runWorkers: false });
    tenant = await t.tenantWithKey('business');
  });
  afterAll(() => t?.close());

  describe('listEvents · GET /api/events/', () => {
    it("lists the tenant's events for an object, filtered by type, and no other tenant's", async () => {
      const container = await t.inject({
        method: 'POST',
        url: '/api/containers/',
        token: tenant.token,
        payload: { name: 'Evented', region: 'eu-central', config: CONFIG },
      });
      expect(container.statusCode, container.body).toBe(201);
      const id = container.json().id;
      const events = await t.inject({ method: 'GET', url: `/api/events/?object_id=${id}`, token: tenant.token });
      expect(events.statusCode, events.body).toBe(200);
      expect(events.json().results).toEqual([
        expect.objectContaining({ object_id: id, data: expect.objectContaining({ to: 'provisioning' }) }),
      ]);
      const type = events.json().results[0].type;
      const byType = await t.inject({ method: 'GET', url: `/api/events/?type=${type}`, token: tenant.token });
      expect(byType.json().results.every((event: { type: string }) => event.type === type)).toBe(true);
      const stranger = await t.tenantWithKey('business');
      const theirs = await t.inject({ method: 'GET', url: `/api/events/?object_id=${id}`, token: stranger.token });
      expect(theirs.json().count).toBe(0);
    });
  });
});
