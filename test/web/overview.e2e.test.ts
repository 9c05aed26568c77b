import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seriousViolations } from '../helpers/axe.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, signIn } from '../helpers/browser.js';
import { CONFIG } from '../helpers/gateway-app.js';

const SCREENSHOTS = path.resolve('.tmp/screenshots');
const PASSWORD = 'a very long password';

describe('overview page in a real browser', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;

  const user = async (plan: string, email: string) => {
    const tenant = await t.tenants.create({ name: `${plan} tenant`, plan });
    await t.users.createUser({ email, name: 'Owner', password: PASSWORD, tenantId: tenant.id, role: 'owner' });
    return { tenant, token: (await t.keys.create(tenant.id, { name: 'setup', role: 'owner' })).token };
  };
  const page = async (width: number, email: string) => {
    // bypassCSP lets the test inject axe-core; the page's own CSP is tested in test/web/assets.test.ts.
    const opened = await browser.newPage({ viewport: { width, height: 900 }, bypassCSP: true });
    await signIn(opened, base, email, PASSWORD);
    await opened.locator('#overview[aria-busy="false"]').waitFor();
    return opened;
  };

  beforeAll(async () => {
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    t = await startTestApp('pglite', { runWorkers: false });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows what needs attention, traffic, uptime and the clients in trouble; axe finds nothing serious', async () => {
    const { tenant, token } = await user('agency', 'agency@example.com');
    const container = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token,
      payload: { name: 'Shop tagging', region: 'eu-central', config: CONFIG },
    });
    const containerId = container.json().id;
    await t.database.db.execute(
      sql`update containers set status = 'failed', status_reason = 'The tagging server did not start.' where id = ${containerId}`,
    );
    const today = new Date().toISOString().slice(0, 10);
    await t.database.db.execute(sql`insert into container_usage (container_id, day, hostname, status_class, requests)
      values (${containerId}, ${today}, 'a', '2xx', 1234)`);
    const client = await t.inject({ method: 'POST', url: '/api/tenants/', token, payload: { name: 'Bakery' } });
    const clientContainer = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token,
      headers: { 'tagport-tenant': client.json().id },
      payload: { name: 'Bakery tags', region: 'eu-central', config: CONFIG },
    });
    await t.database.db.execute(sql`update containers set status = 'failed' where id = ${clientContainer.json().id}`);

    for (const width of [1200, 390]) {
      const opened = await page(width, 'agency@example.com');
      const attention = opened.locator('#attention');
      expect(await attention.textContent()).toContain('1 thing needs you');
      expect(await attention.textContent()).toContain('The tagging server did not start.');
      expect(await opened.locator('#traffic-today').textContent()).toBe(new Intl.NumberFormat('en-US').format(1234));
      expect(await opened.locator('#traffic-sparkline svg').getAttribute('aria-label')).toContain('peak 1,234');
      expect(await opened.locator('#clients-table tbody').textContent()).toContain('Bakery');
      expect(await opened.locator('#steps-list').textContent()).toContain('Add a custom domain');
      expect(await opened.locator('#client-form').isVisible()).toBe(true);
      await opened.screenshot({ path: path.join(SCREENSHOTS, `overview-${width}.png`), fullPage: true });
      expect(await seriousViolations(opened)).toEqual([]);
      await opened.close();
    }
    expect(tenant.id).toBeTruthy();
  });

  it('says all is well when nothing needs attention, and hides the client form on plans without clients', async () => {
    await user('free', 'free@example.com');
    const opened = await page(1200, 'free@example.com');
    expect(await opened.locator('#attention').textContent()).toContain('All is well.');
    await opened.locator('#tenants-table tbody tr td', { hasText: 'free tenant' }).waitFor();
    expect(await opened.locator('#client-form').isVisible()).toBe(false);
    expect(await opened.locator('#traffic-sparkline svg').count()).toBe(0);
    expect(await seriousViolations(opened)).toEqual([]);
    await opened.close();
  });
});
