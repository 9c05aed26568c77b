import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTIFICATION_DELIVERIES } from '../../../src/modules/notifications/service.js';
import { REPORT_BUILDS } from '../../../src/modules/reports/service.js';
import { SCANS } from '../../../src/modules/tracking-checker/worker.js';
import { TRACKING_RUNS } from '../../../src/modules/tracking-monitors/runs.js';
import { Scanner } from '../../../src/scanner/index.js';
import {
  consentDefaults,
  type FixtureServer,
  gtmSnippet,
  metaSnippet,
  page,
  startFixtureServer,
} from '../../fixtures/scanner/server.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { startHttpsTarget } from '../../helpers/https-target.js';
import { startSmtpServer } from '../../helpers/smtp.js';

const PUBLIC_BASE_URL = 'https://tagport.example';
const HOME = 'monitored.example.test /';
const PIXEL = '555566667777888';

// The monitored site: Cookiebot, GTM from a first-party server-side container (which loads GA4 from there too), and
// the Meta pixel, which Cookiebot holds until marketing consent.
const heldMeta = metaSnippet(PIXEL, 'type="text/plain" data-cookieconsent="marketing"');
const firingMeta = metaSnippet(PIXEL);
const tiktok = `<script>window.ttq = window.ttq || []; ttq.load = function (id) { ttq.id = id; }; ttq.load('CTESTPIXEL0123456789');</script>
<script async src="https://analytics.tiktok.com/i18n/pixel/events.js?sdkid=CTESTPIXEL0123456789&lib=ttq"></script>`;
const cookiebot = `<script id="Cookiebot" src="https://consent.cookiebot.com/uc.js" data-cbid="3f1e6c2a-0000-4000-8000-0000000000aa"></script>`;
const sgtm = gtmSnippet('GTM-FP0001', 'https://sgtm.firstparty.test');
const site = (...parts: string[]) => page('Monitored shop', [consentDefaults, cookiebot, ...parts].join('\n'));

