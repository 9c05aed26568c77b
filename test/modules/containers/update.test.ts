import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

const config = (id: string) => Buffer.from(`id=${id}&env=1&auth=abcdefgh`).toString('base64');

describe.each(backends)('containers on %s', (backend) => {
  let t: TestApp;
  let tenant: { tenantId: string; token: string };

  beforeAll(async () => {
    t = await startTestApp(backend, { runWorkers: false });
    tenant = await t.tenantWithKey('business');
  });
  afterAll(() => t?.close());

  const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.inject({ method, url, token: tenant.token, payload });

  async function container() {
    const created = await api('POST', '/api/containers/', {
      name: 'Shop',
      region: 'eu-central',
      config: config('GTM-UPD1'),
    });
    expect(created.statusCode, created.body).toBe(201);
    return created.json() as { id: string; updated_at: string };
  }

  describe('updateContainer · PATCH /api/containers/:id/', () => {
    it('renames a container and keeps the rest', async () => {
      const created = await container();
      const renamed = await api('PATCH', `/api/containers/${created.id}/`, { name: '  Shop EU  ' });
      expect(renamed.statusCode, renamed.body).toBe(200);
      expect(renamed.json()).toMatchObject({ id: created.id, name: 'Shop EU', gtm_container_id: 'GTM-UPD1' });
      expect((await api('GET', `/api/containers/${created.id}/`)).json().name).toBe('Shop EU');
    });

    it('replaces the config and reads the GTM container id from it', async () => {
      const created = await container();
      const updated = await api('PATCH', `/api/containers/${created.id}/`, { config: config('GTM-UPD2') });
      expect(updated.statusCode, updated.body).toBe(200);
      expect(updated.json().gtm_container_id).toBe('GTM-UPD2');
    });

    it('refuses an empty change with 400 and changes nothing', async () => {
      const created = await container();
      const response = await api('PATCH', `/api/containers/${created.id}/`, {});
      expect(response.statusCode).toBe(400);
      expect(response.json().error.type).toBe('invalid_request_error');
      expect((await api('GET', `/api/containers/${created.id}/`)).json().updated_at).toBe(created.updated_at);
    });

    it('refuses a config that is not a GTM config with 400 naming config', async () => {
      const created = await container();
      const response = await api('PATCH', `/api/containers/${created.id}/`, {
        config: Buffer.from('not a config').toString('base64'),
      });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error.param).toBe('config');
    });
  });

  describe('getContainer · GET /api/containers/:id/', () => {
    it('shows the container with the actions its state allows', async () => {
      const created = await container();
      const response = await api('GET', `/api/containers/${created.id}/`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ id: created.id, name: 'Shop', status: 'provisioning' });
    });
  });

  describe('listContainers · GET /api/containers/', () => {
    it("lists the tenant's containers, and no other tenant's", async () => {
      const created = await container();
      const stranger = await t.tenantWithKey('business');
      expect((await api('GET', '/api/containers/')).json().results.map((row: { id: string }) => row.id)).toContain(
        created.id,
      );
      const theirs = await t.inject({ method: 'GET', url: '/api/containers/', token: stranger.token });
      expect(theirs.json().count).toBe(0);
    });
  });
});
