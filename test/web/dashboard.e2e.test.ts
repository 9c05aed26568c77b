import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type DashboardInBrowser, openDashboard, SCREENSHOTS } from '../helpers/browser.js';

describe('web dashboard in a real browser', () => {
  let t: TestApp;
  let dashboard: DashboardInBrowser;
  let base: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    t = await startTestApp('pglite');
    dashboard = await openDashboard(t);
    ({ base, browser } = dashboard);
    page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  });
  afterAll(async () => {
    await dashboard?.close();
  });

  async function apiStatus(token: string): Promise<number> {
    const response = await request(`${base}/api/tenants/`, { headers: { authorization: `Bearer ${token}` } });
    await response.body.dump();
    return response.statusCode;
  }

  it('sets up the owner on an empty database, signs in, creates a key shown once, and revokes it', async () => {
    await page.goto(`${base}/login`);
    expect(new URL(page.url()).pathname).toBe('/setup');
    await page.getByLabel('Organisation').fill('Browser Agency');
    await page.getByLabel('Your name').fill('Bea Browser');
    await page.getByLabel('Email').fill('bea@example.com');
    await page.getByLabel(/Password/).fill('a very long password');
    await page.getByRole('button', { name: 'Create owner account' }).click();
    await page.waitForURL(`${base}/dashboard`);
    await page.locator('#tenants-table tbody tr td', { hasText: 'Browser Agency' }).waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'overview-phone.png'), fullPage: true });

    await page.getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL(`${base}/dashboard/api-keys`);
    await page.getByLabel('Key name').fill('Browser key');
    await page.getByLabel('Role').selectOption('member');
    await page.getByRole('button', { name: 'Create key' }).click();
    const tokenBox = page.locator('#new-key-token');
    await tokenBox.waitFor({ state: 'visible' });
    const token = (await tokenBox.textContent())!.trim();
    expect(token).toMatch(/^tgp_[0-9A-Za-z]{36}$/);
    await expect(page.getByText('It will not be shown again', { exact: false }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Copy' }).isVisible()).resolves.toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'api-key-created-phone.png'), fullPage: true });
    expect(await apiStatus(token)).toBe(200);
    const write = await request(`${base}/api/webhooks/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(((await write.body.json()) as { error: { code: string } }).error.code).toBe('insufficient_role');

    const row = page.locator('#keys-table tbody tr', { hasText: 'Browser key' });
    await row.waitFor();
    expect(await row.locator('td').nth(2).textContent()).toBe('member');
    expect(await row.textContent()).toContain(token.slice(-4));
    expect(await row.textContent()).not.toContain(token);

    await page.reload();
    await page.locator('#keys-table tbody tr', { hasText: 'Browser key' }).waitFor();
    expect(await page.content()).not.toContain(token);
    expect(await page.locator('#new-key').isHidden()).toBe(true);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke Browser key' }).click();
    await page.locator('#keys-table tbody tr', { hasText: 'Browser key' }).locator('.status-revoked').waitFor();
    expect(await apiStatus(token)).toBe(401);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login/);
    await page.goto(`${base}/dashboard/api-keys`);
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it('shows a clear error for a wrong password and works with the keyboard', async () => {
    await page.goto(`${base}/login`);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByLabel('Email').fill('bea@example.com');
    await page.getByLabel('Password').fill('not the password');
    await page.getByLabel('Password').press('Enter');
    const error = page.locator('#login-error');
    await error.waitFor({ state: 'visible' });
    expect(await error.textContent()).toContain('Email or password is wrong');
    await page.getByLabel('Password').fill('a very long password');
    await page.getByLabel('Password').press('Enter');
    await page.waitForURL(`${base}/dashboard`);
  });
});
