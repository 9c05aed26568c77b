import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';

const CONFIG = Buffer.from('id=GTM-ABC1234&env=1&auth=AbCdEf123456').toString('base64');

describe('monitor targets: containers and custom domains', () => {
  let t: TestApp;
  let owner: { tenantId: string; token: string };
  let stranger: { tenantId: string; token: string };
  let container: { id: string; default_hostname: string };
  let domain: { id: string; hostname: string };

  beforeAll(async () => {
    t = await startTestApp('pglite', { runWorkers: false, allowPrivateNetworks: true });
    owner = await t.tenantWithKey('business');
    stranger = await t.tenantWithKey('business');
    container = (
      await t.inject({
        method: 'POST',
        url: '/api/containers/',
        token: owner.token,
        payload: { name: 'Tagging', region: 'eu-central', config: CONFIG },
      })
    ).json();
    domain = (
      await t.inject({
        method: 'POST',
        url: '/api/domains/',
        token: owner.token,
        payload: { hostname: 'Data.Shop.Example', container_id: container.id },
      })
    ).json();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const createMonitor = (token: string, target: Record<string, unknown>) =>
    t.inject({
      method: 'POST',
      url: '/api/monitors/',
      token,
      payload: { name: 'Target', target, interval_seconds: 60 },
    });

  describe('createMonitor · POST /api/monitors/', () => {
    it('checks a container at its default hostname and a domain at its hostname, with the path given', async () => {
      const onContainer = await createMonitor(owner.token, {
        type: 'container',
        container_id: container.id,
        path: '/healthy?probe=1',
      });
      expect(onContainer.statusCode).toBe(201);
      expect(onContainer.json().target).toEqual({
        type: 'container',
        url: `https://${container.default_hostname}/healthy?probe=1`,
        container_id: container.id,
        domain_id: null,
        path: '/healthy?probe=1',
      });

      const onDomain = await createMonitor(owner.token, { type: 'domain', domain_id: domain.id, path: '/' });
      expect(onDomain.statusCode).toBe(201);
      expect(onDomain.json().target).toEqual({
        type: 'domain',
        url: 'https://data.shop.example/',
        container_id: null,
        domain_id: domain.id,
        path: '/',
      });

      const onUrl = await createMonitor(owner.token, { type: 'url', url: 'https://localhost/status' });
      expect(onUrl.statusCode).toBe(201);
      expect(onUrl.json().target).toEqual({
        type: 'url',
        url: 'https://localhost/status',
        container_id: null,
        domain_id: null,
        path: null,
      });
    });

    it("checks the container's health on the gateway when no path is given", async () => {
      const onContainer = await createMonitor(owner.token, { type: 'container', container_id: container.id });
      expect(onContainer.json().target).toMatchObject({
        url: `https://${container.default_hostname}/healthz`,
        path: '/healthz',
      });
      const onDomain = await createMonitor(owner.token, { type: 'domain', domain_id: domain.id });
      expect(onDomain.json().target).toMatchObject({ url: 'https://data.shop.example/healthz', path: '/healthz' });
    });

    it("treats another tenant's container or domain as missing, and names the wrong or missing field", async () => {
      const foreign = await createMonitor(stranger.token, { type: 'container', container_id: container.id });
      expect(foreign.statusCode).toBe(400);
      expect(foreign.json().error).toMatchObject({ code: 'resource_missing', param: 'target.container_id' });
      expect(foreign.json().error.message).not.toContain('Tagging');

      const foreignDomain = await createMonitor(stranger.token, { type: 'domain', domain_id: domain.id });
      expect(foreignDomain.json().error).toMatchObject({ code: 'resource_missing', param: 'target.domain_id' });

      const missingId = await createMonitor(owner.token, { type: 'container' });
      expect(missingId.statusCode).toBe(400);
      expect(missingId.json().error).toMatchObject({ code: 'invalid_target', param: 'target.container_id' });

      const mixed = await createMonitor(owner.token, {
        type: 'url',
        url: 'https://localhost/status',
        container_id: container.id,
      });
      expect(mixed.json().error).toMatchObject({ code: 'invalid_target', param: 'target.container_id' });

      const badPath = await createMonitor(owner.token, { type: 'domain', domain_id: domain.id, path: 'no-slash' });
      expect(badPath.statusCode).toBe(400);

      const monitors = await t.database.db.execute(
        sql`select count(*)::int as n from monitors where tenant_id = ${stranger.tenantId}`,
      );
      expect((monitors as unknown as { rows: Array<{ n: number }> }).rows[0].n).toBe(0);
    });

    it('refuses a deleted container as a target', async () => {
      const other = (
        await t.inject({
          method: 'POST',
          url: '/api/containers/',
          token: owner.token,
          payload: { name: 'Doomed', region: 'eu-central', config: CONFIG },
        })
      ).json();
      await t.database.db.execute(sql`update containers set status = 'deleted' where id = ${other.id}`);
      const response = await createMonitor(owner.token, { type: 'container', container_id: other.id });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe('resource_missing');
    });
  });

  describe('updateMonitor · PATCH /api/monitors/:id/', () => {
    it('moves a monitor to another target with PATCH, and keeps its target when other settings change', async () => {
      const created = (await createMonitor(owner.token, { type: 'url', url: 'https://localhost/status' })).json();
      const moved = await t.inject({
        method: 'PATCH',
        url: `/api/monitors/${created.id}/`,
        token: owner.token,
        payload: { target: { type: 'domain', domain_id: domain.id, path: '/gtm.js' } },
      });
      expect(moved.statusCode).toBe(200);
      expect(moved.json().target).toMatchObject({
        type: 'domain',
        url: 'https://data.shop.example/gtm.js',
        domain_id: domain.id,
      });

      const renamed = await t.inject({
        method: 'PATCH',
        url: `/api/monitors/${created.id}/`,
        token: owner.token,
        payload: { name: 'Renamed' },
      });
      expect(renamed.json()).toMatchObject({
        name: 'Renamed',
        target: { type: 'domain', domain_id: domain.id, url: 'https://data.shop.example/gtm.js' },
      });
    });
  });

  it('changes only the fields a PATCH names: the others keep their values, not their create defaults', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/api/monitors/',
      token: owner.token,
      payload: {
        name: 'Shop',
        target: { type: 'container', container_id: container.id },
        method: 'HEAD',
        timeout_ms: 5000,
        expected_status_codes: ['200', '3xx'],
        keyword: 'ok',
        keyword_mode: 'contains',
        confirmation_checks: 4,
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const renamed = await t.inject({
      method: 'PATCH',
      url: `/api/monitors/${created.json().id}/`,
      token: owner.token,
      payload: { name: 'Shop home' },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({
      name: 'Shop home',
      method: 'HEAD',
      timeout_ms: 5000,
      expected_status_codes: ['200', '3xx'],
      keyword: 'ok',
      keyword_mode: 'contains',
      confirmation_checks: 4,
    });
  });
});
