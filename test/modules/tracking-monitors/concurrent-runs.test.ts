import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrackingRuns } from '../../../src/modules/tracking-monitors/runs.js';
import type { ScanResult } from '../../../src/scanner/schema.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

const URL = 'https://shop.example/';

/** The part of a scan result a run reads: one page with these trackers. */
const resultWith = (trackers: Array<{ key: string; ids: string[]; script?: string }>) =>
  ({
    url: URL,
    final_url: URL,
    trackers: trackers.map(({ script, ...tracker }) => ({
      ...tracker,
      name: tracker.key,
      evidence: script ? [{ kind: 'script', detail: 'loader', url: script }] : [],
      fires_before_consent: false,
      server_side: false,
    })),
    consent: { cmp: null, consent_mode: { detected: false, version: null, mode: null } },
    server_side_tagging: { endpoints: [] },
    loss_estimate: { analytics_events: null, ad_conversions: null },
  }) as unknown as ScanResult;

describe.each(backends)('tracking runs (scan results given) on %s', (backend) => {
  let t: TestApp;
  let tenant: { tenantId: string; token: string };
  beforeAll(async () => {
    t = await startTestApp(backend, { runWorkers: false });
    tenant = await t.tenantWithKey('business');
  }, 60_000);
  afterAll(() => t?.close());

  it('open one incident and announce it once when two changed runs finish together', async () => {
    let result = resultWith([
      { key: 'google_analytics_4', ids: ['G-1'] },
      { key: 'meta_pixel', ids: ['1'] },
    ]);
    const runs = new TrackingRuns(
      {
        database: t.database,
        scanner: { scan: async () => result },
        events: t.app.services.events,
        jobs: t.app.services.jobs,
      },
      { lookaheadMs: 0, batchSize: 10, log: { warn: () => {} } },
    );
    const monitor = await t.app.services.trackingMonitors.create(tenant.tenantId, {
      name: 'Shop',
      pages: [URL],
      interval_seconds: 86_400,
    });
    const row = async () => (await t.app.services.trackingMonitors.get(tenant.tenantId, monitor.id)).id;
    const runNow = async () => {
      const run = await t.app.services.trackingMonitors.runNow(tenant.tenantId, await row());
      return run.id;
    };
    await runs.run({ runId: await runNow() });

    result = resultWith([{ key: 'google_analytics_4', ids: ['G-1'] }]);
    const [first, second] = [await runNow(), await runNow()];
    await Promise.all([runs.run({ runId: first }), runs.run({ runId: second })]);

    const incidents = (
      await t.inject({ method: 'GET', url: `/api/tracking-monitors/${monitor.id}/incidents/`, token: tenant.token })
    ).json().results;
    expect(incidents).toHaveLength(1);
    expect(incidents[0].changes.map((change: { rule: string }) => change.rule)).toEqual(['tracker_removed']);
    const events = (
      await t.inject({ method: 'GET', url: '/api/events/?type=tracking_incident.opened', token: tenant.token })
    ).json().results;
    expect(events).toHaveLength(1);
  });

  it("checks at each run that the pages use the linked container's hostnames, custom domains added later included", async () => {
    const api = (method: 'POST' | 'GET', url: string, payload?: object) =>
      t.inject({ method, url, token: tenant.token, payload });
    const container = await api('POST', '/api/containers/', {
      name: 'Shop',
      region: 'eu-central',
      config: Buffer.from('id=GTM-LINKED1&env=1&auth=abcdefgh').toString('base64'),
    });
    expect(container.statusCode, container.body).toBe(201);
    const { id: containerId, default_hostname: defaultHost } = container.json();

    let result = resultWith([
      { key: 'google_tag_manager', ids: ['GTM-LINKED1'], script: `https://${defaultHost}/gtm.js` },
    ]);
    const runs = new TrackingRuns(
      {
        database: t.database,
        scanner: { scan: async () => result },
        events: t.app.services.events,
        jobs: t.app.services.jobs,
      },
      { lookaheadMs: 0, batchSize: 10, log: { warn: () => {} } },
    );
    const monitor = await t.app.services.trackingMonitors.create(tenant.tenantId, {
      name: 'Linked',
      pages: [URL],
      interval_seconds: 86_400,
      container_id: containerId,
    });
    const run = async () => {
      const queued = await t.app.services.trackingMonitors.runNow(tenant.tenantId, monitor.id);
      await runs.run({ runId: queued.id });
      return t.app.services.trackingMonitors.getRun(tenant.tenantId, monitor.id, queued.id);
    };
    const baseline = await run();
    expect(baseline.pages[0].container_seen).toBe(true);
    expect(baseline.changes).toEqual([]);

    // A custom domain added after the monitor was saved, and the site moves its snippet there: still the container.
    const domain = await api('POST', '/api/domains/', { hostname: 'sst.shop-linked.test', container_id: containerId });
    expect(domain.statusCode, domain.body).toBe(201);
    result = resultWith([
      { key: 'google_tag_manager', ids: ['GTM-LINKED1'], script: 'https://sst.shop-linked.test/gtm.js' },
    ]);
    expect((await run()).changes).toEqual([]);

    // A release loads GTM from Google again: the container is no longer used.
    result = resultWith([
      { key: 'google_tag_manager', ids: ['GTM-LINKED1'], script: 'https://www.googletagmanager.com/gtm.js' },
    ]);
    const broken = await run();
    expect(broken.changes.map((change) => change.rule)).toEqual(['container_missing']);
  });
});
