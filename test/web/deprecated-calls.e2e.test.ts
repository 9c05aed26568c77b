import { chromium, type Browser } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deprecation } from '../../src/http/deprecations.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seriousViolations } from '../helpers/axe.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, pageOverflow, signIn } from '../helpers/browser.js';

const PASSWORD = 'a very long password';
// No operation is deprecated today: the registry of this app has one.
const listWebhooksGone: Deprecation = {
  operationId: 'listWebhooks',
  announced: '2026-11-23',
  sunset: '2027-01-22',
  replacement: '`GET /api/v2/webhooks/`',
  changelog: '/changelog#deprecated',
};

describe('API keys page: the warning for keys that call deprecated operations', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp('pglite', { runWorkers: false }, undefined, { deprecations: [listWebhooksGone] });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('names the key, the operation, its calls of the last 30 days and the sunset; axe finds nothing serious', async () => {
    const tenant = await t.tenants.create({ name: 'Legacy Shop', plan: 'business' });
    await t.users.createUser({
      email: 'owner@legacy.test',
      name: 'Olga Owner',
      password: PASSWORD,
      tenantId: tenant.id,
      role: 'owner',
    });
    const legacy = await t.keys.create(tenant.id, { name: 'Nightly export', role: 'admin' });
    await t.keys.create(tenant.id, { name: 'Up to date', role: 'admin' });
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    await signIn(page, base, 'owner@legacy.test', PASSWORD);
    await page.goto(`${base}/dashboard/api-keys`);
    await page.locator('#keys-table tbody tr', { hasText: 'Nightly export' }).waitFor();
    expect(await page.locator('#deprecated-calls').isHidden()).toBe(true);

    for (let call = 0; call < 2; call++) {
      const response = await request(`${base}/api/webhooks/`, { headers: { authorization: `Bearer ${legacy.token}` } });
      expect(response.headers.deprecation).toBeDefined();
      await response.body.dump();
    }
    await t.app.services.deprecatedCalls.flush();

    await page.reload();
    const warning = page.locator('#deprecated-calls');
    await warning.waitFor({ state: 'visible' });
    const items = warning.locator('li');
    expect(await items.count()).toBe(1);
    const text = await items.first().textContent();
    expect(text).toContain('Nightly export called listWebhooks 2 times');
    expect(text).toContain('it may stop working from 2027-01-22');
    expect(await items.first().getByRole('link', { name: 'What to use instead' }).getAttribute('href')).toBe(
      '/changelog#deprecated',
    );
    expect(await warning.textContent()).not.toContain('Up to date');
    expect(await seriousViolations(page)).toEqual([]);
    // The changelog the warning links to fits a phone's width.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/changelog`);
    expect(await pageOverflow(page)).toBe(0);
    await context.close();
  });
});
