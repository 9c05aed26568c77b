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

  describe('getEvent · GET /api/events/:id/', () => {
    it('answers one event of the tenant with the data its webhook deliveries carry', async () => {
      const recorded = await t.app.services.events.record(
        tenant.tenantId,
        'report.ready',
        { type: 'report', id: 'rpt_01jdv3k2m8q4r7s9t0v1w2x3y4' },
        { report_id: 'rpt_01jdv3k2m8q4r7s9t0v1w2x3y4', kind: 'usage', format: 'json' },
      );
      const event = await t.inject({ method: 'GET', url: `/api/events/${recorded.id}/`, token: tenant.token });
      expect(event.statusCode, event.body).toBe(200);
      expect(event.json()).toMatchObject({
        id: recorded.id,
        type: 'report.ready',
        object_type: 'report',
        object_id: 'rpt_01jdv3k2m8q4r7s9t0v1w2x3y4',
        data: {
          object_type: 'report',
          object_id: 'rpt_01jdv3k2m8q4r7s9t0v1w2x3y4',
          report_id: 'rpt_01jdv3k2m8q4r7s9t0v1w2x3y4',
          kind: 'usage',
        },
        created_at: recorded.created_at,
      });
    });

    it("answers 404 resource_missing for another tenant's event and an unknown id", async () => {
      const stranger = await t.tenantWithKey('business');
      const theirs = await t.app.services.events.record(
        stranger.tenantId,
        'monitor.down',
        { type: 'monitor', id: 'mon_01jdv3k2m8q4r7s9t0v1w2x3y4' },
        { monitor_id: 'mon_01jdv3k2m8q4r7s9t0v1w2x3y4' },
      );
      for (const id of [theirs.id, 'evt_01jdv3k2m8q4r7s9t0v1w2x3y4']) {
        const answer = await t.inject({ method: 'GET', url: `/api/events/${id}/`, token: tenant.token });
        expect(answer.statusCode).toBe(404);
        expect(answer.json().error).toMatchObject({ type: 'not_found_error', code: 'resource_missing', param: 'id' });
      }
    });
  });
});
