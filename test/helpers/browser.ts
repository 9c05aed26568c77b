import fs from 'node:fs';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { TestApp } from './app.js';
import { PASSWORD } from './people.js';

/** Debian's Chromium, headless, never reaching the outside network. */
export const CHROMIUM_PATH = '/usr/lib/chromium/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
];

/** Where browser tests save the screenshots a person looks at (kept out of git). */
export const SCREENSHOTS = path.resolve('.tmp/screenshots');

export interface DashboardInBrowser {
  base: string;
  browser: Browser;
  /** Closes the browser, then the app. */
  close(): Promise<void>;
}

/** Serves a started test app on a loopback port and opens headless Chromium beside it. */
export async function openDashboard(t: TestApp): Promise<DashboardInBrowser> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  return {
    base,
    browser,
    close: async () => {
      await browser.close();
      await t.close();
    },
  };
}

/** A new tenant on the business plan with its owner, who signs in with `PASSWORD`. */
export async function tenantOwner(t: TestApp, tenantName: string, email: string, name: string) {
  const tenant = await t.tenants.create({ name: tenantName, plan: 'business' });
  await t.users.createUser({ email, name, password: PASSWORD, tenantId: tenant.id, role: 'owner' });
  return tenant;
}

/** Signs in through the real login form and waits for the dashboard. */
export async function signIn(page: Page, base: string, email: string, password = PASSWORD): Promise<void> {
  await page.goto(`${base}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/dashboard`);
}

/** How many CSS pixels the page is wider than the viewport (0 when it fits, as on a phone it must). */
export async function pageOverflow(page: Page): Promise<number> {
  return page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - document.documentElement.clientWidth));
}
