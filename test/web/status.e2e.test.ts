import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seriousViolations } from '../helpers/axe.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, signIn } from '../helpers/browser.js';
import { waitFor } from '../helpers/processes.js';

const SCREENSHOTS = path.resolve('.tmp/screenshots');
const DAY = 86_400_000;
const PASSWORD = 'a very long password';

describe('status page in a real browser', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    t = await startTestApp('pglite', { statusCheckMs: 200, runWorkers: true });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
    // Sixty days of history: a bad day and a partial one on the gateway, the rest clean.
    await t.database.db.execute(sql`insert into status_check_days (component, day, checks, failures)
      select component, (timezone('UTC', now())::date - back), 2880,
        case when component = 'Gateway' and back = 12 then 900 when component = 'Gateway' and back = 30 then 40 else 0 end
      from unnest(array['API', 'Database', 'Scanner', 'Monitoring worker', 'Gateway']) as component,
        generate_series(1, 60) as back`);
    const incidents = t.app.services.statusIncidents;
    const past = await incidents.open({
      component: 'Gateway',
      title: 'Gateway returned errors',
      status: 'identified',
      message: 'A bad deploy; rolling back.',
    });
    await incidents.update(past.id, { status: 'resolved', message: 'Rolled back; errors are gone.' });
    await incidents.open({
      component: 'Scanner',
      title: 'Scans are slow',
      status: 'investigating',
      message: 'Scans take longer than usual; we are looking into it.',
    });
    await incidents.scheduleMaintenance({
      title: 'Database upgrade',
      message: 'PostgreSQL is upgraded; the API may answer 503 for a minute.',
      components: ['Database', 'API'],
      starts_at: new Date(Date.now() + 2 * DAY).toISOString(),
      ends_at: new Date(Date.now() + 2 * DAY + 3_600_000).toISOString(),
    });
    await waitFor(
      async () =>
        (await t.inject({ method: 'GET', url: '/api/status.json' })).json().components[0].days.at(-1).checks > 0,
      10_000,
      'a self-check counted today',
    );
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows incidents, maintenance and 90-day bars whose days read on hover and keyboard focus; axe finds nothing serious', async () => {
    for (const width of [1200, 390]) {
      const page = await browser.newPage({ viewport: { width, height: 900 }, bypassCSP: true });
      await page.goto(`${base}/status`);
      expect(await page.locator('h1').textContent()).toMatch(/Some systems are down|All systems operational|degraded/);
      expect(await page.locator('#active + article').textContent()).toContain('Scans are slow');
      expect(await page.locator('section[aria-labelledby="maintenance-next"]').textContent()).toContain(
        'Database upgrade',
      );
      const history = await page.locator('section[aria-labelledby="history"]').textContent();
      expect(history).toContain('Gateway returned errors');
      expect(history).toMatch(/Resolved[\s\S]*Rolled back[\s\S]*Identified[\s\S]*A bad deploy/);

      const gatewayBar = page.locator('li.component', { hasText: 'Gateway' }).locator('ol.uptime');
      expect(await gatewayBar.locator('li').count()).toBe(90);
      // The overall uptime covers the 61 days with checks (60 of history and today), and says so.
      expect(await page.locator('li.component', { hasText: 'Gateway' }).locator('.uptime-scale').textContent()).toMatch(
        /[\d.]+% uptime over 61 days/,
      );
      // Hover: the day's figure appears as text.
      const badDay = gatewayBar.locator('li').nth(89 - 12);
      await badDay.hover();
      const tip = badDay.locator('.tip');
      expect(await tip.isVisible()).toBe(true);
      expect(await tip.textContent()).toMatch(/68\.75% uptime, 900 of 2880 checks failed/);
      if (width === 1200) {
        await page.screenshot({ path: path.join(SCREENSHOTS, 'status-hover-1200.png') });
        await page.mouse.move(0, 0);
      }
      // Keyboard: one tab stop per bar (today), arrow keys move through the days.
      const today = gatewayBar.locator('li').last();
      await today.focus();
      await page.keyboard.press('ArrowLeft');
      const yesterday = gatewayBar.locator('li').nth(88);
      expect(await yesterday.evaluate((element) => element === document.activeElement)).toBe(true);
      expect(await yesterday.locator('.tip').isVisible()).toBe(true);
      expect(await yesterday.locator('.tip').textContent()).toMatch(/100% uptime, 2880 checks/);
      await page.keyboard.press('Home');
      expect(await gatewayBar.locator('li').first().locator('.tip').textContent()).toMatch(/no data/);
      await page.keyboard.press('Tab');
      expect(
        await gatewayBar
          .locator('li')
          .first()
          .evaluate((element) => element === document.activeElement),
      ).toBe(false);

      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.screenshot({ path: path.join(SCREENSHOTS, `status-${width}.png`), fullPage: true });
      // The README's pictures: the first screen only, small PNGs (copied to docs/ by hand).
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: path.join(SCREENSHOTS, `readme-status-${width}.png`) });
      expect(await seriousViolations(page)).toEqual([]);
      await page.close();
    }
  });

  it('takes the README picture of the dashboard overview', async () => {
    const tenant = await t.tenants.create({ name: 'Acme Shop', plan: 'pro' });
    await t.users.createUser({
      email: 'owner@example.com',
      name: 'Ada Owner',
      password: PASSWORD,
      tenantId: tenant.id,
      role: 'owner',
    });
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await signIn(page, base, 'owner@example.com', PASSWORD);
    await page.locator('#overview[aria-busy="false"]').waitFor();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'readme-overview-1200.png') });
    await page.close();
  });

  it('offers no email subscription where it cannot work, and says so', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(`${base}/status`);
    // No SMTP and no PUBLIC_BASE_URL in this test: the page offers the feeds and webhooks only.
    expect(await page.getByLabel('Email address').count()).toBe(0);
    expect(await page.locator('#subscribe ~ p.hint, section.subscribe p.hint').first().textContent()).toContain(
      'Email subscriptions are not available',
    );
    expect(await page.getByLabel('Webhook URL (https)').count()).toBe(1);
    await page.close();
  });
});
