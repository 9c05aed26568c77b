import { chromium } from 'playwright-core';
import { domains } from '../../src/db/schema.js';
import { Scanner } from '../../src/scanner/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINI_GTAG, shopPage, startShop } from '../fixtures/runtime/shop.js';
import type { TestApp } from '../helpers/app.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../helpers/browser.js';
import { createBuiltinContainer, startAppWithGateway, testRuntime } from '../helpers/gateway-app.js';
import { type GoogleFixture, startGoogleFixture, until } from '../helpers/google-fixture.js';

const MEASUREMENT_ID = 'G-SHOP1234';
const GOOGLE_HOSTS = ['www.googletagmanager.com', 'region1.google-analytics.com', 'www.google-analytics.com'];

describe('a shop tracked through the built-in runtime, in headless Chromium', () => {
  let t: TestApp;
  let gatewayPort: number;
  let google: GoogleFixture;
  let shop: Awaited<ReturnType<typeof startShop>>;
  let containerHost: string;
  let containerId: string;
  let tenantId: string;
  let loaderPath: string;

  beforeAll(async () => {
    google = await startGoogleFixture({ script: (kind) => (kind === 'gtag' ? MINI_GTAG : '/* gtm */') });
    const started = await startAppWithGateway('pglite', {
      runtime: testRuntime(google.origin),
    });
    t = started.t;
    gatewayPort = Number(new URL(started.gatewayUrl).port);
    const tenant = await t.tenantWithKey('business');
    const token = tenant.token;
    tenantId = tenant.tenantId;
    const container = await createBuiltinContainer(t, token, { settings: { ga4_measurement_ids: [MEASUREMENT_ID] } });
    containerHost = container.default_hostname;
    containerId = container.id;
    loaderPath = container.settings.loader_path;
    shop = await startShop(() => shopPage(`http://${containerHost}`, container.settings.loader_path, MEASUREMENT_ID));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await shop?.close();
    await google?.close();
  });

  /** Opens the shop with Google's hosts reachable (at the fixture) or blocked as an ad blocker would. */
  async function visitShop(blockGoogle: boolean) {
    const rules = [
      `MAP shop.test 127.0.0.1:${shop.port}`,
      `MAP ${containerHost} 127.0.0.1:${gatewayPort}`,
      ...GOOGLE_HOSTS.map((host) => (blockGoogle ? `MAP ${host} ~NOTFOUND` : `MAP ${host} 127.0.0.1:${google.port}`)),
      'MAP * ~NOTFOUND',
      'EXCLUDE 127.0.0.1',
    ].join(' , ');
    const args = CHROMIUM_ARGS.filter((arg) => !arg.startsWith('--host-resolver-rules')).concat(
      `--host-resolver-rules=${rules}`,
    );
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args, headless: true });
    try {
      const page = await browser.newPage();
      const before = google.hits.length;
      await page.goto('http://shop.test/');
      await page.waitForFunction(() => (window as unknown as { miniGtagLoaded?: boolean }).miniGtagLoaded);
      await until(() => google.hits.length >= before + 2, 10_000);
      const clientId = /_ga=GA1\.1\.(\d+\.\d+)/.exec(await page.evaluate(() => document.cookie))?.[1];
      const userAgent = await page.evaluate(() => navigator.userAgent);
      return { hits: google.hits.slice(before), clientId, userAgent };
    } finally {
      await browser.close();
    }
  }

  it.each([
    ['with Google reachable', false],
    ['with Google blocked by an ad blocker (first-party path only)', true],
  ])('loads gtag through the custom loader and delivers page_view and purchase to GA4 %s', async (_, blocked) => {
    const { hits, clientId, userAgent } = await visitShop(blocked);
    expect(clientId).toMatch(/^\d+\.\d+$/);
    expect(google.scripts.some((script) => script.path === `/gtag/js?id=${MEASUREMENT_ID}`)).toBe(true);
    const forwarded = hits.map((hit) => ({ ...Object.fromEntries(hit.params), userAgent: hit.userAgent }));
    const common = {
      v: '2',
      tid: MEASUREMENT_ID,
      cid: clientId,
      dl: 'http://shop.test/',
      _uip: '127.0.0.1',
      userAgent,
    };
    expect(forwarded).toHaveLength(2);
    expect(forwarded).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ ...common, en: 'page_view' }),
        expect.objectContaining({
          ...common,
          en: 'purchase',
          'epn.value': '42.5',
          cu: 'EUR',
          'ep.transaction_id': 'T-1001',
        }),
      ]),
    );
  });

  it("is reported by Tagport's tracking checker as GA4 sent first-party through a server-side endpoint", async () => {
    // The container on a custom domain of the shop's site, activated directly (DNS verification is tested elsewhere).
    await t.database.db.insert(domains).values({
      id: 'dom_e2eshop',
      tenantId,
      containerId,
      hostname: 'sgtm.shop.test',
      status: 'active',
      verificationToken: 'e2e',
    });
    const firstParty = await startShop(() =>
      shopPage(`http://sgtm.shop.test:${gatewayPort}`, loaderPath, MEASUREMENT_ID),
    );
    const hosts = ['www.shop.test', 'sgtm.shop.test'];
    const scanner = new Scanner({
      allowPrivateNetworks: true,
      browserConcurrency: 1,
      scanTimeoutMs: 30_000,
      maxPageBytes: 1_000_000,
      chromiumPath: CHROMIUM_PATH,
      hostResolverRules: [...hosts.map((host) => `MAP ${host} 127.0.0.1`), 'MAP * ~NOTFOUND', 'EXCLUDE 127.0.0.1'].join(
        ' , ',
      ),
      resolveHost: async (host: string) => {
        if (hosts.includes(host)) return ['127.0.0.1'];
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
    });
    try {
      const result = await scanner.scan({
        url: `http://www.shop.test:${firstParty.port}/`,
        aiSummary: false,
        pagespeed: false,
        language: 'en',
      });
      const ga4 = result.trackers.find((tracker) => tracker.key === 'google_analytics_4');
      expect(ga4, JSON.stringify(result.trackers)).toMatchObject({ first_party: true, server_side: true });
      expect(result.server_side_tagging).toMatchObject({
        detected: true,
        endpoints: [`http://sgtm.shop.test:${gatewayPort}`],
      });
      expect(result.server_side_tagging.evidence.map((item) => item.detail)).toEqual(
        expect.arrayContaining(['GA4 hits sent to sgtm.shop.test, not to Google: a server-side container']),
      );
    } finally {
      await scanner.close();
      await firstParty.close();
    }
  });
});
