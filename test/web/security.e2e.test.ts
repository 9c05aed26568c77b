import path from 'node:path';
import { generate } from 'otplib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  type DashboardInBrowser,
  openDashboard,
  pageOverflow,
  SCREENSHOTS,
  signIn,
  tenantOwner,
} from '../helpers/browser.js';
import { PASSWORD } from '../helpers/people.js';

const nextCode = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });

describe('two-factor sign-in and sessions in a real browser', () => {
  let t: TestApp;
  let dashboard: DashboardInBrowser;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp('pglite', { runWorkers: false });
    dashboard = await openDashboard(t);
    ({ base, browser } = dashboard);
  }, 120_000);
  afterAll(() => dashboard?.close());

  it('enrols with the QR page, signs in with a code, and signs another browser out', async () => {
    await tenantOwner(t, 'Secure Co', 'sam@example.com', 'Sam');
    const laptop = await browser.newContext({ viewport: { width: 1200, height: 900 }, userAgent: 'Laptop browser' });
    const page = await laptop.newPage();
    await signIn(page, base, 'sam@example.com', PASSWORD);
    await page.getByRole('link', { name: 'Sam' }).click();
    await page.waitForURL(`${base}/dashboard/security`);
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await page.getByAltText('QR code for your authenticator app').waitFor();
    expect(
      await page
        .getByAltText('QR code for your authenticator app')
        .evaluate((img: HTMLImageElement) => img.naturalWidth),
    ).toBeGreaterThan(0);
    const secret = (await page.locator('#two-factor-secret').textContent())!.trim();
    await page.getByLabel('Code from the app').fill(await nextCode(secret));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.locator('#recovery-list li').first().waitFor();
    expect(await page.locator('#recovery-list li').count()).toBe(10);
    expect(await page.locator('#two-factor-state').textContent()).toContain('10 recovery codes left');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'security-enrolled.png'), fullPage: true });

    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, userAgent: 'Phone browser' });
    const phonePage = await phone.newPage();
    await phonePage.goto(`${base}/login`);
    await phonePage.getByLabel('Email').fill('sam@example.com');
    await phonePage.getByLabel('Password').fill(PASSWORD);
    await phonePage.getByRole('button', { name: 'Sign in' }).click();
    const code = phonePage.getByLabel(/Authentication code/);
    await code.waitFor();
    const recovery = (await page.locator('#recovery-list li').first().textContent())!.trim();
    await code.fill(recovery);
    await phonePage.getByRole('button', { name: 'Sign in' }).click();
    await phonePage.waitForURL(`${base}/dashboard`);
    // On the phone, the sessions table scrolls inside its box: the page itself does not scroll sideways.
    await phonePage.goto(`${base}/dashboard/security`);
    await phonePage.locator('#sessions-table tbody tr', { hasText: 'Laptop browser' }).waitFor();
    expect(await pageOverflow(phonePage)).toBe(0);

    await page.reload();
    const phoneRow = page.locator('#sessions-table tbody tr', { hasText: 'Phone browser' });
    await phoneRow.waitFor();
    expect(await phoneRow.textContent()).toContain('yes');
    await phoneRow.getByRole('button', { name: 'Sign out the session from Phone browser' }).click();
    await phoneRow.waitFor({ state: 'detached' });
    await phonePage.goto(`${base}/dashboard/api-keys`);
    await phonePage.waitForURL(/\/login/);
    await laptop.close();
    await phone.close();
  });

  it('sends a member to the security page while the tenant requires two-factor sign-in', async () => {
    const tenant = await t.tenants.create({ name: 'Strict Co', plan: 'business' });
    const owner = await t.keys.create(tenant.id, { name: 'owner', role: 'owner' });
    await t.inject({
      method: 'PATCH',
      url: `/api/tenants/${tenant.id}/`,
      token: owner.token,
      payload: { require_two_factor: true },
    });
    await t.users.createUser({
      email: 'mia@example.com',
      name: 'Mia',
      password: PASSWORD,
      tenantId: tenant.id,
      role: 'member',
    });
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await signIn(page, base, 'mia@example.com', PASSWORD);
    await page.waitForURL(`${base}/dashboard/security`);
    // The page shows the notice once its script has read the two-factor status from the API.
    const required = page.locator('#two-factor-required');
    await required.waitFor({ state: 'visible' });
    expect(await required.isVisible()).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'security-required-phone.png'), fullPage: true });
    await context.close();
  });
});
