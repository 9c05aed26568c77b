import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seriousViolations } from '../helpers/axe.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, signIn } from '../helpers/browser.js';
import { startHttpsTarget } from '../helpers/https-target.js';

const SCREENSHOTS = path.resolve('.tmp/screenshots');

describe('notification channels in a real browser', () => {
  let receiver: Awaited<ReturnType<typeof startHttpsTarget>>;
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let token: string;

  beforeAll(async () => {
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    receiver = await startHttpsTarget(() => ({ status: 200, body: 'ok' }));
    t = await startTestApp('pglite', {
      allowPrivateNetworks: true,
      outboundCaCertificates: [receiver.ca],
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
    token = (await t.keys.create(tenant.id, { name: 'setup' })).token;
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
    // bypassCSP lets the test inject axe-core; the page's own CSP is tested in test/web/assets.test.ts.
    page = await browser.newPage({ viewport: { width: 1200, height: 900 }, bypassCSP: true });
    await signIn(page, base, 'ops@example.com', 'a very long password');
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  it('adds a Slack channel, sends it a test, and attaches it to a new monitor', async () => {
    await page.getByRole('link', { name: 'Notifications' }).click();
    await page.waitForURL(`${base}/dashboard/notifications`);
    // This instance has no mail server: e-mail is shown but cannot be chosen, the reason is on the page, and the
    // form starts on a type that works.
    expect(await page.getByLabel('Type').inputValue()).toBe('slack');
    expect(await page.locator('#channel-type option[value="email"]').isDisabled()).toBe(true);
    expect(await page.locator('#channel-mail-hint').textContent()).toContain('no mail server');
    expect(await page.locator('#channel-target-label').textContent()).toBe('Incoming webhook URL');
    await page.getByLabel('Name').fill('#alerts');
    await page.getByLabel('Type').selectOption('slack');
    await page.getByLabel('Incoming webhook URL').fill(receiver.url('/services/T1/B1/sEcReT'));
    await page.getByRole('button', { name: 'Add channel' }).click();
    const row = page.getByRole('row', { name: /#alerts/ });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).not.toContain('sEcReT');

    await page.getByRole('button', { name: 'Send test to #alerts' }).click();
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Deliveries of #alerts' }).click();
          return page.locator('#deliveries-table tbody').textContent();
        },
        { timeout: 15_000 },
      )
      .toContain('succeeded');
    const [posted] = receiver.received;
    expect(JSON.parse(posted.body).text).toContain('*Test notification for #alerts*');
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'notifications-desktop.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'notifications-phone.png'), fullPage: true });
    await page.setViewportSize({ width: 1200, height: 900 });

    await page.getByRole('link', { name: 'Monitors', exact: true }).click();
    await page.waitForURL(`${base}/dashboard/monitors`);
    await page.getByLabel('Name', { exact: true }).fill('Homepage');
    await page.getByLabel('https URL').fill(receiver.url('/'));
    await page.getByRole('checkbox', { name: '#alerts' }).check();
    await page.getByRole('button', { name: 'Add monitor' }).click();
    await page.getByRole('link', { name: 'Homepage' }).click();
    await page.waitForURL(/\/dashboard\/monitors\/mon_/);
    await expect.poll(() => page.getByRole('checkbox', { name: '#alerts' }).isChecked()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    const channels = await t.inject({ method: 'GET', url: '/api/notification-channels/', token });
    const monitors = await t.inject({ method: 'GET', url: '/api/monitors/', token });
    expect(monitors.json().results[0].notification_channel_ids).toEqual([channels.json().results[0].id]);

    // Unchecking and saving on the monitor's page takes the channel off.
    await page.getByRole('checkbox', { name: '#alerts' }).uncheck();
    await page.getByRole('button', { name: 'Save channels' }).click();
    await expect.poll(() => page.locator('#monitor-channels-status').textContent()).toBe('Saved.');
    const after = await t.inject({ method: 'GET', url: '/api/monitors/', token });
    expect(after.json().results[0].notification_channel_ids).toEqual([]);
    await page.goto(`${base}/dashboard/monitors`);
    await page.getByRole('checkbox', { name: '#alerts' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'monitors-with-channels.png'), fullPage: true });
  }, 60_000);
});
