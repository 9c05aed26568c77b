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

const PIXEL_ID = '1234567890123456';
const TOKEN = 'EAAsecretE2Etoken1234567890wxyz';
const NEW_TOKEN = 'EAArenewedE2Etoken0987654321vuts';
const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe("a container's Meta pixels page in a real browser", () => {
  let t: TestApp;
  let gatewayUrl: string;
  let google: GoogleFixture;
  let graph: GraphApiFixture;
  let dashboard: DashboardInBrowser;
  let browser: Browser;
  let page: Page;
  let host: string;
  let token: string;
  let containerId: string;
  /** The token Meta accepts for the pixel: the fake Graph API answers 190 (invalid token) to any other. */
  const acceptedTokens = { [PIXEL_ID]: TOKEN };

  beforeAll(async () => {
    google = await startGoogleFixture();
    graph = await startGraphApi({ tokens: acceptedTokens });
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
    const tenant = await tenantOwner(t, 'Pixel Co', 'pixel@example.com', 'Pam Pixel');
    token = (await t.keys.create(tenant.id, { name: 'set-up', role: 'owner' })).token;
    const container = await createBuiltinContainer(t, token, { name: 'Pixel shop' });
    host = container.default_hostname;
    containerId = container.id;
    dashboard = await openDashboard(t);
    browser = dashboard.browser;
    // bypassCSP lets the test inject axe-core; the page's own CSP is tested in test/web/assets.test.ts.
    page = await browser.newPage({ viewport: { width: 1200, height: 1000 }, bypassCSP: true });
    await signIn(page, dashboard.base, 'pixel@example.com');
  }, 120_000);
  afterAll(async () => {
    await dashboard?.close();
    await google?.close();
    await graph?.close();
  });

  /** An event sent to the container's runtime the way a site's server would, forwarded to its pixels. */
  async function sendEvent(eventId: string) {
    const response = await request(`${gatewayUrl}/events`, {
      method: 'POST',
      headers: { host, 'content-type': 'application/json', 'user-agent': BROWSER_UA },
      body: JSON.stringify({ event_name: 'purchase', event_id: eventId, value: 19.9, currency: 'EUR' }),
    });
    expect(response.statusCode, await response.body.text()).toBe(202);
    await t.app.services.runtime.idle();
  }

  const card = () => page.locator('#pixels-list .pixel', { hasText: PIXEL_ID });
  const lastDelivery = async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    return card().locator('dl').textContent();
  };

  it("is reached from the container's row and shows the API's field error at the pixel id", async () => {
    await page.getByRole('link', { name: 'Containers' }).click();
    const row = page.locator('#containers-table tbody tr', { hasText: 'Pixel shop' });
    await row.getByRole('link', { name: 'Meta pixels' }).click();
    await expect.poll(() => page.locator('#pixels-title').textContent()).toBe('Meta pixels: Pixel shop');
    await expect.poll(() => page.locator('#pixels-list').textContent()).toContain('No pixels yet');
    await page.getByLabel('Pixel id').fill('pixel-12');
    await page.getByLabel('Access token').fill(TOKEN);
    await page.getByRole('button', { name: 'Add pixel' }).click();
    const pixelId = page.getByLabel('Pixel id');
    await expect.poll(() => pixelId.getAttribute('aria-invalid')).toBe('true');
    expect(await pixelId.getAttribute('aria-describedby')).toBe('pixel-error');
    expect(await page.locator('#pixel-error').textContent()).toBe('Pixel id: is not in the expected format.');
    expect(await page.getByLabel('Access token').getAttribute('aria-invalid')).toBeNull();
    expect(await page.locator('#pixels-list').textContent()).toContain('No pixels yet');
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it('adds a pixel, lists it with the masked token only, and never shows the token again', async () => {
    expect(await page.getByLabel('Access token').getAttribute('type')).toBe('password');
    await page.getByLabel('Pixel id').fill(PIXEL_ID);
    await page.getByLabel('Test event code').fill('TEST4711');
    await page.getByRole('button', { name: 'Add pixel' }).click();
    await card().waitFor();
    const facts = (await card().textContent()) ?? '';
    expect(facts).toContain('…wxyz');
    expect(facts).toContain('TEST4711');
    expect(facts).toContain('no events sent yet');
    expect(await page.locator('#pixel-status').textContent()).toContain('not shown again');
    expect(await page.getByLabel('Access token').inputValue()).toBe('');
    expect(await page.getByLabel('Pixel id').getAttribute('aria-invalid')).toBeNull();
    expect(await page.content()).not.toContain(TOKEN);
    await page.reload();
    await card().waitFor();
    expect(await page.content()).not.toContain(TOKEN);
  }, 60_000);

  it("shows the last delivery: delivered, then failed with Meta's error message", async () => {
    await sendEvent('order-e2e-1');
    // The fake Graph API accepts only the token typed into the page: the delivery proves it was stored as typed.
    expect(graph.received.at(-1)?.params).toMatchObject({ access_token: TOKEN, test_event_code: 'TEST4711' });
    await expect.poll(lastDelivery).toMatch(/Last delivery\s*delivered · Purchase · .+ · HTTP 200/);
    expect(await card().locator('.yes').textContent()).toBe('delivered');

    graph.answerNext(graphErrors.invalidParameter('(#100) Invalid parameter: event_time is too far in the past'));
    await sendEvent('order-e2e-2');
    await expect.poll(lastDelivery).toContain('failed');
    const text = (await card().locator('dl').textContent()) ?? '';
    expect(text).toContain('HTTP 400');
    expect(text).toContain("Meta's error(#100) Invalid parameter: event_time is too far in the past");
    expect(text).toContain('OAuthException, code 100, subcode 2804003, fbtrace_id ');
    expect(await card().locator('.no').textContent()).toBe('failed');
    expect(await page.content()).not.toContain(TOKEN);
  }, 60_000);

  it('fits a phone screen (360 px) without scrolling sideways', async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    await page.reload();
    await card().locator('.no').waitFor();
    const widths = await page.evaluate(() => ({
      document: document.documentElement.scrollWidth,
      viewport: document.documentElement.clientWidth,
    }));
    expect(widths.document).toBeLessThanOrEqual(widths.viewport);
    // The page's stylesheet puts each fact under its term on phones: one column.
    const columns = await card()
      .locator('dl')
      .evaluate((list) => getComputedStyle(list).gridTemplateColumns.split(' ').length);
    expect(columns).toBe(1);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'meta-pixels.png'), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 1200, height: 1000 });
  }, 60_000);

  it('edits the test event code, then replaces the expired token, which is never shown again', async () => {
    const editButton = card().getByRole('button', { name: `Edit pixel ${PIXEL_ID}` });
    const editor = card().locator('form.pixel-edit');
    const tokenField = () => editor.getByLabel('New access token');
    await editButton.click();
    expect(await editButton.getAttribute('aria-expanded')).toBe('true');
    expect(await editor.getByLabel('Test event code').inputValue()).toBe('TEST4711');
    expect(await tokenField().getAttribute('type')).toBe('password');
    expect(await tokenField().inputValue()).toBe('');
    await editor.getByRole('button', { name: 'Cancel' }).click();
    expect(await editor.count()).toBe(0);
    expect(await editButton.getAttribute('aria-expanded')).toBe('false');

    await editButton.click();
    await editor.getByLabel('Test event code').fill('TEST0815');
    await editor.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('#pixel-status').textContent()).toBe(`Pixel ${PIXEL_ID} saved.`);
    expect(await editor.count()).toBe(0);
    expect(await card().locator('dl').textContent()).toMatch(/Access token…wxyz.*Test event codeTEST0815/);

    // Meta expired the token: events are refused until the new one is stored.
    acceptedTokens[PIXEL_ID] = NEW_TOKEN;
    await sendEvent('order-e2e-expired');
    expect(graph.received.at(-1)?.params.access_token).toBe(TOKEN);
    await expect.poll(lastDelivery).toContain('Invalid OAuth access token');

    await editButton.click();
    await tokenField().fill('too-short');
    await editor.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => tokenField().getAttribute('aria-invalid')).toBe('true');
    expect(await editor.locator('.error').textContent()).toMatch(/^New access token: /);
    await card().screenshot({ path: path.join(SCREENSHOTS, 'meta-pixels-edit.png') });
    expect(await seriousViolations(page)).toEqual([]);

    await tokenField().fill(NEW_TOKEN);
    await editor.getByLabel('Test event code').fill('');
    await editor.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('#pixel-status').textContent()).toContain('not shown again');
    expect(await page.locator('#pixel-status').textContent()).toContain('…vuts');
    const facts = (await card().locator('dl').textContent()) ?? '';
    expect(facts).toMatch(/Access token…vuts.*Test event codenone/);
    expect(await page.content()).not.toContain(NEW_TOKEN);
    await editButton.click();
    expect(await tokenField().inputValue()).toBe('');
    await editor.getByRole('button', { name: 'Cancel' }).click();
    await page.reload();
    await card().waitFor();
    expect(await page.content()).not.toContain(NEW_TOKEN);

    await sendEvent('order-e2e-renewed');
    expect(graph.received.at(-1)?.params.access_token).toBe(NEW_TOKEN);
    expect(graph.received.at(-1)?.params).not.toHaveProperty('test_event_code');
    await expect.poll(lastDelivery).toMatch(/Last delivery\s*delivered · Purchase · .+ · HTTP 200/);
  }, 60_000);

  it('deletes a pixel only after confirmation', async () => {
    const remove = () =>
      card()
        .getByRole('button', { name: `Delete pixel ${PIXEL_ID}` })
        .click();
    page.once('dialog', (dialog) => dialog.dismiss());
    await remove();
    const listed = await t.inject({ method: 'GET', url: `/api/containers/${containerId}/meta-pixels/`, token });
    expect(listed.json().results).toHaveLength(1);
    page.once('dialog', (dialog) => dialog.accept());
    await remove();
    await expect.poll(() => page.locator('#pixels-list').textContent()).toContain('No pixels yet');
    expect(await page.locator('#pixel-status').textContent()).toBe(`Pixel ${PIXEL_ID} deleted.`);
  }, 60_000);
});
