import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { request } from 'undici';
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
import { testGateway } from '../helpers/gateway-app.js';

const CONFIG = Buffer.from('id=GTM-WEB1234&env=1&auth=AbCdEf123456').toString('base64');

describe('containers and domains page in a real browser', () => {
  let upstream: http.Server;
  let upstreamUrl: string;
  let t: TestApp;
  let dashboard: DashboardInBrowser;
  let base: string;
  let gatewayUrl: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    upstream = http.createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    t = await startTestApp('pglite', {
      allowPrivateNetworks: true,
      // Longer than the page's single refresh once was: the list has to keep refreshing itself
      // while a container provisions, whatever the start takes.
      containerTransitionDelayMs: 3000,
      gateway: testGateway(),
      dns: { resolvers: ['127.0.0.1:9'], timeoutMs: 300, recheckIntervalMs: 600_000 },
    });
    gatewayUrl = await t.app.services.gateway.listen(0, '127.0.0.1');
    await tenantOwner(t, 'Host Co', 'host@example.com', 'Hana Host');
    dashboard = await openDashboard(t);
    ({ base, browser } = dashboard);
    page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
    await signIn(page, base, 'host@example.com');
  }, 120_000);
  afterAll(async () => {
    await dashboard?.close();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  it('creates a container, sees it running with its usage chart, adds a domain and sees its DNS records and why verification failed', async () => {
    await page.getByRole('link', { name: 'Containers' }).click();
    // Before any container: no blank chart, and the domain form says what it needs first.
    expect(await page.locator('#usage-chart-box').isHidden()).toBe(true);
    expect(await page.locator('#domain-container option').first().textContent()).toBe('Create a container first');
    // sgtm is not configured here: the hint gives the reason once, not "not enabled on this instance" twice.
    const sgtmHint = (await page.locator('#runtime-hint').textContent())!;
    expect(sgtmHint).toContain('SGTM_COMMAND');
    expect(sgtmHint.split('not enabled on this instance').length).toBe(2);
    await page.getByLabel('Name', { exact: true }).fill('Web sGTM');
    await page.getByLabel('GTM container config').fill(CONFIG);
    await page.getByLabel('Upstream (https, optional)').fill(upstreamUrl);
    await page.getByRole('button', { name: 'Create container' }).click();
    const row = page.locator('#containers-table tbody tr', { hasText: 'Web sGTM' });
    await row.locator('td.yes', { hasText: 'running' }).waitFor({ timeout: 10_000 });
    const hostname = (await row.locator('code').textContent())!;
    for (let i = 0; i < 3; i++)
      expect((await request(`${gatewayUrl}/g/collect`, { headers: { host: hostname } })).statusCode).toBe(204);
    await row.getByRole('button', { name: 'Web sGTM' }).click();
    await expect.poll(() => page.locator('#usage-caption').textContent()).toContain('3 requests (2xx 3)');
    expect(
      await page.evaluate(() =>
        Boolean((window as unknown as { Chart?: { getChart(id: string): unknown } }).Chart?.getChart('usage-chart')),
      ),
    ).toBe(true);

    await page.getByLabel('Hostname').fill('data.shop.example');
    await page.getByLabel('Container', { exact: true }).selectOption({ label: 'Web sGTM' });
    await page.getByRole('button', { name: 'Add domain' }).click();
    const card = page.locator('#domains-list section', { hasText: 'data.shop.example' });
    await card.waitFor();
    expect(await card.locator('tbody').textContent()).toContain(hostname);
    expect(await card.locator('tbody').textContent()).toContain('_tagport-verify.data.shop.example');
    await card.getByRole('button', { name: 'Verify now' }).click();
    await card.locator('.no', { hasText: 'failed' }).waitFor({ timeout: 10_000 });
    expect(await card.locator('.error').textContent()).toMatch(/DNS|answer|exist/);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'containers.png'), fullPage: true });
    // On a phone the page fits its width: the DNS records table scrolls inside its box.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await pageOverflow(page)).toBe(0);
    await page.setViewportSize({ width: 1200, height: 1000 });

    await row.getByRole('button', { name: 'stop' }).click();
    await row
      .locator('td', { hasText: /^stopp(ing|ed)$/ })
      .first()
      .waitFor();
  });

  it("shows a builtin container's snippet with its loader path and saves its settings", async () => {
    await page.goto(`${base}/dashboard/containers`);
    await page.getByLabel('Name', { exact: true }).fill('Shop builtin');
    await page.getByLabel('GTM container config').fill(CONFIG);
    await page.getByRole('button', { name: 'Create container' }).click();
    const row = page.locator('#containers-table tbody tr', { hasText: 'Shop builtin' });
    await row.locator('td.yes', { hasText: 'running' }).waitFor({ timeout: 10_000 });
    await row.getByRole('button', { name: 'Shop builtin' }).click();
    await page.locator('#container-settings').waitFor();
    expect(await page.locator('#settings-title').textContent()).toContain('runtime builtin');
    // No requests and no hits yet: each chart says so instead of drawing an empty 0–1.0 axis.
    for (const id of ['usage-chart', 'runtime-chart']) {
      const box = page.locator('.chart-box', { has: page.locator(`#${id}`) });
      await expect.poll(() => box.locator('.no-data').isVisible()).toBe(true);
      expect(await box.locator('.no-data').textContent()).toBe('No data yet');
      expect(await page.locator(`#${id}`).isHidden()).toBe(true);
      expect(
        await page.evaluate(
          (chartId) =>
            Boolean((window as unknown as { Chart?: { getChart(id: string): unknown } }).Chart?.getChart(chartId)),
          id,
        ),
      ).toBe(false);
    }
    const loaderPath = await page.getByLabel('Custom loader path').inputValue();
    expect(await page.locator('#settings-snippet').textContent()).toContain(`/${loaderPath}.js?id='+i+dl`);
    await page.getByLabel('Custom loader path').fill('shop-tags');
    await page.getByLabel('GA4 measurement ids (comma-separated)').fill('G-SHOP1234');
    await page.getByLabel('Bot detection').selectOption('drop');
    await page.getByLabel('GA4: IP').selectOption('truncate');
    await page.getByLabel('GA4: user id').selectOption('drop');
    await page.getByLabel('Meta: personal data').selectOption('drop');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.locator('#settings-snippet').textContent()).toContain('/shop-tags.js?id=G-SHOP1234');
    const saved = await page.evaluate(async () => (await fetch('/api/containers/?page_size=100')).json());
    const container = saved.results.find((c: { name: string }) => c.name === 'Shop builtin');
    expect(container.settings).toMatchObject({
      loader_path: 'shop-tags',
      ga4_measurement_ids: ['G-SHOP1234'],
      bot_detection: { mode: 'drop' },
      anonymizer: {
        ga4: { ip: 'truncate', user_agent: 'keep', user_id: 'drop', user_data: 'keep' },
        meta: { user_id: 'keep', user_data: 'drop' },
      },
    });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'container-settings.png'), fullPage: true });
  });

  it('fits the snippet in its box with a Copy button, and keeps the container buttons on one line at 1280 px', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const wide = await context.newPage();
    await signIn(wide, base, 'host@example.com');
    await wide.goto(`${base}/dashboard/containers`);
    const row = wide.locator('#containers-table tbody tr', { hasText: 'Shop builtin' });
    // stop, restart and delete side by side, not delete wrapped under the others.
    const tops = await Promise.all(
      ['stop', 'restart', 'delete'].map(async (name) => (await row.getByRole('button', { name }).boundingBox())!.y),
    );
    expect(new Set(tops).size).toBe(1);
    await row.getByRole('button', { name: 'Shop builtin' }).click();
    const snippet = wide.locator('#settings-snippet');
    await expect.poll(() => snippet.textContent()).toContain('server_container_url');
    // The whole snippet shows inside its box: nothing runs past its right edge.
    const box = await wide.locator('#container-settings pre').evaluate((pre) => ({
      overflow: pre.scrollWidth - pre.clientWidth,
      right: pre.getBoundingClientRect().right,
      main: document.querySelector('main')!.getBoundingClientRect().right,
    }));
    expect(box.overflow).toBe(0);
    expect(box.right).toBeLessThanOrEqual(box.main);
    await wide.getByRole('button', { name: 'Copy snippet' }).click();
    await expect.poll(() => wide.locator('#copy-snippet-status').textContent()).toBe('Copied.');
    expect(await wide.evaluate(() => navigator.clipboard.readText())).toBe(await snippet.textContent());
    await wide.screenshot({ path: path.join(SCREENSHOTS, 'container-snippet-1280.png'), fullPage: true });
    await context.close();

    // Without a clipboard (e.g. plain http on a remote host) the button selects the snippet for Ctrl+C.
    const plain = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await plain.addInitScript(() => Object.defineProperty(navigator, 'clipboard', { value: undefined }));
    await signIn(plain, base, 'host@example.com');
    await plain.goto(`${base}/dashboard/containers`);
    await plain
      .locator('#containers-table tbody tr', { hasText: 'Shop builtin' })
      .getByRole('button', { name: 'Shop builtin' })
      .click();
    await expect.poll(() => plain.locator('#settings-snippet').textContent()).toContain('server_container_url');
    await plain.getByRole('button', { name: 'Copy snippet' }).click();
    await expect.poll(() => plain.locator('#copy-snippet-status').textContent()).toContain('press Ctrl+C');
    expect(await plain.evaluate(() => getSelection()?.toString())).toBe(
      await plain.locator('#settings-snippet').textContent(),
    );
    expect(await pageOverflow(plain)).toBe(0);
    await plain.close();
  });

  it("saves a container's request power-ups from the form, and shows the API's error for a bad one", async () => {
    await page.goto(`${base}/dashboard/containers`);
    const row = page.locator('#containers-table tbody tr', { hasText: 'Shop builtin' });
    await row.getByRole('button', { name: 'Shop builtin' }).click();
    await page.locator('#container-settings').waitFor();
    await page.getByLabel(/GTM preview header/).fill('ZW52LTN8dGVzdA==');
    await page.getByLabel(/User ID header/).check();
    await page.getByLabel(/Request delay/).check();
    await page.getByLabel('XML to JSON', { exact: true }).check();
    await page.getByLabel(/XML to JSON paths/).fill('/webhooks/crm, /webhooks/erp');
    await page.getByLabel(/Schedule, one request a line/).fill('refresh-feed | 0 6 * * * | get | /feeds/refresh');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const settingsOf = async () => {
      const listed = await page.evaluate(async () => (await fetch('/api/containers/?page_size=100')).json());
      return listed.results.find((c: { name: string }) => c.name === 'Shop builtin').settings;
    };
    await expect.poll(async () => (await settingsOf()).preview_header.value).toBe('ZW52LTN8dGVzdA==');
    expect(await settingsOf()).toMatchObject({
      user_id_header: { enabled: true },
      request_delay: { enabled: true },
      xml_to_json: { enabled: true, paths: ['/webhooks/crm', '/webhooks/erp'] },
      schedule: {
        requests: [{ name: 'refresh-feed', cron: '0 6 * * *', method: 'GET', path: '/feeds/refresh', body: null }],
      },
      file_proxy: { enabled: false, files: [] },
    });
    await page.getByLabel(/GTM preview header/).fill('not a preview value');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.locator('#settings-error').textContent()).toContain('preview_header');
    expect((await settingsOf()).preview_header.value).toBe('ZW52LTN8dGVzdA==');
  });
});
