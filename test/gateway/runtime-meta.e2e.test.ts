import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domains } from '../../src/db/schema.js';
import { selfSignedWildcard } from '../../src/gateway/tls.js';
import { MINI_FBQ, MINI_GTAG, shopPageWithPixel, startShop } from '../fixtures/runtime/shop.js';
import type { TestApp } from '../helpers/app.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../helpers/browser.js';
import { createBuiltinContainer, startAppWithGateway, testRuntime } from '../helpers/gateway-app.js';
import { type GoogleFixture, startGoogleFixture, until } from '../helpers/google-fixture.js';
import { type GraphApiFixture, startGraphApi } from '../helpers/graph-api.js';

const MEASUREMENT_ID = 'G-SHOP1234';
const PIXEL_ID = '1234567890123456';
const SITE = 'shop.test';
const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

interface PixelEvent {
  name: string;
  eventID: string;
  fbp: string | null;
  fbc: string | null;
}

/**
 * The shop (https://www.shop.test) and its container on a custom domain of the same site (https://sgtm.shop.test,
 * the gateway's TLS listener), both with one self-signed `*.shop.test` certificate that Chromium is told to accept
 * by its key (--ignore-certificate-errors-spki-list): the browser sees a secure, same-site first-party setup.
 */
describe('a shop with the Meta pixel, tracked through the built-in runtime over https, in headless Chromium', () => {
  let t: TestApp;
  let google: GoogleFixture;
  let graph: GraphApiFixture;
  let shop: Awaited<ReturnType<typeof startShop>>;
  let browser: Browser;
  let containerId: string;
  let tlsPort: number;
  let token: string;
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-shop-tls-'));

  beforeAll(async () => {
    const pair = await selfSignedWildcard(SITE);
    const certFile = path.join(directory, 'cert.pem');
    const keyFile = path.join(directory, 'key.pem');
    fs.writeFileSync(certFile, pair.certificatePem);
    fs.writeFileSync(keyFile, pair.privateKeyPem);
    google = await startGoogleFixture({ script: (kind) => (kind === 'gtag' ? MINI_GTAG : '/* gtm */') });
    graph = await startGraphApi();
    ({ t } = await startAppWithGateway('pglite', {
      secretsKey: randomBytes(32),
      meta: {
        graphOrigin: graph.origin,
        graphVersion: 'v26.0',
        timeoutMs: 2000,
        deliveryRetentionDays: 30,
        batchWindowMs: 0,
      },
      gateway: { tlsPort: 0, tlsCertFile: certFile, tlsKeyFile: keyFile },
      runtime: testRuntime(google.origin),
    }));
    tlsPort = Number(new URL(await t.app.services.gatewayTls!.listen(0, '127.0.0.1')).port);
    const tenant = await t.tenantWithKey('business');
    token = tenant.token;
    const created = await createBuiltinContainer(t, token, {
      settings: {
        ga4_measurement_ids: [MEASUREMENT_ID],
        cookie_keeper: { enabled: true, cookies: ['_ga', '_fbp', '_fbc', 'FPID'] },
        click_id_restorer: { enabled: true },
        bot_detection: { mode: 'drop' },
      },
    });
    containerId = created.id;
    const pixel = await t.inject({
      method: 'POST',
      url: `/api/containers/${containerId}/meta-pixels/`,
      token,
      payload: { pixel_id: PIXEL_ID, access_token: 'EAAtesttoken1234567890abcd' },
    });
    expect(pixel.statusCode, pixel.body).toBe(201);
    // The container on a custom domain of the shop's site, activated directly (DNS verification is tested elsewhere).
    await t.database.db.insert(domains).values({
      id: 'dom_e2emeta',
      tenantId: tenant.tenantId,
      containerId,
      hostname: `sgtm.${SITE}`,
      status: 'active',
      verificationToken: 'e2e',
    });
    const loaderPath = created.settings.loader_path;
    shop = await startShop(
      () => shopPageWithPixel(`https://sgtm.${SITE}:${tlsPort}`, loaderPath, MEASUREMENT_ID, SITE),
      { tls: { cert: pair.certificatePem, key: pair.privateKeyPem }, scripts: { '/fbevents.js': MINI_FBQ } },
    );
    const spki = createHash('sha256')
      .update(new X509Certificate(pair.certificatePem).publicKey.export({ type: 'spki', format: 'der' }))
      .digest('base64');
    const rules = [`MAP www.${SITE} 127.0.0.1`, `MAP sgtm.${SITE} 127.0.0.1`, 'MAP * ~NOTFOUND', 'EXCLUDE 127.0.0.1'];
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [
        ...CHROMIUM_ARGS.filter((arg) => !arg.startsWith('--host-resolver-rules')),
        `--host-resolver-rules=${rules.join(' , ')}`,
        `--ignore-certificate-errors-spki-list=${spki}`,
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await shop?.close();
    await google?.close();
    await graph?.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  /** Opens the checkout page in `context` and waits for gtag's batch to reach the gateway and the vendors. */
  async function checkout(context: BrowserContext, expectForwards = true) {
    const page = await context.newPage();
    const googleBefore = google.hits.length;
    await page.goto(`https://www.${SITE}:${shop.port}/?fbclid=IwAR-e2e-click`);
    await page.waitForFunction(() => (window as unknown as { miniGtagLoaded?: boolean }).miniGtagLoaded);
    if (expectForwards) await until(() => google.hits.length >= googleBefore + 2, 10_000);
    else await page.waitForTimeout(500);
    await t.app.services.runtime.idle();
    const pixelEvents = await page.evaluate(() => (window as unknown as { fbqEvents: PixelEvent[] }).fbqEvents);
    const cookie = await page.evaluate(() => document.cookie);
    const userAgent = await page.evaluate(() => navigator.userAgent);
    await page.close();
    return { pixelEvents, cookie, userAgent, googleHits: google.hits.slice(googleBefore) };
  }

  const visitor = () => browser.newContext({ userAgent: BROWSER_UA, locale: 'en-GB' });
  const metaEvents = () =>
    graph.received.flatMap((sent) => (sent.params.data as Array<Record<string, unknown>>).map((event) => event));

  it("sends the purchase to the Meta Conversions API with the browser pixel's event id, value and visitor", async () => {
    const context = await visitor();
    try {
      const { pixelEvents, userAgent } = await checkout(context);
      const [purchase] = pixelEvents;
      expect(purchase).toMatchObject({ name: 'Purchase', eventID: expect.stringMatching(/^purchase-/) });
      expect(purchase.fbp).toMatch(/^fb\.1\.\d+\.\d+$/);
      expect(purchase.fbc).toMatch(/^fb\.1\.\d+\.IwAR-e2e-click$/);
      const sent = metaEvents().find((event) => event.event_name === 'Purchase');
      expect(sent).toMatchObject({
        event_id: purchase.eventID,
        action_source: 'website',
        event_source_url: `https://www.${SITE}:${shop.port}/?fbclid=IwAR-e2e-click`,
        custom_data: { value: 42.5, currency: 'EUR', order_id: 'T-1001' },
        user_data: {
          client_ip_address: '127.0.0.1',
          client_user_agent: userAgent,
          fbp: purchase.fbp,
          fbc: purchase.fbc,
        },
      });
      expect(graph.received.every((request) => request.pixelId === PIXEL_ID)).toBe(true);
      expect(metaEvents().map((event) => event.event_name)).toEqual(expect.arrayContaining(['PageView', 'Purchase']));
    } finally {
      await context.close();
    }
  });

  it('gives a returning visitor whose _ga cookie was deleted the same _ga back from the cookie keeper', async () => {
    const first = await visitor();
    const firstVisit = await checkout(first);
    const ga = /(?:^|; )_ga=([^;]+)/.exec(firstVisit.cookie)?.[1];
    expect(ga).toMatch(/^GA1\.1\.\d+\.\d+$/);
    const kept = (await first.cookies()).filter((cookie) => cookie.name !== '_ga');
    expect(kept.map((cookie) => cookie.name)).toEqual(expect.arrayContaining(['_tp_keep__ga', 'FPID']));
    await first.close();
    const second = await visitor();
    try {
      await second.addCookies(kept);
      const secondVisit = await checkout(second);
      expect(/(?:^|; )_ga=([^;]+)/.exec(secondVisit.cookie)?.[1]).toBe(ga);
      expect(secondVisit.googleHits.every((hit) => hit.params.get('cid') === ga?.slice(6))).toBe(true);
    } finally {
      await second.close();
    }
  });

  it('drops the hits of a bot user agent, forwarding nothing, and counts them', async () => {
    const context = await browser.newContext({ userAgent: GOOGLEBOT, locale: 'en-GB' });
    const metaBefore = graph.received.length;
    try {
      const { googleHits } = await checkout(context, false);
      expect(googleHits).toEqual([]);
      expect(graph.received.length).toBe(metaBefore);
    } finally {
      await context.close();
    }
    await t.app.services.gateway.flush();
    const usage = await t.inject({ method: 'GET', url: `/api/containers/${containerId}/usage/`, token });
    // The page_view and purchase of the bot's visit; the restore of the visit before.
    expect(usage.json().runtime.totals).toMatchObject({ bots_dropped: 2, cookies_restored: 1 });
  });
});
