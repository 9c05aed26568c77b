import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';
import { CONFIG } from '../../helpers/gateway-app.js';

describe.each(backends)('container runtime and settings on %s', (backend) => {
  let t: TestApp;
  let tenant: { tenantId: string; token: string };

  beforeAll(async () => {
    t = await startTestApp(backend, { runWorkers: false, allowPrivateNetworks: true });
    tenant = await t.tenantWithKey('business');
  });
  afterAll(() => t?.close());

  const api = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
    t.inject({ method, url, token: tenant.token, payload });
  const create = (extra: object = {}) =>
    api('POST', '/api/containers/', { name: 'Shop', region: 'eu-central', config: CONFIG, ...extra });

  describe('createContainer · POST /api/containers/', () => {
    it('makes a container without upstream_url builtin, with a generated loader path and default power-ups', async () => {
      const created = await create();
      expect(created.statusCode, created.body).toBe(201);
      const { runtime, settings } = created.json();
      expect(runtime).toBe('builtin');
      expect(settings.loader_path).toMatch(/^[a-z0-9]{6,10}$/);
      expect(settings.loader_path).not.toMatch(/gtm|gtag|analytics|collect/);
      expect(settings).toMatchObject({
        ga4_measurement_ids: [],
        cookie_keeper: { enabled: false, cookies: ['_ga', '_fbp', '_fbc', 'FPID'] },
        click_id_restorer: { enabled: false },
        bot_detection: { mode: 'mark' },
        geo_headers: { enabled: false },
        anonymizer: {
          ga4: { ip: 'keep', user_agent: 'keep', click_ids: 'keep', user_id: 'keep', user_data: 'keep' },
          meta: { ip: 'keep', user_agent: 'keep', click_ids: 'keep', user_id: 'keep', user_data: 'keep' },
        },
      });
    });

    it('makes a container with upstream_url an upstream one', async () => {
      const created = await create({ upstream_url: 'http://127.0.0.1:9/' });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json().runtime).toBe('upstream');
    });

    it('refuses runtime upstream without upstream_url with 400 upstream_required', async () => {
      const response = await create({ runtime: 'upstream' });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'upstream_required', param: 'upstream_url' });
    });

    it('takes settings at creation, merged over the defaults', async () => {
      const created = await create({
        settings: { ga4_measurement_ids: ['G-SHOP1234'], cookie_keeper: { enabled: true } },
      });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json().settings).toMatchObject({
        ga4_measurement_ids: ['G-SHOP1234'],
        cookie_keeper: { enabled: true, cookies: ['_ga', '_fbp', '_fbc', 'FPID'] },
      });
    });
  });

  describe('updateContainer · PATCH /api/containers/:id/', () => {
    it('merges a settings change and keeps the rest', async () => {
      const { id, settings } = (await create()).json();
      const updated = await api('PATCH', `/api/containers/${id}/`, {
        settings: {
          loader_path: 'shop-tags',
          bot_detection: { mode: 'drop' },
          anonymizer: { ga4: { ip: 'truncate' } },
        },
      });
      expect(updated.statusCode, updated.body).toBe(200);
      expect(updated.json().settings).toEqual({
        ...settings,
        loader_path: 'shop-tags',
        bot_detection: { mode: 'drop' },
        anonymizer: {
          ...settings.anonymizer,
          ga4: { ip: 'truncate', user_agent: 'keep', click_ids: 'keep', user_id: 'keep', user_data: 'keep' },
        },
      });
      expect((await api('GET', `/api/containers/${id}/`)).json().settings.loader_path).toBe('shop-tags');
    });

    it.each(['my-gtm-loader', 'collector', 'googleanalytics', 'gtag2'])(
      'refuses the loader path %s, which ad blockers list, with 400 invalid_loader_path',
      async (loaderPath) => {
        const { id } = (await create()).json();
        const response = await api('PATCH', `/api/containers/${id}/`, { settings: { loader_path: loaderPath } });
        expect(response.statusCode, response.body).toBe(400);
        expect(response.json().error).toMatchObject({ code: 'invalid_loader_path', param: 'settings.loader_path' });
      },
    );

    it.each([
      [{ loader_path: 'Has Spaces' }],
      [{ ga4_measurement_ids: ['UA-1234-1'] }],
      [{ bot_detection: { mode: 'sometimes' } }],
      [{ anonymizer: { ga4: { ip: 'hash' } } }],
      [{ anonymizer: { ga4: { user_id: 'maybe' } } }],
      [{ anonymizer: { meta: { user_data: 'hash' } } }],
      [{ unknown_power_up: true }],
    ])('refuses the invalid settings %j with 400', async (settings) => {
      const { id } = (await create()).json();
      const response = await api('PATCH', `/api/containers/${id}/`, { settings });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error.type).toBe('invalid_request_error');
    });

    it.each([
      ['user_id', 'ga4', 'maybe'],
      ['user_data', 'meta', 'sometimes'],
    ])(
      'names the anonymizer field %s of %s in the 400 for %s, with the allowed values',
      async (field, vendor, value) => {
        const { id } = (await create()).json();
        const response = await api('PATCH', `/api/containers/${id}/`, {
          settings: { anonymizer: { [vendor]: { [field]: value } } },
        });
        expect(response.statusCode, response.body).toBe(400);
        expect(response.json().error).toMatchObject({
          code: 'invalid_parameter',
          param: `settings.anonymizer.${vendor}.${field}`,
          details: { allowed_values: ['keep', 'drop'] },
        });
      },
    );

    it('drops the user id and personal data per vendor, and keeps the other vendor and fields', async () => {
      const { id, settings } = (await create()).json();
      const updated = await api('PATCH', `/api/containers/${id}/`, {
        settings: { anonymizer: { ga4: { user_id: 'drop', user_data: 'drop' } } },
      });
      expect(updated.statusCode, updated.body).toBe(200);
      expect(updated.json().settings.anonymizer).toEqual({
        ga4: { ...settings.anonymizer.ga4, user_id: 'drop', user_data: 'drop' },
        meta: settings.anonymizer.meta,
      });
    });

    it('switches runtime to upstream only with an upstream_url', async () => {
      const { id } = (await create()).json();
      const refused = await api('PATCH', `/api/containers/${id}/`, { runtime: 'upstream' });
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json().error.code).toBe('upstream_required');
      const switched = await api('PATCH', `/api/containers/${id}/`, {
        runtime: 'upstream',
        upstream_url: 'http://127.0.0.1:9/',
      });
      expect(switched.statusCode, switched.body).toBe(200);
      expect(switched.json()).toMatchObject({ runtime: 'upstream', upstream_url: 'http://127.0.0.1:9/' });
      const cleared = await api('PATCH', `/api/containers/${id}/`, { upstream_url: null });
      expect(cleared.json().error.code).toBe('upstream_required');
    });
  });
});
