import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type DashboardInBrowser, openDashboard } from '../helpers/browser.js';

describe('set-up page of a database the CLI provisioned, in a real browser', () => {
  let t: TestApp;
  let dashboard: DashboardInBrowser;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp('pglite');
    await t.tenantWithKey('agency');
    dashboard = await openDashboard(t);
    ({ base, browser } = dashboard);
  });
  afterAll(async () => {
    await dashboard?.close();
  });

  it('refuses without the token and sets up the owner from the one-time URL', async () => {
    const page = await browser.newPage();
    const fill = async () => {
      await page.getByLabel('Organisation').fill('Provisioned Agency');
      await page.getByLabel('Your name').fill('Pia Provisioned');
      await page.getByLabel('Email').fill('pia@example.com');
      await page.getByLabel(/^Password/).fill('a very long password');
      await page.getByRole('button', { name: 'Create owner account' }).click();
    };

    await page.goto(`${base}/login`);
    expect(new URL(page.url()).pathname).toBe('/setup');
    await page.getByLabel(/Set-up token/).fill('tgs_wrong');
    await page.getByLabel(/^Password/).fill('short');
    await page.getByRole('button', { name: 'Create owner account' }).click();
    const problems = page.locator('#setup-error li');
    await problems.first().waitFor();
    expect(await problems.allTextContents()).toEqual(
      expect.arrayContaining(['Organisation: must not be empty.', 'Password: must be at least 12 characters long.']),
    );
    expect(await page.getByLabel('Organisation').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel(/^Password/).getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('organisation');
    await page.getByLabel(/Set-up token/).fill('tgs_wrong');
    await fill();
    await page.locator('#setup-error', { hasText: 'wrong, expired or already used' }).waitFor();

    const { token } = await t.users.createSetupToken();
    await page.goto(`${base}/setup?token=${encodeURIComponent(token)}`);
    await expect(page.getByLabel(/Set-up token/).inputValue()).resolves.toBe(token);
    await fill();
    await page.waitForURL(`${base}/dashboard`);
    expect(await t.users.setupState()).toBe('done');
  });
});

describe('set-up page of a fresh database, in a real browser', () => {
  let dashboard: DashboardInBrowser;

  beforeAll(async () => {
    dashboard = await openDashboard(await startTestApp('pglite'));
  });
  afterAll(async () => {
    await dashboard?.close();
  });

  it('offers the partner plan, says what it allows, and sets the organisation up on it', async () => {
    const { base, browser } = dashboard;
    const page = await browser.newPage();
    await page.goto(`${base}/setup`);
    const plans = page.getByLabel('Plan');
    expect(await plans.locator('option').allTextContents()).toEqual([
      'Agency (manages up to 100 client tenants)',
      'Partner (manages up to 1,000 client tenants)',
      'Business',
      'Pro',
      'Free',
    ]);
    await plans.selectOption({ label: 'Partner (manages up to 1,000 client tenants)' });
    await page.getByLabel('Organisation').fill('Reseller Partner');
    await page.getByLabel('Your name').fill('Paul Partner');
    await page.getByLabel('Email').fill('paul@example.com');
    await page.getByLabel(/^Password/).fill('a very long password');
    await page.getByRole('button', { name: 'Create owner account' }).click();
    await page.waitForURL(`${base}/dashboard`);

    // What the option promised is what the plan gives.
    const tenants = await page.evaluate(async () => (await fetch('/api/tenants/')).json());
    expect(tenants.results).toEqual([
      expect.objectContaining({
        name: 'Reseller Partner',
        plan: 'partner',
        features: expect.objectContaining({ max_client_tenants: 1000 }),
      }),
    ]);
  });
});
