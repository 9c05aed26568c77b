import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '../../../src/db/schema.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

describe.each(backends)('webhooks on %s', (backend) => {
  let t: TestApp;
  let tenant: { tenantId: string; token: string };
  let other: { tenantId: string; token: string };

  beforeAll(async () => {
    // Nothing is delivered: the workers do not run, and the receiver address is on loopback.
    t = await startTestApp(backend, { runWorkers: false, allowPrivateNetworks: true });
    tenant = await t.tenantWithKey('business');
    other = await t.tenantWithKey('business');
  });
  afterAll(() => t?.close());

  async function webhook(token = tenant.token) {
    const created = await t.inject({
      method: 'POST',
      url: '/api/webhooks/',
      token,
      payload: { url: 'https://127.0.0.1:9/hooks', event_types: ['monitor.down'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    return created.json() as { id: string; secret: string };
  }

  describe('listWebhooks · GET /api/webhooks/', () => {
    it("lists the tenant's webhooks without their secrets, and no other tenant's", async () => {
      const mine = await webhook();
      const theirs = await webhook(other.token);
      const response = await t.inject({ method: 'GET', url: '/api/webhooks/', token: tenant.token });
      expect(response.statusCode, response.body).toBe(200);
      const ids = response.json().results.map((hook: { id: string }) => hook.id);
      expect(ids).toContain(mine.id);
      expect(ids).not.toContain(theirs.id);
      expect(response.body).not.toContain(mine.secret);
      expect(response.json().results[0]).not.toHaveProperty('secret');
    });
  });

  describe('deleteWebhook · DELETE /api/webhooks/:id/', () => {
    it('deletes the webhook: it is answered once, then 404', async () => {
      const hook = await webhook();
      const deleted = await t.inject({ method: 'DELETE', url: `/api/webhooks/${hook.id}/`, token: tenant.token });
      expect(deleted.statusCode, deleted.body).toBe(200);
      expect(deleted.json()).toMatchObject({ id: hook.id });
      expect(deleted.json()).not.toHaveProperty('secret');
      const read = await t.inject({ method: 'GET', url: `/api/webhooks/${hook.id}/`, token: tenant.token });
      expect(read.statusCode).toBe(404);
      const again = await t.inject({ method: 'DELETE', url: `/api/webhooks/${hook.id}/`, token: tenant.token });
      expect(again.statusCode).toBe(404);
      expect(again.json().error.type).toBe('not_found_error');
    });

    it('queues no delivery to a deleted webhook', async () => {
      const hook = await webhook();
      const kept = await webhook();
      await t.inject({ method: 'DELETE', url: `/api/webhooks/${hook.id}/`, token: tenant.token });
      await t.app.services.events.record(
        tenant.tenantId,
        'monitor.down',
        { type: 'monitor', id: 'mon_deleted' },
        { monitor_id: 'mon_deleted' },
      );
      const queued = await t.database.db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.webhookId, hook.id));
      expect(queued).toEqual([]);
      const toKept = await t.database.db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.webhookId, kept.id));
      expect(toKept).toHaveLength(1);
    });
  });

  describe('getWebhook · GET /api/webhooks/:id/', () => {
    it('shows the webhook without its secret', async () => {
      const hook = await webhook();
      const response = await t.inject({ method: 'GET', url: `/api/webhooks/${hook.id}/`, token: tenant.token });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({
        id: hook.id,
        url: 'https://127.0.0.1:9/hooks',
        event_types: ['monitor.down'],
      });
      expect(response.json()).not.toHaveProperty('secret');
    });
  });
});
