import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type DashboardInBrowser, openDashboard, pageOverflow, SCREENSHOTS, signIn } from '../helpers/browser.js';

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

  it("says what each key role may do; an owner's owner key sets a client tenant's plan, an admin cannot pick owner", async () => {
    await page.goto(`${base}/dashboard/api-keys`);
    expect(await page.getByLabel('Role').getAttribute('aria-describedby')).toBe('key-roles');
    const roles = (await page.locator('#key-roles').textContent())!;
    expect(roles).toMatch(/member[\s\S]*runs scans[\s\S]*admin[\s\S]*containers[\s\S]*owner[\s\S]*sets plans/);
    await expect.poll(() => page.locator('#key-own-role').textContent()).toBe(': you are owner');
    expect(await page.locator('#key-role option[value="owner"]').isDisabled()).toBe(false);
    expect(await pageOverflow(page)).toBe(0);
    await page.getByLabel('Key name').fill('Owner automation');
    await page.getByLabel('Role').selectOption('owner');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-key-token').waitFor({ state: 'visible' });
    const token = (await page.locator('#new-key-token').textContent())!.trim();
    const client = await request(`${base}/api/tenants/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Client with a plan', plan: 'pro' }),
    });
    expect(client.statusCode, await client.body.text()).toBe(201);

    // An admin reads the same list, and sees owner offered disabled with the reason.
    const { tenant_id } = await page.evaluate(async () => (await fetch('/api/auth/session')).json());
    await t.users.createUser({
      email: 'adam@example.com',
      name: 'Adam Admin',
      password: 'a very long password',
      tenantId: tenant_id,
      role: 'admin',
    });
    const admin = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(admin, base, 'adam@example.com', 'a very long password');
    await admin.goto(`${base}/dashboard/api-keys`);
    await expect.poll(() => admin.locator('#key-own-role').textContent()).toBe(': you are admin');
    const owner = admin.locator('#key-role option[value="owner"]');
    expect(await owner.isDisabled()).toBe(true);
    expect(await owner.textContent()).toBe('owner (needs the owner role)');
    expect(await admin.locator('#key-role option[value="admin"]').isDisabled()).toBe(false);
    // The owner's key has no Revoke for the admin (the API would refuse it), but says who can revoke it.
    const ownerKey = admin.locator('#keys-table tr', { hasText: 'Owner automation' });
    await expect.poll(() => ownerKey.textContent()).toContain('an owner can revoke it');
    expect(await ownerKey.getByRole('button', { name: 'Revoke Owner automation' }).count()).toBe(0);
    await admin.screenshot({ path: path.join(SCREENSHOTS, 'api-keys-admin-1280.png'), fullPage: true });
    await admin.close();
  });
});
