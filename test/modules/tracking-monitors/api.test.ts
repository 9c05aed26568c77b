import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

const PAGE = 'https://shop.example/';

describe.each(backends)('tracking monitors API on %s', (backend) => {
  let t: TestApp;
  let owner: { tenantId: string; token: string };
  let other: { tenantId: string; token: string };

  beforeAll(async () => {
    t = await startTestApp(backend, { runWorkers: false });
    owner = await t.tenantWithKey('pro');
    other = await t.tenantWithKey('pro');
  }, 60_000);
  afterAll(() => t?.close());

  const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, token = owner.token) =>
    t.inject({ method, url, token, payload });

  async function create(body: object = {}) {
    const response = await api('POST', '/api/tracking-monitors/', { name: 'Shop', pages: [PAGE], ...body });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  it('creates a monitor with the plan defaults (daily, all rules on) and lists it for its tenant only', async () => {
    const monitor = await create({ rules: { tracker_added: { enabled: false } } });
    expect(monitor).toMatchObject({
      id: expect.stringMatching(/^tmo_/),
      pages: [PAGE],
      follow_links: 0,
      interval_seconds: 86_400,
      consent_check: true,
      loss_threshold_pct: 10,
      container_id: null,
      status: 'pending',
      baseline_run_id: null,
      open_incident_id: null,
    });
    expect(monitor.rules.tracker_added).toEqual({ enabled: false, severity: 'warning' });
    expect(monitor.rules.tracker_removed).toEqual({ enabled: true, severity: 'critical' });

    const mine = (await api('GET', '/api/tracking-monitors/')).json();
    expect(mine.results.map((row: { id: string }) => row.id)).toContain(monitor.id);
    const theirs = (await api('GET', '/api/tracking-monitors/', undefined, other.token)).json();
    expect(theirs.results).toEqual([]);
    expect((await api('GET', `/api/tracking-monitors/${monitor.id}/`, undefined, other.token)).statusCode).toBe(404);
    expect((await api('GET', `/api/tracking-monitors/${monitor.id}/runs/`, undefined, other.token)).statusCode).toBe(
      404,
    );
  });

  it('refuses settings the plan does not allow, bad pages and unknown channels or containers, naming the field', async () => {
    const cases: Array<[object, number, string, string]> = [
      [{ interval_seconds: 600 }, 400, 'interval_too_short', 'interval_seconds'],
      [{ pages: [1, 2, 3, 4, 5, 6, 7].map((n) => `${PAGE}${n}`), follow_links: 4 }, 400, 'too_many_pages', 'pages'],
      [{ pages: ['ftp://shop.example/'] }, 400, 'invalid_url', 'pages[0]'],
      [{ pages: [PAGE, 'https://user:pw@shop.example/'] }, 400, 'invalid_url', 'pages[1]'],
      [{ notification_channel_ids: ['nch_01jdv3k2m8q4r7s9t0v1w2x3y4'] }, 400, 'notification_channel_missing', ''],
      [{ container_id: 'ctr_01jdv3k2m8q4r7s9t0v1w2x3y4' }, 400, 'resource_missing', 'container_id'],
      [{ rules: { no_such_rule: { enabled: true } } }, 400, 'unknown_parameter', ''],
      [{ rules: { tracker_added: { severity: 'fatal' } } }, 400, 'invalid_parameter', ''],
    ];
    for (const [body, status, code, param] of cases) {
      const response = await api('POST', '/api/tracking-monitors/', { name: 'Bad', pages: [PAGE], ...body });
      expect(response.statusCode, JSON.stringify(body)).toBe(status);
      expect(response.json().error.code, JSON.stringify(body)).toBe(code);
      if (param) expect(response.json().error.param).toBe(param);
    }
  });

  it('keeps to the plan count of tracking monitors', async () => {
    await t.database.db.execute(
      sql`update tenants set feature_overrides = '{"max_tracking_monitors": 1}' where id = ${other.tenantId}`,
    );
    const first = await api('POST', '/api/tracking-monitors/', { name: 'One', pages: [PAGE] }, other.token);
    expect(first.statusCode, first.body).toBe(201);
    const second = await api('POST', '/api/tracking-monitors/', { name: 'Two', pages: [PAGE] }, other.token);
    expect(second.statusCode).toBe(402);
    expect(second.json().error.code).toBe('plan_limit_reached');
  });

  it('keeps the fields a PATCH leaves out, not their create defaults', async () => {
    const channel = await api('POST', '/api/notification-channels/', {
      name: 'Tracking',
      type: 'email',
      target: 'tracking@shop.example',
    });
    expect(channel.statusCode, channel.body).toBe(201);
    const monitor = await create({
      follow_links: 2,
      consent_check: false,
      loss_threshold_pct: 25,
      notification_channel_ids: [channel.json().id],
    });
    const patched = await api('PATCH', `/api/tracking-monitors/${monitor.id}/`, {
      rules: { tracker_added: { enabled: false } },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({
      follow_links: 2,
      consent_check: false,
      loss_threshold_pct: 25,
      notification_channel_ids: [channel.json().id],
      interval_seconds: monitor.interval_seconds,
    });
    expect(patched.json().rules.tracker_added.enabled).toBe(false);
  });

  it('updates only the given fields; new pages clear the baseline; pause and resume', async () => {
    const monitor = await create();
    await t.database.db.execute(
      sql`update tracking_monitors set baseline_run_id = 'trn_01jdv3k2m8q4r7s9t0v1w2x3y4' where id = ${monitor.id}`,
    );
    const renamed = await api('PATCH', `/api/tracking-monitors/${monitor.id}/`, {
      name: 'Shop pages',
      rules: { loss_increased: { severity: 'critical' } },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'Shop pages', baseline_run_id: 'trn_01jdv3k2m8q4r7s9t0v1w2x3y4' });
    expect(renamed.json().rules.loss_increased).toEqual({ enabled: true, severity: 'critical' });
    const morePages = await api('PATCH', `/api/tracking-monitors/${monitor.id}/`, { pages: [PAGE, `${PAGE}cart`] });
    expect(morePages.json()).toMatchObject({ pages: [PAGE, `${PAGE}cart`], baseline_run_id: null });

    const paused = await api('POST', `/api/tracking-monitors/${monitor.id}/pause/`);
    expect(paused.json()).toMatchObject({ status: 'paused', next_run_at: null });
    const again = await api('POST', `/api/tracking-monitors/${monitor.id}/pause/`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('monitor_already_paused');
    const resumed = await api('POST', `/api/tracking-monitors/${monitor.id}/resume/`);
    expect(resumed.json().status).toBe('pending');
    expect((await api('POST', `/api/tracking-monitors/${monitor.id}/resume/`)).json().error.code).toBe(
      'monitor_not_paused',
    );
  });

  it('queues a run on demand, lists runs and incidents, refuses a baseline before any good run, and deletes', async () => {
    const monitor = await create();
    const run = await api('POST', `/api/tracking-monitors/${monitor.id}/runs/`);
    expect(run.statusCode, run.body).toBe(202);
    expect(run.json()).toMatchObject({ result: 'queued', trigger: 'manual', changes: [], pages: [] });
    const runs = (await api('GET', `/api/tracking-monitors/${monitor.id}/runs/`)).json();
    expect(runs.results.map((row: { id: string }) => row.id)).toEqual([run.json().id]);
    expect((await api('GET', `/api/tracking-monitors/${monitor.id}/runs/${run.json().id}/`)).json().id).toBe(
      run.json().id,
    );
    expect((await api('GET', `/api/tracking-monitors/${monitor.id}/incidents/`)).json().results).toEqual([]);
    const missingRun = await api('GET', `/api/tracking-monitors/${monitor.id}/runs/trn_01jdv3k2m8q4r7s9t0v1w2x3y4/`);
    expect(missingRun.statusCode).toBe(404);

    const noBaseline = await api('POST', `/api/tracking-monitors/${monitor.id}/baseline/`, {});
    expect(noBaseline.statusCode).toBe(409);
    expect(noBaseline.json().error.code).toBe('no_run_to_accept');
    const queuedBaseline = await api('POST', `/api/tracking-monitors/${monitor.id}/baseline/`, {
      run_id: run.json().id,
    });
    expect(queuedBaseline.json().error.code).toBe('run_not_comparable');

    const deleted = await api('DELETE', `/api/tracking-monitors/${monitor.id}/`);
    expect(deleted.statusCode).toBe(200);
    expect((await api('GET', `/api/tracking-monitors/${monitor.id}/`)).statusCode).toBe(404);
  });
});
