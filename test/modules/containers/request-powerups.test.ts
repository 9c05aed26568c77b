import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { CONFIG } from '../../helpers/gateway-app.js';

describe('the request power-ups in container settings', () => {
  let t: TestApp;
  let token: string;
  let id: string;

  beforeAll(async () => {
    t = await startTestApp('pglite', { runWorkers: false, allowPrivateNetworks: true });
    token = (await t.tenantWithKey('business')).token;
    const created = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token,
      payload: { name: 'Shop', region: 'eu-central', config: CONFIG },
    });
    id = created.json().id;
  });
  afterAll(() => t?.close());

  const patch = (settings: object) =>
    t.inject({ method: 'PATCH', url: `/api/containers/${id}/`, token, payload: { settings } });

  it('are all off on a new container', async () => {
    const read = await t.inject({ method: 'GET', url: `/api/containers/${id}/`, token });
    expect(read.json().settings).toMatchObject({
      file_proxy: { enabled: false, files: [] },
      xml_to_json: { enabled: false, paths: [] },
      request_delay: { enabled: false },
      schedule: { requests: [] },
      preview_header: { value: null },
      user_id_header: { enabled: false },
    });
  });

  it('are changed one at a time, the others kept', async () => {
    const first = await patch({ preview_header: { value: 'ZW52LTF8dGVzdA==' }, user_id_header: { enabled: true } });
    expect(first.statusCode, first.body).toBe(200);
    const second = await patch({ xml_to_json: { paths: ['/webhooks/crm'] } });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json().settings).toMatchObject({
      preview_header: { value: 'ZW52LTF8dGVzdA==' },
      user_id_header: { enabled: true },
      xml_to_json: { enabled: false, paths: ['/webhooks/crm'] },
    });
  });

  it.each([
    ['a preview value with a space', { preview_header: { value: 'a b' } }, 'preview_header'],
    ['a relative path', { xml_to_json: { paths: ['webhooks'] } }, 'xml_to_json'],
    [
      'an http file URL',
      { file_proxy: { files: [{ path: '/a.js', url: 'http://x.example/a.js', cache_seconds: 60 }] } },
      'file_proxy',
    ],
    [
      'a cache time over a day',
      { file_proxy: { files: [{ path: '/a.js', url: 'https://x.example/a.js', cache_seconds: 90_000 }] } },
      'file_proxy',
    ],
    [
      'a scheduled DELETE',
      { schedule: { requests: [{ name: 'x', cron: '0 6 * * *', method: 'DELETE', path: '/', body: null }] } },
      'schedule',
    ],
    ['an unknown key', { user_id_header: { enabled: true, salt: 'x' } }, 'user_id_header'],
    ['an unknown key in an older power-up', { cookie_keeper: { enabled: true, backup: true } }, 'cookie_keeper'],
    ['an unknown key in bot detection', { bot_detection: { mode: 'mark', score: 50 } }, 'bot_detection'],
  ])('refuses %s with 400 naming the field', async (_name, settings, field) => {
    const response = await patch(settings);
    expect(response.statusCode, response.body).toBe(400);
    expect(JSON.stringify(response.json().error)).toContain(field);
  });
});
