import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { seriousViolations } from '../helpers/axe.js';
import { type DashboardInBrowser, openDashboard, SCREENSHOTS, signIn, tenantOwner } from '../helpers/browser.js';
import { createBuiltinContainer, startAppWithGateway, testRuntime } from '../helpers/gateway-app.js';
import { type GoogleFixture, startGoogleFixture } from '../helpers/google-fixture.js';
import { type GraphApiFixture, graphErrors, startGraphApi } from '../helpers/graph-api.js';

const MEASUREMENT_ID = 'G-LOG12345';
const PIXEL_ID = '1234567890123456';
const TOKEN = 'EAAsecretOutgoingLogToken1234567890';
const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const META_MESSAGE = '(#100) Invalid parameter: event_time is too far in the past';

describe('"why is my conversion missing": the outgoing log page in a real browser', () => {
  let t: TestApp;
  let gatewayUrl: string;
  let google: GoogleFixture;
  let graph: GraphApiFixture;
  let dashboard: DashboardInBrowser;
  let browser: Browser;
  let page: Page;
  let host: string;

  beforeAll(async () => {
    google = await startGoogleFixture();
    graph = await startGraphApi({ tokens: { [PIXEL_ID]: TOKEN } });
    ({ t, gatewayUrl } = await startAppWithGateway('pglite', {
      secretsKey: randomBytes(32),
      meta: {
        graphOrigin: graph.origin,
        graphVersion: 'v26.0',
        timeoutMs: 2000,
        deliveryRetentionDays: 30,
        batchWindowMs: 0,
      },
      runtime: testRuntime(google.origin),
    }));
    const tenant = await tenantOwner(t, 'Log Co', 'log@example.com', 'Lou Log');
    const token = (await t.keys.create(tenant.id, { name: 'set-up', role: 'owner' })).token;
    const container = await createBuiltinContainer(t, token, {
      name: 'Log shop',
      settings: { ga4_measurement_ids: [MEASUREMENT_ID] },
    });
    host = container.default_hostname;
    const pixel = await t.inject({
      method: 'POST',
      url: `/api/containers/${container.id}/meta-pixels/`,
      token,
      payload: { pixel_id: PIXEL_ID, access_token: TOKEN },
    });
    expect(pixel.statusCode, pixel.body).toBe(201);
    // One purchase both vendors took, one Meta refused.
    await purchase('order-web-1');
    graph.answerNext(graphErrors.invalidParameter(META_MESSAGE));
    await purchase('order-web-2');
    dashboard = await openDashboard(t);
    browser = dashboard.browser;
    // bypassCSP lets the test inject axe-core; the page's own CSP is tested in test/web/assets.test.ts.
    page = await browser.newPage({ viewport: { width: 1200, height: 1000 }, bypassCSP: true });
    await signIn(page, dashboard.base, 'log@example.com');
  }, 120_000);
  afterAll(async () => {
    await dashboard?.close();
    await google?.close();
    await graph?.close();
  });

  async function purchase(eventId: string) {
    const query = new URLSearchParams({
      v: '2',
      tid: MEASUREMENT_ID,
      cid: '111.222',
      en: 'purchase',
      cu: 'EUR',
      'epn.value': '19.9',
      'ep.event_id': eventId,
    });
    const response = await request(`${gatewayUrl}/g/collect?${query}`, {
      method: 'POST',
      headers: { host, 'user-agent': BROWSER_UA },
    });
    await response.body.dump();
    expect(response.statusCode).toBe(204);
    await t.app.services.runtime.idle();
  }

  const cards = () => page.locator('#outgoing-results .forward');

  it("is reached from the container's row and finds an event's forwards by its id", async () => {
    await page.getByRole('link', { name: 'Containers' }).click();
    const row = page.locator('#containers-table tbody tr', { hasText: 'Log shop' });
    await row.getByRole('link', { name: 'Outgoing log' }).click();
    await expect.poll(() => page.locator('#outgoing-title').textContent()).toBe('Outgoing log: Log shop');
    await expect.poll(() => cards().count()).toBe(4);
    await page.getByLabel('Event name or id').fill('order-web-1');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => cards().count()).toBe(2);
    const text = (await page.locator('#outgoing-results').textContent()) ?? '';
    expect(text).toContain(`ga4 ${MEASUREMENT_ID}`);
    expect(text).toContain(`meta ${PIXEL_ID}`);
    expect(text).toContain('accepted · HTTP 200');
    expect(text).toContain('EAAs…(masked)');
    expect(await page.locator('#outgoing-results .forward.failed').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it("highlights the forward Meta refused, with Meta's message, and never shows the token", async () => {
    await page.getByLabel('Event name or id').fill('order-web-2');
    await page.getByRole('button', { name: 'Search' }).click();
    // The last search's two cards stay until the new answer is drawn: wait for the new summary, not a count of two.
    await expect.poll(() => page.locator('#outgoing-summary').textContent()).toBe('2 forwards shown, 1 failed.');
    expect(await cards().count()).toBe(2);
    const failed = page.locator('#outgoing-results .forward.failed');
    expect(await failed.count()).toBe(1);
    expect(await failed.locator('.vendor-answer').textContent()).toBe(META_MESSAGE);
    expect(await failed.textContent()).toContain('HTTP 400');
    expect(await page.content()).not.toContain(TOKEN);
    await page.getByLabel('Event name or id').fill('purchase');
    await page.getByLabel('Outcome').selectOption('failed');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.locator('#outgoing-summary').textContent()).toBe('1 forward shown, 1 failed.');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'outgoing-log.png'), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);
});
