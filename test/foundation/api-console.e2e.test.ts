import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../helpers/browser.js';

describe('the Scalar API console in a browser', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp('pglite');
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the API without the hosted-service controls, and loads nothing from outside', async () => {
    const page = await browser.newPage();
    const outside: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith('data:')) outside.push(request.url());
    });
    await page.goto(`${base}/api/docs/`);
    // The first tag's group opens by default: its operations are listed.
    await page.getByText('Get the overview').first().waitFor({ timeout: 30_000 });
    await page.getByText('Download OpenAPI Document').first().waitFor();
    const text = await page.locator('body').innerText();
    for (const control of ['Ask AI', 'Generate MCP', 'Deploy', 'Share', 'Configure'])
      expect(text, control).not.toContain(control);
    expect(outside).toEqual([]);
  }, 60_000);
});
