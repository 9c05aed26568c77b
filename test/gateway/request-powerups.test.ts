import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visitorId } from '../../src/gateway/runtime/powerups/request-headers.js';
import type { TestApp } from '../helpers/app.js';
import { createBuiltinContainer, startAppWithGateway } from '../helpers/gateway-app.js';

const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
  'accept-language': 'en-GB,en;q=0.9',
  'sec-fetch-mode': 'cors',
};
const PREVIEW = 'ZW52LTN8dGVzdHx2aWV3';

describe('the GTM preview header and user id power-ups, on an upstream container', () => {
  let t: TestApp;
  let gatewayUrl: string;
  let token: string;
  const seen: http.IncomingHttpHeaders[] = [];
  const tagging = http.createServer((req, res) => {
    seen.push(req.headers);
    res.end('ok');
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => tagging.listen(0, '127.0.0.1', resolve));
    ({ t, gatewayUrl } = await startAppWithGateway('pglite', { trustProxy: ['127.0.0.1'] }));
    token = (await t.tenantWithKey('business')).token;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => tagging.close(resolve));
  });

  const container = async (settings: object) => {
    const upstream = `http://127.0.0.1:${(tagging.address() as AddressInfo).port}`;
    return createBuiltinContainer(t, token, { runtime: 'upstream', upstream_url: upstream, settings });
  };
  async function through(host: string, headers: Record<string, string> = {}) {
    const response = await request(`${gatewayUrl}/data?v=1`, { headers: { host, ...BROWSER, ...headers } });
    await response.body.text();
    expect(response.statusCode).toBe(200);
    return seen.at(-1)!;
  }

  it('adds the configured X-Gtm-Server-Preview to a request without one, and leaves one the request has', async () => {
    const { default_hostname: host } = await container({ preview_header: { value: PREVIEW } });
    expect((await through(host))['x-gtm-server-preview']).toBe(PREVIEW);
    expect((await through(host, { 'x-gtm-server-preview': 'b3duLXZhbHVl' }))['x-gtm-server-preview']).toBe(
      'b3duLXZhbHVl',
    );
  });

  it('adds no preview header when the power-up is off', async () => {
    const { default_hostname: host } = await container({});
    expect(await through(host)).not.toHaveProperty('x-gtm-server-preview');
  });

  it("gives a visitor the same id on the same network, another on another browser or container, and drops a client's own", async () => {
    const { default_hostname: host } = await container({ user_id_header: { enabled: true } });
    const { default_hostname: other } = await container({ user_id_header: { enabled: true } });
    const first = await through(host, { 'x-forwarded-for': '198.51.100.7', 'x-stape-user-id': 'forged' });
    const renewed = await through(host, { 'x-forwarded-for': '198.51.100.99' });
    const firefox = await through(host, {
      'x-forwarded-for': '198.51.100.7',
      'user-agent': 'Mozilla/5.0 Firefox/133.0',
    });
    const elsewhere = await through(other, { 'x-forwarded-for': '198.51.100.7' });
    expect(first['x-stape-user-id']).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(first['x-tagport-user-id']).toBe(first['x-stape-user-id']);
    expect(renewed['x-stape-user-id']).toBe(first['x-stape-user-id']);
    expect(firefox['x-stape-user-id']).not.toBe(first['x-stape-user-id']);
    expect(elsewhere['x-stape-user-id']).not.toBe(first['x-stape-user-id']);
  });

  it('sends no user id when the power-up is off, and never a client-sent one', async () => {
    const { default_hostname: host } = await container({});
    const headers = await through(host, { 'x-stape-user-id': 'forged', 'x-tagport-user-id': 'forged' });
    expect(headers).not.toHaveProperty('x-stape-user-id');
    expect(headers).not.toHaveProperty('x-tagport-user-id');
  });
});

describe('visitorId', () => {
  const key = Buffer.alloc(32, 7);
  it('depends on the key, so ids of another installation differ', () => {
    const headers = { 'user-agent': 'UA', 'accept-language': 'de' };
    expect(visitorId(key, 'ctr_1', '203.0.113.9', headers)).toBe(visitorId(key, 'ctr_1', '203.0.113.200', headers));
    expect(visitorId(Buffer.alloc(32, 8), 'ctr_1', '203.0.113.9', headers)).not.toBe(
      visitorId(key, 'ctr_1', '203.0.113.9', headers),
    );
    expect(visitorId(key, 'ctr_1', '2001:db8:1:2::1', headers)).toBe(
      visitorId(key, 'ctr_1', '2001:db8:1:9::5', headers),
    );
    expect(visitorId(key, 'ctr_1', '203.0.114.9', headers)).not.toBe(visitorId(key, 'ctr_1', '203.0.113.9', headers));
  });
});