describe('tracking monitors: runs against a changing site, incidents and alerts (real Chromium)', () => {
  let fixture: FixtureServer;
  let scanner: Scanner;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let slack: Awaited<ReturnType<typeof startHttpsTarget>>;
  let t: TestApp;
  let tenant: { tenantId: string; token: string };
  let monitorId: string;

  beforeAll(async () => {
    fixture = await startFixtureServer();
    fixture.setPage(HOME, site(heldMeta, sgtm));
    scanner = new Scanner(fixture.scannerOptions({ scanTimeoutMs: 30_000 }));
    smtp = await startSmtpServer();
    slack = await startHttpsTarget(() => ({ status: 200 }));
    t = await startTestApp(
      'pglite',
      {
        allowPrivateNetworks: true,
        outboundCaCertificates: [slack.ca],
        runWorkers: false,
        publicBaseUrl: PUBLIC_BASE_URL,
        mail: { smtpUrl: smtp.url, from: 'Tagport <alerts@tagport.test>' },
      },
      undefined,
      { scanner },
    );
    tenant = await t.tenantWithKey('business');
    await t.database.db.execute(
      sql`update tenants set feature_overrides = '{"tracking_monitor_min_interval_seconds": 10}' where id = ${tenant.tenantId}`,
    );
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await scanner?.close();
    await fixture?.close();
    await slack?.close();
    await smtp?.close();
  });

  const api = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
    t.inject({ method, url, token: tenant.token, payload });

  async function channel(body: object): Promise<string> {
    const created = await api('POST', '/api/notification-channels/', body);
    expect(created.statusCode, created.body).toBe(201);
    return created.json().id;
  }

  /** Runs the monitor now (POST …/runs/ then the job) and returns the finished run. */
  async function runNow() {
    const queued = await api('POST', `/api/tracking-monitors/${monitorId}/runs/`);
    expect(queued.statusCode, queued.body).toBe(202);
    expect(queued.json().result).toBe('queued');
    expect(await t.app.services.jobs.runQueued(TRACKING_RUNS)).toBe(1);
    const run = await api('GET', `/api/tracking-monitors/${monitorId}/runs/${queued.json().id}/`);
    expect(run.statusCode, run.body).toBe(200);
    return run.json();
  }
  const monitor = async () => (await api('GET', `/api/tracking-monitors/${monitorId}/`)).json();
  const incidents = async () => (await api('GET', `/api/tracking-monitors/${monitorId}/incidents/`)).json().results;
  const slackTexts = () => slack.received.map((request) => JSON.stringify(JSON.parse(request.body)));

  it('takes the first good run as baseline, opens an incident with the diff when a tag is removed, alerts by email and Slack, and resolves when the tag is back', async () => {
    const email = await channel({
      name: 'Tracking',
      type: 'email',
      target: 'tracking@shop.example',
      event_types: ['tracking_incident.opened', 'tracking_incident.resolved'],
    });
    const chat = await channel({
      name: '#tracking',
      type: 'slack',
      target: slack.url('/services/T1/B1/secret'),
      event_types: ['tracking_incident.opened', 'tracking_incident.resolved'],
    });
    const created = await api('POST', '/api/tracking-monitors/', {
      name: 'Monitored shop',
      pages: [fixture.url('monitored.example.test', '/')],
      interval_seconds: 3600,
      consent_check: false,
      notification_channel_ids: [email, chat],
    });
    expect(created.statusCode, created.body).toBe(201);
    monitorId = created.json().id;
    expect(created.json()).toMatchObject({ status: 'pending', baseline_run_id: null, open_incident_id: null });

    const baseline = await runNow();
    expect(baseline.result).toBe('baseline');
    expect(baseline.changes).toEqual([]);
    const [home] = baseline.pages;
    const keys = home.trackers.map((tracker: { key: string }) => tracker.key);
    expect(keys).toEqual(expect.arrayContaining(['google_tag_manager', 'google_analytics_4']));
    expect(home.server_side_endpoints).toEqual([expect.stringContaining('sgtm.firstparty.test')]);
    expect(home.cmp).toBe('Cookiebot');
    expect(await monitor()).toMatchObject({ status: 'passing', baseline_run_id: baseline.id });

    // A release drops the server-side GTM snippet.
    fixture.setPage(HOME, site(heldMeta));
    const broken = await runNow();
    expect(broken.result).toBe('changed');
    const rules = broken.changes.map((change: { rule: string }) => change.rule);
    expect(rules).toContain('tracker_removed');
    expect(rules).toContain('server_side_lost');
    const removed = broken.changes.find(
      (change: { rule: string; tracker: string }) =>
        change.rule === 'tracker_removed' && change.tracker === 'google_tag_manager',
    );
    expect(removed).toMatchObject({ severity: 'critical', page: fixture.url('monitored.example.test', '/') });
    expect(removed.evidence.length).toBeGreaterThan(0);
    const [incident] = await incidents();
    expect(incident).toMatchObject({ status: 'open', severity: 'critical', opened_run_id: broken.id });
    expect(await monitor()).toMatchObject({ status: 'changed', open_incident_id: incident.id });

    await t.app.services.jobs.runQueued(NOTIFICATION_DELIVERIES);
    const mail = await smtp.next();
    expect(mail.subject).toContain('Tracking changed: Monitored shop');
    expect(mail.text).toContain('Google Tag Manager no longer loads.');
    expect(mail.text).toContain(`${PUBLIC_BASE_URL}/dashboard/tracking-monitors/${monitorId}`);
    expect(slackTexts().join(' ')).toContain('Tracking changed: Monitored shop');

    // The snippet is back: the next run matches and the incident resolves.
    fixture.setPage(HOME, site(heldMeta, sgtm));
    const fixed = await runNow();
    expect(fixed.result).toBe('matched');
    expect((await incidents())[0]).toMatchObject({ id: incident.id, status: 'resolved', resolution: 'run_matched' });
    expect(await monitor()).toMatchObject({ status: 'passing', open_incident_id: null });
    await t.app.services.jobs.runQueued(NOTIFICATION_DELIVERIES);
    expect((await smtp.next()).subject).toContain('Tracking back to baseline: Monitored shop');
  });

  it('opens an incident when a held tag starts firing before consent, and resolves it when the new state is accepted as baseline', async () => {
    fixture.setPage(HOME, site(firingMeta, sgtm));
    const run = await runNow();
    expect(run.result).toBe('changed');
    const before = run.changes.find((change: { rule: string }) => change.rule === 'fires_before_consent');
    expect(before).toMatchObject({ tracker: 'meta_pixel', severity: 'critical', after: true });
    const [incident] = await incidents();
    expect(incident.status).toBe('open');

    const accepted = await api('POST', `/api/tracking-monitors/${monitorId}/baseline/`, { run_id: run.id });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toMatchObject({ baseline_run_id: run.id, status: 'passing', open_incident_id: null });
    expect((await incidents())[0]).toMatchObject({ id: incident.id, resolution: 'baseline_accepted' });
    expect((await runNow()).result).toBe('matched');
  });

  it('records a run whose page cannot be loaded as failed, compares nothing and leaves the incidents alone', async () => {
    const openBefore = (await incidents()).filter((incident: { status: string }) => incident.status === 'open');
    fixture.setPage(HOME, 'reset');
    const run = await runNow();
    expect(run.result).toBe('failed');
    expect(run.error).toBeTruthy();
    expect(run.changes).toEqual([]);
    expect(await monitor()).toMatchObject({ status: 'failing' });
    const openAfter = (await incidents()).filter((incident: { status: string }) => incident.status === 'open');
    expect(openAfter).toEqual(openBefore);
    const refused = await api('POST', `/api/tracking-monitors/${monitorId}/baseline/`, { run_id: run.id });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('run_not_comparable');
    fixture.setPage(HOME, site(firingMeta, sgtm));
  });

  it('runs on its schedule, once per due time, on its own queue: an API scan beside it still runs and its runs use none of the hourly scan quota', async () => {
    const quotaBefore = await t.app.services.trackingChecker.quota(tenant.tenantId);
    const updated = await api('PATCH', `/api/tracking-monitors/${monitorId}/`, { interval_seconds: 10 });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(await t.app.services.trackingRuns.dispatch()).toBe(1);
    // The next run is due 10 s later: nothing more is claimed now.
    expect(await t.app.services.trackingRuns.dispatch()).toBe(0);
    // Overdue by 25 s (a worker was down): one run, not three, and the schedule moves on by whole intervals.
    await t.database.db.execute(
      sql`update tracking_monitors set next_run_at = now() - interval '25 seconds' where id = ${monitorId}`,
    );
    expect(await t.app.services.trackingRuns.dispatch()).toBe(1);
    const next = new Date((await monitor()).next_run_at).getTime();
    expect(next).toBeGreaterThan(Date.now());
    expect(next).toBeLessThanOrEqual(Date.now() + 10_000);

    const accepted = await t.inject({
      method: 'POST',
      url: '/api/v1/tracking-checker/scan/',
      token: tenant.token,
      headers: { prefer: 'respond-async' },
      payload: { url: fixture.url('shop.example.test', '/') },
    });
    expect(accepted.statusCode, accepted.body).toBe(202);
    await Promise.all([
      t.app.services.jobs.runQueued(TRACKING_RUNS, { parallel: true }),
      t.app.services.jobs.runQueued(SCANS),
    ]);
    const state = await api('GET', `/api/v1/tracking-checker/scans/${accepted.json().scan_id}/`);
    expect(state.json().status).toBe('completed');

    const runs = (await api('GET', `/api/tracking-monitors/${monitorId}/runs/?page_size=100`)).json();
    const scheduled = runs.results.filter((run: { trigger: string }) => run.trigger === 'schedule');
    expect(scheduled).toHaveLength(2);
    expect(scheduled.every((run: { result: string }) => run.result === 'matched')).toBe(true);
    const quotaAfter = await t.app.services.trackingChecker.quota(tenant.tenantId);
    // Only the API's own scan counts.
    expect(quotaBefore.remaining - quotaAfter.remaining).toBe(1);
  });

  it("reports each page's trackers over time as CSV: one row per run, page and tracker, failed runs included", async () => {
    const created = await api('POST', '/api/reports/', {
      kind: 'tracking',
      period_start: new Date(Date.now() - 3_600_000).toISOString(),
      period_end: new Date(Date.now() + 3_600_000).toISOString(),
      format: 'csv',
    });
    expect(created.statusCode, created.body).toBe(202);
    await t.app.services.jobs.runQueued(REPORT_BUILDS);
    const download = await api('GET', `/api/reports/${created.json().id}/download/`);
    expect(download.statusCode, download.body).toBe(200);
    const [header, ...lines] = download.body.trim().split('\r\n');
    expect(header).toBe(
      'monitor_id,monitor_name,run_id,due_at,result,page,page_error,page_changes,tracker,ids,fires_before_consent,server_side',
    );
    const runs = (await api('GET', `/api/tracking-monitors/${monitorId}/runs/?page_size=100`)).json().results;
    const finished = runs.filter((run: { result: string }) => run.result !== 'queued' && run.result !== 'running');
    expect(new Set(lines.map((line) => line.split(',')[2]))).toEqual(
      new Set(finished.map((run: { id: string }) => run.id)),
    );
    const removal = lines.filter((line) => line.includes(',changed,') && line.includes('meta_pixel'));
    expect(removal.length).toBeGreaterThan(0);
    expect(lines.some((line) => line.includes(',failed,') && line.split(',')[8] === '')).toBe(true);
    expect(lines.some((line) => /,google_analytics_4,[^,]*G-FP00001/.test(line))).toBe(true);
  });

  it('opens an incident for a new tracker and one for the server-side endpoint switched off, each reaching the channels', async () => {
    /** Delivers the queued notifications and takes mails until one contains `text` (earlier ones are skipped). */
    async function mailWith(text: string) {
      await t.app.services.jobs.runQueued(NOTIFICATION_DELIVERIES);
      for (let taken = 0; taken < 10; taken++) {
        const mail = await smtp.next();
        if (mail.text.includes(text)) return mail;
      }
      throw new Error(`no mail with ${text}`);
    }
    fixture.setPage(HOME, site(firingMeta, sgtm));
    expect((await runNow()).result).toBe('matched');

    // A plug-in update adds the TikTok pixel.
    fixture.setPage(HOME, site(firingMeta, sgtm, tiktok));
    const added = await runNow();
    expect(added.result).toBe('changed');
    expect(added.changes).toContainEqual(
      expect.objectContaining({ rule: 'tracker_added', tracker: 'tiktok_pixel', severity: 'warning' }),
    );
    expect((await mailWith('TikTok')).subject).toContain('Tracking changed: Monitored shop');
    const accepted = await api('POST', `/api/tracking-monitors/${monitorId}/baseline/`, { run_id: added.id });
    expect(accepted.statusCode, accepted.body).toBe(200);

    // The server-side container stops answering: the page still names it, its requests fail.
    fixture.setPage('sgtm.firstparty.test /gtm.js', 'reset');
    try {
      const lost = await runNow();
      expect(lost.result).toBe('changed');
      expect(lost.changes.map((change: { rule: string }) => change.rule)).toContain('server_side_lost');
      const [incident] = await incidents();
      expect(incident).toMatchObject({ status: 'open', opened_run_id: lost.id });
      expect((await mailWith('server-side endpoint')).subject).toContain('Tracking changed: Monitored shop');
      expect(slackTexts().join(' ')).toContain('server-side endpoint');
    } finally {
      fixture.setPage('sgtm.firstparty.test /gtm.js', undefined);
    }
    expect((await runNow()).result).toBe('matched');
    expect((await incidents())[0]).toMatchObject({ status: 'resolved', resolution: 'run_matched' });
  });
});
