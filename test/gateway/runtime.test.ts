import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createBuiltinContainer, startAppWithGateway, testRuntime } from '../helpers/gateway-app.js';
import { type GoogleFixture, startGoogleFixture, until } from '../helpers/google-fixture.js';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) TagportTest/1.0';

describe('the built-in runtime (custom loader, GA4 collection)', () => {
  let t: TestApp;
  let gatewayUrl: string;
  let google: GoogleFixture;
  let slowGoogle: GoogleFixture;
  let token: string;

  beforeAll(async () => {
    google = await startGoogleFixture({ cacheControl: 'private, max-age=0' });
    ({ t, gatewayUrl } = await startAppWithGateway('pglite', {
      runtime: testRuntime(google.origin),
    }));
    token = (await t.tenantWithKey('business')).token;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await google?.close();
    await slowGoogle?.close();
  });

  const container = (extra: object = {}) =>
    createBuiltinContainer(t, token, {
      settings: { loader_path: 'shopjs1', ga4_measurement_ids: ['G-SHOP1234'] },
      ...extra,
    });

  async function through(
    host: string,
    path: string,
    init: { method?: 'GET' | 'POST'; body?: string; headers?: Record<string, string> } = {},
  ) {
    const response = await request(`${gatewayUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: { host, 'user-agent': UA, ...init.headers },
      body: init.body,
    });
    return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
  }

  describe('custom loader', () => {
    it('serves gtm.js for the container GTM id and gtag/js for its GA4 ids, from the tag origin', async () => {
      const { default_hostname: host } = await container();
      const gtm = await through(host, '/shopjs1.js?id=GTM-ABC1234');
      expect(gtm.status).toBe(200);
      expect(gtm.body).toBe('/* gtm GTM-ABC1234 "v1" */');
      expect(gtm.headers['content-type']).toContain('javascript');
      const gtag = await through(host, '/shopjs1.js?id=G-SHOP1234&l=myLayer');
      expect(gtag.body).toBe('/* gtag G-SHOP1234 "v1" */');
      expect(google.scripts.map((s) => s.path)).toEqual(
        expect.arrayContaining(['/gtm.js?id=GTM-ABC1234', '/gtag/js?id=G-SHOP1234&l=myLayer']),
      );
    });

    it.each(['/shopjs1.js?id=GTM-OTHER99', '/shopjs1.js?id=G-NOTOURS1', '/shopjs1.js', '/other.js?id=GTM-ABC1234'])(
      'answers 404 for %s, an id or path the container does not own',
      async (path) => {
        const { default_hostname: host } = await container();
        const before = google.scripts.length;
        const response = await through(host, path);
        expect(response.status).toBe(404);
        expect(JSON.parse(response.body).error.code).toMatch(/^(unknown_tag|not_found)$/);
        expect(google.scripts.length).toBe(before);
      },
    );

    it('revalidates a stale copy with If-None-Match and serves it meanwhile', async () => {
      const { default_hostname: host } = await container({
        settings: { loader_path: 'reval42', ga4_measurement_ids: ['G-REVAL123'] },
      });
      await through(host, '/reval42.js?id=G-REVAL123');
      const second = await through(host, '/reval42.js?id=G-REVAL123');
      expect(second.status).toBe(200);
      await until(() => google.scripts.filter((s) => s.path === '/gtag/js?id=G-REVAL123').length === 2);
      expect(google.scripts.filter((s) => s.path === '/gtag/js?id=G-REVAL123').map((s) => s.ifNoneMatch)).toEqual([
        null,
        '"v1"',
      ]);
    });

    it('fetches a script once for concurrent visitors, and not again while it is fresh', async () => {
      slowGoogle = await startGoogleFixture({ cacheControl: 'public, max-age=900', delayMs: 200 });
      const { ScriptCache } = await import('../../src/gateway/runtime/script-cache.js');
      const cache = new ScriptCache(t.app.services.outbound.dispatcher, {
        origin: slowGoogle.origin,
        timeoutMs: 2000,
        defaultTtlMs: 60_000,
        maxEntries: 10,
        onError: () => {},
      });
      const bodies = await Promise.all(Array.from({ length: 5 }, () => cache.get('/gtm.js?id=GTM-ABC1234')));
      expect(new Set(bodies.map((script) => script.body.toString()))).toEqual(new Set(['/* gtm GTM-ABC1234 "v1" */']));
      await cache.get('/gtm.js?id=GTM-ABC1234');
      expect(slowGoogle.scripts).toHaveLength(1);
    });

    it('serves the loader on an upstream container too, and proxies everything else', async () => {
      const { default_hostname: host } = await container({ upstream_url: `${google.origin}/` });
      expect((await through(host, '/shopjs1.js?id=GTM-ABC1234')).body).toBe('/* gtm GTM-ABC1234 "v1" */');
      expect((await through(host, '/gtag/js?id=G-ANYTHING1')).status).toBe(200);
      expect(google.scripts.filter((s) => s.path === '/gtag/js?id=G-ANYTHING1')).toHaveLength(1);
    });
  });

  describe('/g/collect', () => {
    it('answers 204 and forwards a GET hit with the visitor IP in _uip and the visitor user agent', async () => {
      const { default_hostname: host } = await container();
      const before = google.hits.length;
      const response = await through(
        host,
        '/g/collect?v=2&tid=G-SHOP1234&cid=111.222&en=page_view&dl=https%3A%2F%2Fshop.test%2F',
      );
      expect(response.status).toBe(204);
      expect(response.headers['set-cookie']).toBe(
        'FPID=111.222; Max-Age=34560000; Path=/; HttpOnly; Secure; SameSite=Lax',
      );
      await t.app.services.runtime.idle();
      const [hit] = google.hits.slice(before);
      expect(Object.fromEntries(hit.params)).toMatchObject({
        v: '2',
        tid: 'G-SHOP1234',
        cid: '111.222',
        en: 'page_view',
        dl: 'https://shop.test/',
        _uip: '127.0.0.1',
      });
      expect(hit.userAgent).toBe(UA);
    });

    it('splits a batched POST into one forward per line, each line over the URL parameters', async () => {
      const { default_hostname: host } = await container();
      const before = google.hits.length;
      const response = await through(host, '/g/collect?v=2&tid=G-SHOP1234&cid=5.6&dl=https%3A%2F%2Fshop.test%2Fcart', {
        method: 'POST',
        body: 'en=add_to_cart&epn.value=10\nen=purchase&epn.value=42.5&cu=EUR&ep.transaction_id=T1\n',
      });
      expect(response.status).toBe(204);
      await t.app.services.runtime.idle();
      const forwarded = google.hits.slice(before).map((hit) => Object.fromEntries(hit.params));
      expect(forwarded).toEqual([
        expect.objectContaining({ en: 'add_to_cart', 'epn.value': '10', cid: '5.6', dl: 'https://shop.test/cart' }),
        expect.objectContaining({ en: 'purchase', 'epn.value': '42.5', cu: 'EUR', 'ep.transaction_id': 'T1' }),
      ]);
    });

    it('keeps the client id of the FPID cookie over the hit cid', async () => {
      const { default_hostname: host } = await container();
      const before = google.hits.length;
      await through(host, '/g/collect?v=2&tid=G-SHOP1234&cid=999.888&en=page_view', {
        headers: { cookie: 'FPID=123.456; _ga=GA1.1.999.888' },
      });
      await t.app.services.runtime.idle();
      expect(google.hits.slice(before).map((hit) => hit.params.get('cid'))).toEqual(['123.456']);
    });

    it('does not forward hits for GA4 ids the container does not own', async () => {
      const { default_hostname: host } = await container();
      const before = google.hits.length;
      expect((await through(host, '/g/collect?v=2&tid=G-STRANGER1&cid=1.2&en=page_view')).status).toBe(204);
      await t.app.services.runtime.idle();
      expect(google.hits.length).toBe(before);
    });

    it('retries a forward that GA4 answers 503, then delivers it', async () => {
      const { default_hostname: host } = await container();
      const before = google.hits.length;
      google.state.collectStatuses.push(503);
      await through(host, '/g/collect?v=2&tid=G-SHOP1234&cid=1.2&en=retry_me');
      await t.app.services.runtime.idle();
      expect(google.hits.slice(before).map((hit) => hit.params.get('en'))).toEqual(['retry_me', 'retry_me']);
    });

    it('answers /healthz 200 on a running builtin container', async () => {
      const { default_hostname: host } = await container();
      const health = await through(host, '/healthz');
      expect(health.status, health.body).toBe(200);
    });
  });

  describe('getContainerUsage · GET /api/containers/:id/usage/', () => {
    it('counts hits received, GA4 forwards and failed forwards per UTC day', async () => {
      const { id, default_hostname: host } = await container();
      google.state.collectStatuses.push(400);
      await through(host, '/g/collect?v=2&tid=G-SHOP1234&cid=1.2', {
        method: 'POST',
        body: 'en=refused\nen=page_view\nen=purchase&epn.value=3',
      });
      await t.app.services.runtime.idle();
      const usage = await t.inject({ method: 'GET', url: `/api/containers/${id}/usage/`, token });
      expect(usage.statusCode, usage.body).toBe(200);
      const today = new Date().toISOString().slice(0, 10);
      const counts = {
        hits_received: 3,
        ga4_forwarded: 2,
        meta_forwarded: 0,
        forwards_failed: 1,
        hits_refused: 0,
        bots_dropped: 0,
        cookies_restored: 0,
      };
      expect(usage.json().runtime).toEqual({ totals: counts, days: [{ day: today, ...counts }] });
    });
  });
});
