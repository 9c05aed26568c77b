import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scanner } from '../../src/scanner/index.js';
import { startFixtureServer, type FixtureServer } from '../fixtures/scanner/server.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type DashboardInBrowser, openDashboard, pageOverflow, SCREENSHOTS, signIn } from '../helpers/browser.js';

describe('public tracking checker page in a real browser', () => {
  let fixture: FixtureServer;
  let scanner: Scanner;
  let t: TestApp;
  let dashboard: DashboardInBrowser;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    fixture = await startFixtureServer();
    scanner = new Scanner(fixture.scannerOptions());
    t = await startTestApp('pglite', { publicScansPerHour: 2 }, undefined, { scanner });
    dashboard = await openDashboard(t);
    ({ base, browser } = dashboard);
  }, 120_000);
  afterAll(async () => {
    await dashboard?.close();
    await scanner?.close();
    await fixture?.close();
  });

  it('scans a fixture shop without a key and shows trackers by category, consent, the loss picture and the summary in French', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}/check`);
    await page.getByLabel('Page address').fill(fixture.url('shop.example.test', '/'));
    await page.getByLabel('Language').selectOption('fr');
    await page.getByRole('button', { name: 'Scan page' }).click();
    await page.locator('#scan-result h2').first().waitFor({ timeout: 60_000 });
    const count = Number(await page.getByTestId('tracker-count').textContent());
    expect(count).toBeGreaterThanOrEqual(3);
    const headings = await page.locator('#scan-result h3').allTextContents();
    expect(headings.join(' ')).toMatch(/Analytics/);
    expect(headings.join(' ')).toMatch(/Advertising/);
    expect(await page.locator('#consent-heading + ul').textContent()).toContain('Cookiebot');
    expect(await page.locator('#loss-chart').count()).toBe(1);
    expect(
      await page.evaluate(() =>
        Boolean((window as unknown as { Chart?: { getChart(id: string): unknown } }).Chart?.getChart('loss-chart')),
      ),
    ).toBe(true);
    const summary = await page.locator('#summary-heading + p').textContent();
    expect(summary!.length).toBeGreaterThan(20);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'checker-result-desktop.png'), fullPage: true });
    // On a phone the result fits its width: the loss table scrolls inside its box.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await pageOverflow(page)).toBe(0);
    await page.close();
  }, 90_000);

  it('limits the public checker per IP with a clear message', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${base}/check`);
    await page.getByLabel('Page address').fill(fixture.url('clean.example.test', '/'));
    await page.getByRole('button', { name: 'Scan page' }).click();
    await page.locator('#scan-result h2').first().waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Scan page' }).click();
    const error = page.locator('#check-error');
    await error.waitFor({ state: 'visible', timeout: 30_000 });
    expect(await error.textContent()).toContain('scans per hour per address');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'checker-limited-phone.png'), fullPage: true });
    await page.close();
  }, 90_000);

  it('signed in, scans from the checker, finds the scan under Scans and opens its stored result without script errors', async () => {
    const tenant = await t.tenants.create({ name: 'Scan Co', plan: 'business' });
    await t.users.createUser({
      email: 'scan@example.com',
      name: 'Sam Scan',
      password: 'a very long password',
      tenantId: tenant.id,
      role: 'owner',
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const scriptErrors: string[] = [];
    page.on('pageerror', (error) => scriptErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') scriptErrors.push(message.text());
    });
    await signIn(page, base, 'scan@example.com', 'a very long password');
    await page.goto(`${base}/check`);
    // Every text the progress line shows, and whether the result was there yet when it showed.
    await page.evaluate(() => {
      const progress = document.querySelector('#check-progress')!;
      const seen: { text: string; visible: boolean; result: boolean }[] = [];
      (window as unknown as { progressSeen: typeof seen }).progressSeen = seen;
      new MutationObserver(() =>
        seen.push({
          text: progress.textContent ?? '',
          visible: !(progress as HTMLElement).hidden,
          result: Boolean(document.querySelector('#scan-result h2')),
        }),
      ).observe(progress, { childList: true, characterData: true, subtree: true, attributes: true });
    });
    await page.getByLabel('Page address').fill(fixture.url('shop.example.test', '/'));
    await page.getByRole('button', { name: 'Scan page' }).click();
    await page.locator('#scan-result h2').first().waitFor({ timeout: 60_000 });
    // Started asynchronously: the stages the API reports, in plain words, while the scan runs; then the result.
    const seen = await page.evaluate(
      () => (window as unknown as { progressSeen: { text: string; visible: boolean; result: boolean }[] }).progressSeen,
    );
    const shown = seen.filter((entry) => entry.visible && !entry.result).map((entry) => entry.text);
    expect(shown).toContain('Waiting for a free scanner…');
    expect(shown).toContain('Loading the page in a browser and recording what it sends…');
    expect(await page.locator('#check-progress').isHidden()).toBe(true);

    await page.goto(`${base}/dashboard/scans`);
    const link = page.locator('#scans-table tbody a', { hasText: 'shop.example.test' });
    await link.waitFor();
    await link.click();
    await page.waitForURL(/\/dashboard\/scans\/[^/]+$/);
    await page.getByTestId('tracker-count').waitFor();
    expect(Number(await page.getByTestId('tracker-count').textContent())).toBeGreaterThanOrEqual(3);
    expect(await page.getByTestId('scanned-at').textContent()).toMatch(/^Scanned \S/);
    expect(await page.locator('#cookies-heading').textContent()).toMatch(/^Cookies \(\d+\)$/);
    const cookieRows = await page.locator('#cookies-table tbody tr').allTextContents();
    expect(cookieRows.some((row) => row.includes('_fbp') && row.includes('meta_pixel'))).toBe(true);
    expect(
      await page.evaluate(() =>
        Boolean((window as unknown as { Chart?: { getChart(id: string): unknown } }).Chart?.getChart('loss-chart')),
      ),
    ).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'scan-stored-result.png'), fullPage: true });
    expect(scriptErrors).toEqual([]);
    await page.close();
  }, 90_000);
});
