import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scanner } from '../../../src/scanner/index.js';
import { startFixtureServer, type FixtureServer } from '../../fixtures/scanner/server.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

const SCAN = '/api/v1/tracking-checker/scan/';

describe('tracking checker API end to end (real scanner, fixture sites on loopback over https)', () => {
  let fixture: FixtureServer;
  let scanner: Scanner;
  let t: TestApp;
  let agency: { tenantId: string; token: string; keyId: string };

  beforeAll(async () => {
    fixture = await startFixtureServer();
    scanner = new Scanner(fixture.scannerOptions({ browserConcurrency: 2, scanTimeoutMs: 30_000 }));
    t = await startTestApp('pglite', {}, undefined, { scanner });
    agency = await t.tenantWithKey('agency');
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await scanner?.close();
    await fixture?.close();
  });

  describe('scanPage · POST /api/v1/tracking-checker/scan/', () => {
    it('scans a page with GTM, GA4 and the Meta pixel, stores it, and reports the scan quota in the RateLimit headers', async () => {
      const response = await t.inject({
        method: 'POST',
        url: SCAN,
        token: agency.token,
        // A BCP 47 tag: its primary language is used, and named in the answer.
        payload: { url: fixture.url('shop.example.test', '/'), ai_summary: true, language: 'de-DE' },
      });
      expect(response.statusCode, response.body).toBe(200);
      const result = response.json();
      expect(result.scan_id).toMatch(/^scn_/);
      expect(result.language).toBe('de');
      expect(result.api_meta.request_id).toBe(response.headers['x-request-id']);
      const names = result.trackers.map((tracker: { name: string }) => tracker.name);
      expect(names).toEqual(expect.arrayContaining(['Google Tag Manager', 'Google Analytics 4']));
      expect(result.trackers.some((tracker: { vendor: string }) => /meta|facebook/i.test(tracker.vendor))).toBe(true);
      expect(result.consent.cmp?.name).toBe('Cookiebot');
      expect(result.ai_summary).toMatchObject({ provider: 'builtin', language: 'de' });
      expect(result.pagespeed).toBeNull();
      expect(result.loss_estimate.assumptions.length).toBeGreaterThan(0);
      expect(response.headers['ratelimit-policy']).toBe('"token";q=100;w=60, "scan-hourly";q=300;w=3600');
      expect(response.headers.ratelimit).toMatch(/^"token";r=\d+;t=\d+, "scan-hourly";r=299;t=\d+$/);

      const list = (
        await t.inject({ method: 'GET', url: '/api/v1/tracking-checker/scans/', token: agency.token })
      ).json();
      expect(list.count).toBe(1);
      expect(list.results[0]).toMatchObject({
        scan_id: result.scan_id,
        status: 'completed',
        language: 'de',
        ai_summary: true,
        pagespeed: false,
        tracker_count: result.trackers.length,
      });
      const stored = await t.inject({
        method: 'GET',
        url: `/api/v1/tracking-checker/scans/${result.scan_id}/`,
        token: agency.token,
      });
      expect(stored.statusCode).toBe(200);
      const { api_meta: _a, ...storedBody } = stored.json();
      const { api_meta: _b, ...scanBody } = result;
      // The scan resource: the same result, with its state and times.
      expect(storedBody).toEqual({
        ...scanBody,
        status: 'completed',
        created_at: expect.any(String),
        started_at: expect.any(String),
        completed_at: expect.any(String),
      });

      const other = await t.tenantWithKey('pro');
      expect(
        (
          await t.inject({
            method: 'GET',
            url: `/api/v1/tracking-checker/scans/${result.scan_id}/`,
            token: other.token,
          })
        ).statusCode,
      ).toBe(404);
      expect(
        (await t.inject({ method: 'GET', url: '/api/v1/tracking-checker/scans/', token: other.token })).json().count,
      ).toBe(0);
    });

    it.each([
      ['no url', {}, 'url', 'invalid_parameter'],
      ['an http url', { url: 'http://shop.example.test/' }, 'url', 'invalid_url'],
      ['a relative url', { url: '/index.html' }, 'url', 'invalid_url'],
      ['an ftp url', { url: 'ftp://shop.example.test/' }, 'url', 'invalid_url'],
      ['credentials in the url', { url: 'https://user:pw@shop.example.test/' }, 'url', 'invalid_url'],
      ['an unknown language', { url: 'https://shop.example.test/', language: 'xx' }, 'language', 'invalid_parameter'],
      [
        'a string for a boolean',
        { url: 'https://shop.example.test/', pagespeed: 'yes' },
        'pagespeed',
        'invalid_parameter',
      ],
      ['an unknown field', { url: 'https://shop.example.test/', depth: 3 }, 'depth', 'unknown_parameter'],
    ])('refuses %s with a 400 naming the field, and stores nothing', async (_name, payload, param, code) => {
      const tenant = await t.tenantWithKey('pro');
      const response = await t.inject({ method: 'POST', url: SCAN, token: tenant.token, payload });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ type: 'invalid_request_error', param, code });
      if (param === 'language') {
        expect(response.json().error.message).toContain('en, de, fr, es, it, nl, pt, pl');
        expect(response.json().error.details.allowed_values).toEqual(['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'pl']);
      }
      expect(
        (await t.inject({ method: 'GET', url: '/api/v1/tracking-checker/scans/', token: tenant.token })).json().count,
      ).toBe(0);
    });

    it('counts the hourly quota exactly under concurrency: two parallel scans at quota 1, one succeeds', async () => {
      const client = (
        await t.inject({
          method: 'POST',
          url: '/api/tenants/',
          token: agency.token,
          payload: { name: 'Quota client', plan: 'pro' },
        })
      ).json();
      const patched = await t.inject({
        method: 'PATCH',
        url: `/api/tenants/${client.id}/`,
        token: agency.token,
        payload: { feature_overrides: { tracking_checker_api_hourly: 1 } },
      });
      expect(patched.json().features.tracking_checker_api_hourly).toBe(1);
      const key = (
        await t.inject({
          method: 'POST',
          url: '/api/api-keys/',
          token: agency.token,
          headers: { 'tagport-tenant': client.id },
          payload: { name: 'quota' },
        })
      ).json();

      const scan = () =>
        t.inject({
          method: 'POST',
          url: SCAN,
          token: key.token,
          payload: { url: fixture.url('clean.example.test', '/') },
        });
      const responses = await Promise.all([scan(), scan()]);
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses).toEqual([200, 429]);
      const refused = responses.find((response) => response.statusCode === 429)!;
      expect(refused.json().error).toMatchObject({ type: 'quota_error', code: 'scan_quota_exceeded' });
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(3500);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(refused.headers['ratelimit-policy']).toContain('"scan-hourly";q=1;w=3600');
      expect(refused.headers.ratelimit).toContain('"scan-hourly";r=0;');

      const third = await scan();
      expect(third.statusCode).toBe(429);
      const list = (await t.inject({ method: 'GET', url: '/api/v1/tracking-checker/scans/', token: key.token })).json();
      expect(list.count).toBe(1);
    });

    it('refuses a URL that resolves to a private address when private networks are not allowed, without using the quota', async () => {
      const guarded = new Scanner({ ...fixture.scannerOptions(), allowPrivateNetworks: false });
      // A database of its own: a worker on a shared one (this file's app, private networks allowed) could take its scans.
      const strict = await startTestApp('pglite', {}, undefined, { scanner: guarded });
      try {
        const tenant = await strict.tenantWithKey('pro');
        for (const url of [
          fixture.url('shop.example.test', '/'),
          'https://127.0.0.1/',
          'https://[::1]/',
          'https://169.254.169.254/latest/meta-data/',
          'https://10.0.0.1/',
        ]) {
          const response = await strict.inject({ method: 'POST', url: SCAN, token: tenant.token, payload: { url } });
          expect(response.statusCode, url).toBe(400);
          expect(response.json().error).toMatchObject({ code: 'url_not_allowed', param: 'url' });
          expect(response.headers.ratelimit).toContain('"scan-hourly";r=60;');
          // One scan-hourly item each, not the consumed one and the given-back one side by side.
          expect(String(response.headers.ratelimit).match(/"scan-hourly"/g), url).toHaveLength(1);
          expect(String(response.headers['ratelimit-policy']).match(/"scan-hourly"/g), url).toHaveLength(1);
        }
        expect(
          (await strict.inject({ method: 'GET', url: '/api/v1/tracking-checker/scans/', token: tenant.token })).json()
            .count,
        ).toBe(0);
      } finally {
        await strict.close();
        await guarded.close();
      }
    });

    it('consent_check: true adds the consent_check section (violations first) and counts as one scan', async () => {
      const tenant = await t.tenantWithKey('agency');
      const response = await t.inject({
        method: 'POST',
        url: SCAN,
        token: tenant.token,
        payload: { url: fixture.url('www.i15c-violates.test', '/'), consent_check: true },
      });
      expect(response.statusCode, response.body).toBe(200);
      const result = response.json();
      expect(Object.keys(result.consent_check)[0]).toBe('violations');
      expect(result.consent_check).toMatchObject({
        cmp: 'Onetrust',
        banner_found: true,
        reject: { clicked: true },
        accept: { clicked: true },
        violations: [{ tracker: 'meta_pixel', fired: true, cookies: ['_fbp'] }],
      });
      expect(response.headers.ratelimit).toMatch(/"scan-hourly";r=299;/);
      const stored = await t.inject({
        method: 'GET',
        url: `/api/v1/tracking-checker/scans/${result.scan_id}/`,
        token: tenant.token,
      });
      expect(stored.json().consent_check).toEqual(result.consent_check);
    });

    it('pages: 2 scans the start page and a linked page as one scan; pages outside 1–5 are refused', async () => {
      const tenant = await t.tenantWithKey('agency');
      for (const pages of [0, 6, 1.5, '2']) {
        const refused = await t.inject({
          method: 'POST',
          url: SCAN,
          token: tenant.token,
          payload: { url: fixture.url('www.i15e-shop.test', '/'), pages },
        });
        expect(refused.statusCode, `pages: ${pages}`).toBe(400);
        expect(refused.json().error).toMatchObject({ param: 'pages' });
      }
      const response = await t.inject({
        method: 'POST',
        url: SCAN,
        token: tenant.token,
        payload: { url: fixture.url('www.i15e-shop.test', '/'), pages: 2 },
      });
      expect(response.statusCode, response.body).toBe(200);
      const result = response.json();
      expect(result.pages.map((page: { url: string }) => new URL(page.url).pathname)).toEqual(['/', '/products/shoes']);
      expect(result.trackers.map((tracker: { key: string }) => tracker.key).sort()).toEqual([
        'google_analytics_4',
        'meta_pixel',
      ]);
      expect(response.headers.ratelimit).toMatch(/"scan-hourly";r=299;/);
      const list = (
        await t.inject({ method: 'GET', url: '/api/v1/tracking-checker/scans/', token: tenant.token })
      ).json();
      expect(list.results[0]).toMatchObject({ scan_id: result.scan_id, pages: 2 });
      const stored = await t.inject({
        method: 'GET',
        url: `/api/v1/tracking-checker/scans/${result.scan_id}/`,
        token: tenant.token,
      });
      expect(stored.json().pages).toEqual(result.pages);
    });

    it('is described in the OpenAPI document with the request fields, their defaults and allowed languages', async () => {
      const document = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json();
      const operation = document.paths['/api/v1/tracking-checker/scan/'].post;
      const body = operation.requestBody.content['application/json'].schema;
      expect(body.required).toEqual(['url']);
      expect(body.properties.language).toMatchObject({ default: 'en', pattern: expect.any(String) });
      expect(body.properties.language.description).toContain('en, de, fr, es, it, nl, pt, pl');
      expect(body.properties.ai_summary.default).toBe(false);
      expect(body.properties.consent_check).toMatchObject({ type: 'boolean', default: false });
      expect(body.properties.pages).toMatchObject({ type: 'integer', minimum: 1, maximum: 5, default: 1 });
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429']));
      expect(operation.responses['200'].content['application/json'].schema.allOf).toEqual([
        { $ref: '#/components/schemas/ScanResult' },
      ]);
      expect(document.components.schemas.ScanResult.properties.loss_estimate).toBeDefined();
      expect(document.components.schemas.ScanResult.properties.consent_check.properties.violations).toBeDefined();
    });
  });
});
