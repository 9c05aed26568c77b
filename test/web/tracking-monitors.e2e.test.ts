import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRACKING_RUNS } from '../../src/modules/tracking-monitors/runs.js';
import { Scanner } from '../../src/scanner/index.js';
import {
  consentDefaults,
  type FixtureServer,
  gtmSnippet,
  page as fixturePage,
  startFixtureServer,
} from '../fixtures/scanner/server.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seriousViolations } from '../helpers/axe.js';
import { type DashboardInBrowser, openDashboard, pageOverflow, signIn, tenantOwner } from '../helpers/browser.js';

/** Screenshots a person looks at (docs/screenshots is not in git). */
const SHOTS = path.resolve('docs/screenshots');
const HOME = 'monitored.example.test /';
const CONFIG = Buffer.from('id=GTM-TRACKMON&env=1&auth=AbCdEf123456').toString('base64');

// The monitored site: Consent Mode defaults and GTM; a release then drops the GTM snippet.
const withTag = fixturePage('Monitored shop', [consentDefaults, gtmSnippet('GTM-MON0001')].join('\n'));
const withoutTag = fixturePage('Monitored shop', consentDefaults);

describe('tracking monitors in a real browser: create, run, diff, accept as baseline', () => {
  let fixture: FixtureServer;
  let scanner: Scanner;
  let t: TestApp;
  let dashboard: DashboardInBrowser;
  let page: Page;
  let token: string;
  let home: string;
  const problems: string[] = [];

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    fixture = await startFixtureServer();
    fixture.setPage(HOME, withTag);
    home = fixture.url('monitored.example.test', '/');
    scanner = new Scanner(fixture.scannerOptions({ scanTimeoutMs: 30_000 }));
    // Workers off: the test runs each queued run itself, so it knows when one has ended.
    // The pages poll while runs are queued: a limit above the API's 100 a minute keeps the later steps from 429s.
    t = await startTestApp(
      'pglite',
      { allowPrivateNetworks: true, runWorkers: false, rateLimitPerMinute: 100_000 },
      undefined,
      { scanner },
    );
    const tenant = await tenantOwner(t, 'Track Co', 'track@example.com', 'Tara Track');
    token = (await t.keys.create(tenant.id, { name: 'setup', role: 'owner' })).token;
    const channel = await t.inject({
      method: 'POST',
      url: '/api/notification-channels/',
      token,
      payload: { name: '#tracking', type: 'slack', target: 'https://127.0.0.1:9/services/T1/B1/secret' },
    });
    expect(channel.statusCode, channel.body).toBe(201);
    const container = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token,
      payload: { name: 'Shop tagging', region: 'eu-central', config: CONFIG },
    });
    expect(container.statusCode, container.body).toBe(201);
    dashboard = await openDashboard(t);
    // bypassCSP lets the test inject axe-core; the page's own CSP is tested in test/web/assets.test.ts.
    const context = await dashboard.browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`script error: ${error.message}`));
    await signIn(page, dashboard.base, 'track@example.com');
  }, 120_000);
  afterAll(async () => {
    await dashboard?.close();
    await scanner?.close();
    await fixture?.close();
  });

  /** Looks at the page at 1280 and 390 px: a screenshot of each, no overflow on the phone, no serious axe finding. */
  async function look(name: string) {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
      expect(await pageOverflow(page), `${name} at ${width} px`).toBe(0);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await seriousViolations(page)).toEqual([]);
  }

  /** Presses Run now, waits until the page shows the run queued, runs it, and waits for the page to show it ended. */
  async function runNow(expected: string) {
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.locator('#tm-runs-table tbody tr').first().getByText('Queued').waitFor();
    // At least the run queued: runQueued does not heartbeat, so a run longer than the engine's heartbeat (10 s) may be
    // handed out once more, finding it finished.
    expect(await t.app.services.jobs.runQueued(TRACKING_RUNS)).toBeGreaterThanOrEqual(1);
    await page
      .locator('#tm-runs-table tbody tr')
      .first()
      .locator('td', { hasText: expected })
      .waitFor({ timeout: 15_000 });
  }

  it('creates a monitor from the form and lists it', async () => {
    await page.getByRole('link', { name: 'Tracking monitors' }).click();
    await page.waitForURL(`${dashboard.base}/dashboard/tracking-monitors`);
    await page.locator('#tm-container option', { hasText: 'Shop tagging' }).waitFor({ state: 'attached' });
    await page.getByLabel('#tracking').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Shop tracking');
    await page.getByLabel(/^Pages/).fill(`${home}\n`);
    await page.getByLabel('Runs', { exact: true }).selectOption('3600');
    await page.getByLabel('#tracking').check();
    await page.getByRole('button', { name: 'Add tracking monitor' }).click();
    const row = page.getByRole('row', { name: /Shop tracking/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('1 page');
    expect(await row.textContent()).toContain('hourly');
    expect(await row.textContent()).toContain('Waiting for the first run');
    const [monitor] = (await t.inject({ method: 'GET', url: '/api/tracking-monitors/', token })).json().results;
    expect(monitor).toMatchObject({ pages: [home], interval_seconds: 3600, consent_check: true, container_id: null });
    expect(monitor.notification_channel_ids).toHaveLength(1);
    await look('dashboard-tracking-monitors-new');
    await page.getByRole('link', { name: 'Shop tracking' }).click();
    await page.waitForURL(/\/dashboard\/tracking-monitors\/tmo_/);
  });

  it('runs the monitor: the first run becomes the baseline with the trackers it saw', async () => {
    await page.locator('#tm-state', { hasText: 'Waiting for the first run' }).waitFor();
    expect(await page.locator('#tm-settings').textContent()).toContain('#tracking');
    await runNow('Baseline');
    await page.locator('#tm-state', { hasText: 'Passing' }).waitFor();
    const view = page.locator('#tm-run');
    await view.getByRole('heading', { name: home }).waitFor();
    const trackers = view.getByRole('table', { name: `Trackers on ${home}` });
    expect(await trackers.getByRole('row', { name: /Google Tag Manager/ }).textContent()).toContain('GTM-MON0001');
    expect(await page.locator('#tm-incident').textContent()).toContain('No open incident');
  }, 90_000);

  it('opens an incident when the tag is removed, and shows the diff of the run', async () => {
    fixture.setPage(HOME, withoutTag);
    await runNow('Changed');
    await page.locator('#tm-state', { hasText: 'an incident is open' }).waitFor();
    const incident = page.locator('#tm-incident');
    await incident.getByText('Google Tag Manager no longer loads.').waitFor();
    expect(await incident.textContent()).toMatch(/critical.*Open since/);
    expect(await incident.locator('li.change').first().textContent()).toContain('Tracker removed');
    // The diff view of the run: the change on its page, and the tracker shown as removed with its id.
    const view = page.locator('#tm-run');
    expect(await view.locator('li.change', { hasText: 'Tracker removed' }).textContent()).toContain(
      'Google Tag Manager no longer loads.',
    );
    const removed = view.getByRole('row', { name: /Google Tag Manager/ });
    expect(await removed.textContent()).toContain('removed: no longer loads');
    expect(await removed.textContent()).toContain('GTM-MON0001');
    await expect.poll(() => page.getByRole('button', { name: 'Accept as baseline' }).count()).toBe(1);
    await look('dashboard-tracking-monitor-incident');

    // The list shows the open incident.
    await page.getByRole('link', { name: '← All tracking monitors' }).click();
    const row = page.getByRole('row', { name: /Shop tracking/ });
    await row.getByRole('link', { name: 'Open incident' }).waitFor();
    expect(await row.textContent()).toContain('Changed: an incident is open');
    await look('dashboard-tracking-monitors');
    await row.getByRole('link', { name: 'Shop tracking' }).click();
    await page.waitForURL(/\/dashboard\/tracking-monitors\/tmo_/);
  }, 90_000);

  it('accepts the changed run as the baseline from the run view, which resolves the incident', async () => {
    await page.getByRole('button', { name: 'Accept as baseline' }).waitFor();
    let question = '';
    page.once('dialog', async (dialog) => {
      question = dialog.message();
      await dialog.accept();
    });
    await page.getByRole('button', { name: 'Accept as baseline' }).click();
    await page.locator('#tm-incident', { hasText: 'No open incident' }).waitFor();
    expect(question).toContain('Accept this run as the baseline?');
    expect(await page.locator('#tm-last-resolved').textContent()).toContain('a new baseline was accepted');
    expect(await page.locator('#tm-action-status').textContent()).toContain('Accepted');
    await page.locator('#tm-state', { hasText: 'Passing' }).waitFor();
    expect(await page.locator('#tm-incidents-table tbody').textContent()).toContain('resolved');
    expect(await page.locator('#tm-run').textContent()).toContain('current baseline');
    await page.getByRole('button', { name: 'Accept as baseline' }).waitFor({ state: 'detached' });
  });

  it('changes the rules, pauses and resumes, and shows a failed run with its error', async () => {
    await page.getByLabel('Tracker added: on').uncheck();
    await page.getByLabel('Loss increased: severity').selectOption('critical');
    await page.getByRole('button', { name: 'Save rules' }).click();
    await page.locator('#tm-rules-status', { hasText: 'Rules saved.' }).waitFor();
    const id = new URL(page.url()).pathname.split('/').at(-1);
    const saved = (await t.inject({ method: 'GET', url: `/api/tracking-monitors/${id}/`, token })).json();
    expect(saved.rules.tracker_added).toEqual({ enabled: false, severity: 'warning' });
    expect(saved.rules.loss_increased).toEqual({ enabled: true, severity: 'critical' });
    expect(saved.rules.tracker_removed).toEqual({ enabled: true, severity: 'critical' });
    // Saving the rules keeps the other settings (the channel chosen in the form among them).
    expect(saved.notification_channel_ids).toHaveLength(1);
    expect(saved.baseline_run_id).not.toBeNull();

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.locator('#tm-state', { hasText: 'Paused' }).waitFor();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('#tm-state', { hasText: 'Passing' }).waitFor();

    fixture.setPage(HOME, 'reset');
    await runNow('Failed');
    expect(await page.locator('#tm-run').textContent()).toContain('This run failed');
    expect(await page.getByRole('button', { name: 'Accept as baseline' }).count()).toBe(0);
    await page.locator('#tm-state', { hasText: 'Failing' }).waitFor();
    await look('dashboard-tracking-monitor-failed');
    expect(problems).toEqual([]);
  }, 120_000);

  it("offers a tracking monitor from a container's settings, with that container chosen in the form", async () => {
    await page.goto(`${dashboard.base}/dashboard/containers`);
    await page
      .locator('#containers-table tbody tr', { hasText: 'Shop tagging' })
      .getByRole('button', { name: 'Shop tagging' })
      .click();
    await page.getByRole('link', { name: "Watch this container's tracking on your site" }).click();
    await page.waitForURL(/\/dashboard\/tracking-monitors\?container=ctr_/);
    const linked = new URL(page.url()).searchParams.get('container');
    await expect.poll(() => page.locator('#tm-container').inputValue()).toBe(linked);
  });
});
