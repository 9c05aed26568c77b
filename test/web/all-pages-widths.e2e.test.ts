import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scanner } from '../../src/scanner/index.js';
import { type FixtureServer, startFixtureServer } from '../fixtures/scanner/server.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seriousViolations } from '../helpers/axe.js';
import { type DashboardInBrowser, openDashboard, pageOverflow, signIn, tenantOwner } from '../helpers/browser.js';

/** Where the pictures of every page go, for a person to look at (docs/screenshots/<page>-<width>.png, not in git). */
const SHOTS = path.resolve('docs/screenshots');
const WIDTHS = [390, 1280] as const;
const CONFIG = Buffer.from('id=GTM-WIDTHS1&env=1&auth=AbCdEf123456').toString('base64');

type Session = Awaited<ReturnType<BrowserContext['storageState']>>;

interface Visit {
  name: string;
  path: string;
  /** What to do once the page has loaded, e.g. open a container's settings. */
  open?: (page: Page) => Promise<void>;
}

/** Loads a page, waits for its data, and lists what is wrong with it at this width: overflow and axe findings. */
async function problemsOf(browser: Browser, base: string, visit: Visit, width: number, session?: Session) {
  const context = await browser.newContext({
    viewport: { width, height: 900 },
    bypassCSP: true,
    storageState: session,
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`script error: ${error.message}`));
  await page.goto(`${base}${visit.path}`);
  await page.waitForLoadState('networkidle');
  await visit.open?.(page);
  await expect.poll(() => page.locator('td', { hasText: /^Loading…$/ }).count()).toBe(0);
  await page.screenshot({ path: path.join(SHOTS, `${visit.name}-${width}.png`), fullPage: true });
  const overflow = await pageOverflow(page);
  const landed = new URL(page.url()).pathname;
  const problems = [
    ...(landed === visit.path ? [] : [`landed on ${landed} instead`]),
    ...errors,
    ...(overflow > 0 ? [`${overflow} px wider than the viewport`] : []),
    ...(await seriousViolations(page)).map((id) => `axe: ${id}`),
  ].map((problem) => `${visit.name} at ${width} px: ${problem}`);
  await context.close();
  return problems;
}

describe('every dashboard page and the public pages at a phone and a desktop width', () => {
  let fixture: FixtureServer;
  let scanner: Scanner;
  let t: TestApp;
  let dashboard: DashboardInBrowser;
  let base: string;
  let browser: Browser;
  const ids = { container: '', monitor: '', scan: '', trackingMonitor: '' };
  let session: Session | undefined;

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    fixture = await startFixtureServer();
    scanner = new Scanner(fixture.scannerOptions());
    // Private networks allowed: the monitor watches a loopback address, as a local test of a site would.
    t = await startTestApp('pglite', { allowPrivateNetworks: true }, undefined, { scanner });
    dashboard = await openDashboard(t);
    ({ base, browser } = dashboard);
  }, 120_000);
  afterAll(async () => {
    await dashboard?.close();
    await scanner?.close();
    await fixture?.close();
  });

  it('the set-up page of an empty database fits and passes axe', async () => {
    const problems: string[] = [];
    for (const width of WIDTHS)
      problems.push(...(await problemsOf(browser, base, { name: 'setup', path: '/setup' }, width)));
    expect(problems).toEqual([]);
  }, 60_000);

  it('creates a tenant with a builtin container, a monitor and a stored scan to show', async () => {
    const tenant = await tenantOwner(t, 'Wide Co', 'wide@example.com', 'Wendy Wide');
    const { token } = await t.keys.create(tenant.id, { name: 'widths', role: 'owner' });
    const container = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token,
      payload: { name: 'Shop builtin', region: 'eu-central', config: CONFIG },
    });
    ids.container = container.json().id;
    const monitor = await t.inject({
      method: 'POST',
      url: '/api/monitors/',
      token,
      payload: { name: 'Shop home', target: { type: 'url', url: 'https://127.0.0.1:9/' }, interval_seconds: 300 },
    });
    expect(monitor.statusCode, monitor.body).toBe(201);
    ids.monitor = monitor.json().id;
    const trackingMonitor = await t.inject({
      method: 'POST',
      url: '/api/tracking-monitors/',
      token,
      payload: { name: 'Shop tracking', pages: [fixture.url('shop.example.test', '/')], interval_seconds: 3600 },
    });
    expect(trackingMonitor.statusCode, trackingMonitor.body).toBe(201);
    ids.trackingMonitor = trackingMonitor.json().id;
    const scan = await t.inject({
      method: 'POST',
      url: '/api/v1/tracking-checker/scan/',
      token,
      payload: { url: fixture.url('shop.example.test', '/') },
    });
    expect(scan.statusCode, scan.body).toBeLessThan(300);
    ids.scan = scan.json().scan_id ?? scan.json().id;
    expect(ids).toMatchObject({ container: /^ctr_/, monitor: /^mon_/, scan: /^scn_/, trackingMonitor: /^tmo_/ });
    // One sign-in for every dashboard visit: each page opens in a fresh context with this session's cookies.
    const page = await browser.newPage();
    await signIn(page, base, 'wide@example.com');
    session = await page.context().storageState();
    await page.close();
  }, 120_000);

  it('the public pages fit and pass axe', async () => {
    const problems: string[] = [];
    for (const visit of [
      { name: 'status', path: '/status' },
      { name: 'check', path: '/check' },
      { name: 'changelog', path: '/changelog' },
      { name: 'login', path: '/login' },
    ])
      for (const width of WIDTHS) problems.push(...(await problemsOf(browser, base, visit, width)));
    expect(problems).toEqual([]);
  }, 180_000);

  it('every dashboard page fits and passes axe', async () => {
    const openContainer = async (page: Page) => {
      await page.locator('#containers-table').getByRole('button', { name: 'Shop builtin' }).click();
      await page.locator('#settings-snippet', { hasText: 'gtm.js' }).waitFor();
    };
    const visits: Visit[] = [
      { name: 'dashboard-overview', path: '/dashboard' },
      { name: 'dashboard-api-keys', path: '/dashboard/api-keys' },
      { name: 'dashboard-containers', path: '/dashboard/containers', open: openContainer },
      { name: 'dashboard-meta-pixels', path: `/dashboard/containers/${ids.container}/meta-pixels` },
      { name: 'dashboard-outgoing-log', path: `/dashboard/containers/${ids.container}/outgoing-log` },
      { name: 'dashboard-monitors', path: '/dashboard/monitors' },
      { name: 'dashboard-monitor', path: `/dashboard/monitors/${ids.monitor}` },
      { name: 'dashboard-tracking-monitors', path: '/dashboard/tracking-monitors' },
      { name: 'dashboard-tracking-monitor', path: `/dashboard/tracking-monitors/${ids.trackingMonitor}` },
      { name: 'dashboard-notifications', path: '/dashboard/notifications' },
      { name: 'dashboard-reports', path: '/dashboard/reports' },
      { name: 'dashboard-scans', path: '/dashboard/scans' },
      { name: 'dashboard-scan', path: `/dashboard/scans/${ids.scan}` },
      { name: 'dashboard-security', path: '/dashboard/security' },
      { name: 'dashboard-team', path: '/dashboard/team' },
    ];
    expect(session).toBeDefined();
    const problems: string[] = [];
    for (const visit of visits)
      for (const width of WIDTHS) problems.push(...(await problemsOf(browser, base, visit, width, session)));
    expect(problems).toEqual([]);
  }, 600_000);
});
