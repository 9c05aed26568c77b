import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrackingRuns } from '../../../src/modules/tracking-monitors/runs.js';
import type { ScanResult } from '../../../src/scanner/schema.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

const URL = 'https://shop.example/';

/** The part of a scan result a run reads: one page with these trackers. */
const resultWith = (trackers: Array<{ key: string; ids: string[] }>) =>
  ({
    url: URL,
    final_url: URL,
    trackers: trackers.map((tracker) => ({
      ...tracker,
      name: tracker.key,
      evidence: [],
      fires_before_consent: false,
      server_side: false,
    })),
    consent: { cmp: null, consent_mode: { detected: false, version: null, mode: null } },
    server_side_tagging: { endpoints: [] },
    loss_estimate: { analytics_events: null, ad_conversions: null },
  }) as unknown as ScanResult;

describe.each(backends)('tracking runs of one monitor at the same time on %s', (backend) => {
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
});
