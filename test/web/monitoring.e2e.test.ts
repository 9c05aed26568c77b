import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, pageOverflow, signIn } from '../helpers/browser.js';
import { startHttpsTarget } from '../helpers/https-target.js';

const SCREENSHOTS = path.resolve('.tmp/screenshots');

describe('monitors and reports pages in a real browser', () => {
  let target: Awaited<ReturnType<typeof startHttpsTarget>>;
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let opsToken: string;

  beforeAll(async () => {
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    target = await startHttpsTarget(() => ({ status: 200, body: 'ok', delayMs: 20 }));
    t = await startTestApp('pglite', {
      allowPrivateNetworks: true,
      outboundCaCertificates: [target.ca],
      monitoring: { concurrency: 50, retentionDays: 30, trackingConcurrency: 1 },
      webhooks: { retryBaseMs: 10, maxAttempts: 3, timeoutMs: 2000 },
    });
    const tenant = await t.tenants.create({ name: 'Ops Co', plan: 'business' });
    await t.users.createUser({
      email: 'ops@example.com',
      name: 'Otto Ops',
      password: 'a very long password',
      tenantId: tenant.id,
      role: 'owner',
    });
    opsToken = (await t.keys.create(tenant.id, { name: 'setup' })).token;
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await signIn(page, base, 'ops@example.com', 'a very long password');
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await target?.close();
  });

  it('adds a monitor, sees it checked with uptime and a latency chart, and pauses it', async () => {
    await page.getByRole('link', { name: 'Monitors', exact: true }).click();
    await page.getByLabel('Name').fill('Homepage');
    await page.getByLabel('https URL').fill(target.url('/'));
    await page.getByLabel('Every (s)').fill('60');
    await page.getByRole('button', { name: 'Add monitor' }).click();
    await page.getByRole('link', { name: 'Homepage' }).click();
    await page.waitForURL(/\/dashboard\/monitors\/mon_/);
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.locator('#monitor-stats .card').first().waitFor();
          return page.locator('#monitor-stats .big').first().textContent();
        },
        { timeout: 10_000 },
      )
      .toBe('100%');
    expect(await page.locator('#monitor-status').textContent()).toBe('Status: up');
    // A monitor added a minute ago: its 30-day figure says it covers that minute, not 30 days.
    expect(await page.locator('#monitor-stats .card', { hasText: '30 days' }).locator('.covers').textContent()).toMatch(
      /^over \d+ (s|min), since the monitor was added$/,
    );
    expect(
      await page.evaluate(() =>
        Boolean((window as unknown as { Chart?: { getChart(id: string): unknown } }).Chart?.getChart('latency-chart')),
      ),
    ).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'monitor-detail.png'), fullPage: true });
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => page.locator('#monitor-status').textContent()).toBe('Status: paused');
  });

  it("adds a monitor on one of the tenant's containers with a path", async () => {
    const config = Buffer.from('id=GTM-ABC1234&env=1&auth=AbCdEf123456').toString('base64');
    const container = (
      await t.inject({
        method: 'POST',
        url: '/api/containers/',
        token: opsToken,
        payload: { name: 'Tagging', region: 'eu-central', config },
      })
    ).json();
    await page.goto(`${base}/dashboard/monitors`);
    await page.getByLabel('Target').selectOption(`container:${container.id}`);
    await expect.poll(() => page.getByLabel('https URL').isVisible()).toBe(false);
    await page.getByLabel('Name').fill('Tagging server');
    await page.getByLabel('Path').fill('/healthy');
    await page.getByRole('button', { name: 'Add monitor' }).click();
    const row = page.getByRole('row', { name: /Tagging server/ });
    await row.waitFor();
    expect(await row.textContent()).toContain(`https://${container.default_hostname}/healthy`);
    await page.getByLabel('Target').selectOption(`container:${container.id}`);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'monitors-container-target.png'), fullPage: true });
    // On a phone the page fits its width, the long target choice included.
    const { width, height } = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await pageOverflow(page)).toBe(0);
    await page.setViewportSize({ width, height });
  });

  it('requests a CSV uptime report and downloads it', async () => {
    await page.getByRole('link', { name: 'Reports' }).click();
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('From (UTC)').fill(today);
    await page.getByLabel('To (UTC, exclusive)').fill(tomorrow);
    await page.getByRole('button', { name: 'Request report' }).click();
    const link = page.getByRole('link', { name: 'Download' });
    await link.waitFor({ timeout: 10_000 });
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const file = fs.readFileSync((await download.path())!, 'utf8');
    expect(file.split('\r\n')[0]).toBe('monitor_id,name,url,checks,up_checks,uptime_pct,p50_ms,p95_ms');
    expect(file).toContain('Homepage');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'reports.png'), fullPage: true });
  });
});
