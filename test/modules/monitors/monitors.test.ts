import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { MONITOR_CHECKS } from '../../../src/modules/monitors/checks.js';
import { WEBHOOK_DELIVERIES } from '../../../src/modules/webhooks/service.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { startHttpsTarget } from '../../helpers/https-target.js';
import { expectOutboundUrlRules } from '../../helpers/outbound-rules.js';
import { waitFor } from '../../helpers/processes.js';

describe('monitors, incidents and webhooks over real HTTPS', () => {
  let target: Awaited<ReturnType<typeof startHttpsTarget>>;
  let receiver: Awaited<ReturnType<typeof startHttpsTarget>>;
  let t: TestApp;
  let tenant: { tenantId: string; token: string; keyId: string };
  const state = { shop: 200, receiverFailures: 0 };

  beforeAll(async () => {
    target = await startHttpsTarget((request) => {
      if (request.path === '/shop') return { status: state.shop, body: '<h1>Add to cart</h1>' };
      if (request.path === '/hang') return 'hang';
      if (request.path === '/slow') return { status: 200, body: 'ok', delayMs: 300 };
      return { status: 404, body: 'nope' };
    });
    receiver = await startHttpsTarget(() => (state.receiverFailures-- > 0 ? { status: 500 } : { status: 204 }));
    t = await startTestApp('pglite', {
      allowPrivateNetworks: true,
      outboundCaCertificates: [target.ca, receiver.ca],
      runWorkers: false,
      webhooks: { retryBaseMs: 1, maxAttempts: 3, timeoutMs: 2000 },
    });
    tenant = await t.tenantWithKey('business');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await target?.close();
    await receiver?.close();
  });

  /** Queues the checks due now (the dispatch job's step); the test runs them with `runQueued`. */
  const dispatch = () => t.app.services.monitorChecks.dispatch();
  const runChecks = (options?: { parallel: boolean }) => t.app.services.jobs.runQueued(MONITOR_CHECKS, options);
  async function runDue(monitorId: string) {
    await t.database.db.execute(sql`update monitors set next_check_at = now() where id = ${monitorId}`);
    await dispatch();
    await runChecks();
  }
  const post = (url: string, payload?: object) => t.inject({ method: 'POST', url, token: tenant.token, payload });
  const get = (url: string) => t.inject({ method: 'GET', url, token: tenant.token });

  describe('monitoring end to end', () => {
    it('checks a target, goes down after the confirmation count, opens an incident, recovers and resolves it, and signs webhooks', async () => {
      const hook = await post('/api/webhooks/', {
        url: receiver.url('/hooks'),
        event_types: ['monitor.down', 'monitor.up', 'incident.opened', 'incident.resolved'],
      });
      expect(hook.statusCode, hook.body).toBe(201);
      const secret = hook.json().secret as string;
      expect(secret).toMatch(/^whsec_/);
      expect((await get(`/api/webhooks/${hook.json().id}/`)).json()).not.toHaveProperty('secret');

      const created = await post('/api/monitors/', {
        name: 'Shop',
        target: { type: 'url', url: target.url('/shop') },
        interval_seconds: 60,
        keyword: 'Add to cart',
        keyword_mode: 'contains',
        confirmation_checks: 2,
      });
      expect(created.statusCode, created.body).toBe(201);
      const monitor = created.json();
      expect(monitor).toMatchObject({
        status: 'pending',
        interval_seconds: 60,
        expected_status_codes: ['2xx'],
        method: 'GET',
      });

      await runDue(monitor.id);
      expect((await get(`/api/monitors/${monitor.id}/`)).json().status).toBe('up');

      state.shop = 503;
      await runDue(monitor.id);
      expect((await get(`/api/monitors/${monitor.id}/`)).json().status).toBe('up');
      await runDue(monitor.id);
      expect((await get(`/api/monitors/${monitor.id}/`)).json().status).toBe('down');
      const open = (await get(`/api/incidents/?monitor_id=${monitor.id}`)).json();
      expect(open.count).toBe(1);
      expect(open.results[0]).toMatchObject({ status: 'open', cause: 'unexpected status 503' });

      state.shop = 200;
      await runDue(monitor.id);
      expect((await get(`/api/monitors/${monitor.id}/`)).json().status).toBe('up');
      const incident = (await get(`/api/incidents/?monitor_id=${monitor.id}`)).json().results[0];
      expect(incident.status).toBe('resolved');
      const again = await post(`/api/incidents/${incident.id}/resolve/`);
      expect(again.statusCode).toBe(409);
      expect(again.json().error.details.allowed_actions).toEqual([]);

      const checks = (await get(`/api/monitors/${monitor.id}/checks/`)).json();
      expect(checks.count).toBe(4);
      expect(checks.results.map((check: { result: string }) => check.result)).toEqual(['up', 'down', 'down', 'up']);
      expect(checks.results[0].latency_ms).toBeGreaterThanOrEqual(0);
      const stats = (await get(`/api/monitors/${monitor.id}/stats/`)).json();
      expect(stats.last_24h).toMatchObject({ checks: 4, uptime_pct: 50 });
      expect(stats.last_24h.p50_ms).not.toBeNull();

      await t.app.services.jobs.runQueued(WEBHOOK_DELIVERIES);
      // Webhooks carry no ordering guarantee (deliveries run in parallel); created_at orders the events.
      const events = Object.fromEntries(
        receiver.received.map((request) => JSON.parse(request.body)).map((event) => [event.type, event]),
      );
      expect(events['monitor.down'].created_at <= events['monitor.up'].created_at).toBe(true);
      expect(events['incident.opened'].created_at <= events['incident.resolved'].created_at).toBe(true);
      expect(events['incident.opened'].data.incident_id).toBe(incident.id);
      expect(receiver.received.map((request) => request.headers['tagport-event-type']).sort()).toEqual([
        'incident.opened',
        'incident.resolved',
        'monitor.down',
        'monitor.up',
      ]);
      for (const request of receiver.received) {
        const [timestamp, signature] = String(request.headers['tagport-signature'])
          .split(',')
          .map((part) => part.split('=')[1]);
        expect(Math.abs(Date.now() / 1000 - Number(timestamp))).toBeLessThan(60);
        expect(signature).toBe(createHmac('sha256', secret).update(`${timestamp}.${request.body}`).digest('hex'));
        expect(JSON.parse(request.body)).toMatchObject({
          tenant_id: tenant.tenantId,
          data: { monitor_id: monitor.id },
        });
      }
      // Every delivery is an event of the API, with the same id, type, time and data.
      for (const request of receiver.received) {
        const delivered = JSON.parse(request.body);
        const event = await get(`/api/events/${delivered.id}/`);
        expect(event.statusCode, event.body).toBe(200);
        expect(event.json()).toMatchObject({
          id: delivered.id,
          type: delivered.type,
          created_at: delivered.created_at,
          data: delivered.data,
        });
      }
      const listed = (await get(`/api/events/?object_id=${monitor.id}`)).json();
      expect(listed.results.map((event: { type: string }) => event.type).sort()).toEqual([
        'monitor.down',
        'monitor.up',
      ]);
      const incidentEvents = (await get(`/api/events/?object_id=${incident.id}`)).json();
      expect(incidentEvents.results.map((event: { type: string }) => event.type).sort()).toEqual([
        'incident.opened',
        'incident.resolved',
      ]);
      const deliveries = (await get(`/api/webhooks/${hook.json().id}/deliveries/`)).json();
      expect(deliveries.count).toBe(4);
      expect(
        deliveries.results.every(
          (delivery: { status: string; attempts: number }) =>
            delivery.status === 'succeeded' && delivery.attempts === 1,
        ),
      ).toBe(true);
    });
  });

  describe('monitor checks on the job engine', () => {
    it('never lets a hanging check hold up the others', async () => {
      const hanging = (
        await post('/api/monitors/', {
          name: 'Hangs',
          target: { type: 'url', url: target.url('/hang') },
          interval_seconds: 60,
          timeout_ms: 1500,
          confirmation_checks: 1,
        })
      ).json();
      const healthy = (
        await post('/api/monitors/', {
          name: 'Slow but fine',
          target: { type: 'url', url: target.url('/slow') },
          interval_seconds: 60,
          degraded_after_ms: 200,
        })
      ).json();
      await t.database.db.execute(
        sql`update monitors set next_check_at = now() where id in (${hanging.id}, ${healthy.id})`,
      );
      const started = Date.now();
      await dispatch();
      const running = runChecks({ parallel: true });
      await waitFor(
        async () => (await get(`/api/monitors/${healthy.id}/checks/`)).json().count === 1,
        1400,
        'the healthy check',
      );
      expect(Date.now() - started).toBeLessThan(1400);
      expect((await get(`/api/monitors/${hanging.id}/checks/`)).json().count).toBe(0);
      expect((await get(`/api/monitors/${healthy.id}/`)).json().status).toBe('degraded');
      await running;
      const [check] = (await get(`/api/monitors/${hanging.id}/checks/`)).json().results;
      expect(check).toMatchObject({ result: 'down', error: 'timeout after 1500 ms' });
      expect((await get(`/api/monitors/${hanging.id}/`)).json().status).toBe('down');
    });
  });

  async function pausable() {
    return (
      await post('/api/monitors/', {
        name: 'Pausable',
        target: { type: 'url', url: target.url('/shop') },
        interval_seconds: 60,
      })
    ).json();
  }

  describe('pauseMonitor · POST /api/monitors/:id/pause/', () => {
    it('pauses: no next check, and no check runs', async () => {
      const monitor = await pausable();
      expect((await post(`/api/monitors/${monitor.id}/pause/`)).json()).toMatchObject({
        status: 'paused',
        next_check_at: null,
      });
      await dispatch();
      await runChecks();
      expect((await get(`/api/monitors/${monitor.id}/checks/`)).json().count).toBe(0);
    });

    it('answers 409 with allowed_actions [resume] when already paused', async () => {
      const monitor = await pausable();
      await post(`/api/monitors/${monitor.id}/pause/`);
      const twice = await post(`/api/monitors/${monitor.id}/pause/`);
      expect(twice.statusCode).toBe(409);
      expect(twice.json().error.details.allowed_actions).toEqual(['resume']);
    });
  });

  describe('resumeMonitor · POST /api/monitors/:id/resume/', () => {
    it('resumes a paused monitor as pending, and answers 409 when resumed twice', async () => {
      const monitor = await pausable();
      await post(`/api/monitors/${monitor.id}/pause/`);
      expect((await post(`/api/monitors/${monitor.id}/resume/`)).json().status).toBe('pending');
      expect((await post(`/api/monitors/${monitor.id}/resume/`)).statusCode).toBe(409);
    });
  });

  describe('createMonitor · POST /api/monitors/', () => {
    it.each([
      ['an interval below the plan minimum', { interval_seconds: 20 }, 'interval_too_short', 'interval_seconds'],
      ['a keyword without a mode', { keyword: 'x' }, 'keyword_mode_required', 'keyword_mode'],
      ['a malformed regex', { keyword: 'a(b', keyword_mode: 'regex' }, 'invalid_regex', 'keyword'],
      [
        'degraded above the timeout',
        { timeout_ms: 1000, degraded_after_ms: 2000 },
        'invalid_degraded_after',
        'degraded_after_ms',
      ],
      ['a bad status rule', { expected_status_codes: ['2x'] }, 'invalid_parameter', 'expected_status_codes.0'],
      ['an unknown field', { retries: 3 }, 'unknown_parameter', 'retries'],
    ])('refuses %s with a clear 400', async (_name, extra, code, param) => {
      const response = await post('/api/monitors/', {
        name: 'Bad',
        target: { type: 'url', url: target.url('/shop') },
        interval_seconds: 60,
        ...extra,
      });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error).toMatchObject({ code, param });
    });

    it("enforces the plan's monitor count with 402", async () => {
      const free = await t.tenantWithKey('free');
      for (let i = 0; i < 3; i++) {
        const response = await t.inject({
          method: 'POST',
          url: '/api/monitors/',
          token: free.token,
          payload: { name: `m${i}`, target: { type: 'url', url: target.url('/shop') } },
        });
        expect(response.statusCode, response.body).toBe(201);
        expect(response.json().interval_seconds).toBe(300);
      }
      const fourth = await t.inject({
        method: 'POST',
        url: '/api/monitors/',
        token: free.token,
        payload: { name: 'm4', target: { type: 'url', url: target.url('/shop') } },
      });
      expect(fourth.statusCode).toBe(402);
      expect(fourth.json().error).toMatchObject({ type: 'quota_error', code: 'plan_limit_reached' });
    });
  });

  describe('getMonitor · GET /api/monitors/:id/', () => {
    it("hides another tenant's monitor with 404", async () => {
      const stranger = await t.tenantWithKey('free');
      const mine = await pausable();
      expect(
        (await t.inject({ method: 'GET', url: `/api/monitors/${mine.id}/`, token: stranger.token })).statusCode,
      ).toBe(404);
    });
  });

  describe('listMonitorChecks · GET /api/monitors/:id/checks/', () => {
    it("hides another tenant's monitor's checks with 404", async () => {
      const stranger = await t.tenantWithKey('free');
      const mine = await pausable();
      expect(
        (await t.inject({ method: 'GET', url: `/api/monitors/${mine.id}/checks/`, token: stranger.token })).statusCode,
      ).toBe(404);
    });
  });
});

describe('monitor targets in production settings', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { runWorkers: false });
  });
  afterAll(() => t?.close());

  describe('createMonitor · POST /api/monitors/', () => {
    it('refuses plain http and private addresses', async () => {
      await expectOutboundUrlRules(
        t,
        '/api/monitors/',
        (url) => ({ name: 'x', target: { type: 'url', url }, interval_seconds: 60 }),
        'target.url',
      );
    });
  });
});
