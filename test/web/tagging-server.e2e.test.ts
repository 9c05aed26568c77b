import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type DashboardInBrowser, openDashboard, SCREENSHOTS, signIn, tenantOwner } from '../helpers/browser.js';
import { testGateway } from '../helpers/gateway-app.js';
import { STANDIN_COMMAND } from '../helpers/tagging-servers.js';

const CONFIG = Buffer.from('id=GTM-WEBSGTM1&env=3&auth=PanelSecretAuth42').toString('base64');

describe("a container's Google tagging server in the dashboard", () => {
  let t: TestApp;
  let dashboard: DashboardInBrowser;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    t = await startTestApp('pglite', {
      containerTransitionDelayMs: 50,
      roles: ['api', 'gateway', 'worker'],
      gateway: testGateway(),
      taggingServers: {
        ...loadConfig({}).taggingServers,
        command: STANDIN_COMMAND,
        healthIntervalMs: 200,
        stopGraceMs: 2000,
      },
    });
    await t.app.services.taggingSupervisor!.start();
    await tenantOwner(t, 'Panel Co', 'panel@example.com', 'Pia Panel');
    dashboard = await openDashboard(t);
    browser = dashboard.browser;
    page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
    await signIn(page, dashboard.base, 'panel@example.com');
  }, 120_000);
  afterAll(async () => {
    await dashboard?.close();
  });

  it('creates an sgtm container and shows its state, replicas, preview URL, the masked config and its output', async () => {
    await page.getByRole('link', { name: 'Containers' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Shop on Google');
    await page.getByLabel('GTM container config').fill(CONFIG);
    await page.getByLabel('Runtime', { exact: true }).selectOption('sgtm');
    await page.getByRole('button', { name: 'Create container' }).click();
    const row = page.locator('#containers-table tbody tr', { hasText: 'Shop on Google' });
    await row.locator('td.yes', { hasText: 'running' }).waitFor({ timeout: 30_000 });
    await row.getByRole('button', { name: 'Shop on Google' }).click();
    const facts = page.locator('#tagging-server-facts');
    await expect.poll(() => facts.textContent()).toContain('available');
    const text = (await facts.textContent()) ?? '';
    expect(text).toContain('1 ready of 1');
    expect(text).toMatch(/https:\/\/[a-z0-9]+-preview\./);
    expect(text).toContain(`${CONFIG.slice(0, 6)}…${CONFIG.slice(-4)}`);
    expect(text).not.toContain(CONFIG);
    await expect
      .poll(() => page.locator('#tagging-server-logs').textContent(), { timeout: 10_000 })
      .toMatch(/tagging-0 /);
    expect(await page.content()).not.toContain(CONFIG);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'container-tagging-server.png'), fullPage: true });
  }, 60_000);
});
