import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';
import { CONFIG } from '../../helpers/gateway-app.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const dayOf = (ms: number) => new Date(Date.now() - ms).toISOString().slice(0, 10);

describe.each(backends)('overview on %s', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(backend, { runWorkers: false, allowPrivateNetworks: true });
  }, 60_000);
  afterAll(() => t?.close());

  const overview = async (token: string, headers: Record<string, string> = {}) => {
    const response = await t.inject({ method: 'GET', url: '/api/overview/', token, headers });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const create = async (token: string, url: string, payload: object) => {
    const response = await t.inject({ method: 'POST', url, token, payload });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  };
  const run = (statement: ReturnType<typeof sql>) => t.database.db.execute(statement);

  describe('getOverview · GET /api/overview/', () => {
    it('shows a new account its set-up steps and nothing in trouble', async () => {
      const fresh = await t.tenantWithKey('business');
      const body = await overview(fresh.token);
      expect(body.tenant_id).toBe(fresh.tenantId);
      expect(body.next_steps.map((step: { step: string; done: boolean }) => [step.step, step.done])).toEqual([
        ['create_api_key', true],
        ['add_container', false],
        ['add_domain', false],
        ['add_monitor', false],
      ]);
      expect(body.containers).toMatchObject({ total: 0, needs_attention: [] });
      expect(Object.values(body.containers.by_status).every((count) => count === 0)).toBe(true);
      expect(body.traffic.daily).toHaveLength(30);
      expect(body.traffic.daily.at(-1).day).toBe(dayOf(0));
      expect(body.traffic).toMatchObject({ today: 0, last_30_days: 0 });
      expect(body.monitors).toMatchObject({ total: 0, open_incidents: 0, incidents: [] });
      expect(body.monitors.uptime).toEqual({ last_24_hours: null, last_7_days: null, last_30_days: null });
      expect(body.scans).toMatchObject({ hourly_quota: 60, used_this_hour: 0, latest: [] });
      expect(body.clients).toBeNull();
      expect(body.api_meta.request_id).toBeTruthy();
    });

    it("sums the tenant's containers, traffic, uptime, incidents and scans, most urgent first", async () => {
      const shop = await t.tenantWithKey('business');
      const stranger = await t.tenantWithKey('business');
      const container = (name: string) =>
        create(shop.token, '/api/containers/', { name, region: 'eu-central', config: CONFIG });
      const [healthy, broken, parked, withDomain] = await Promise.all(
        ['healthy', 'broken', 'parked', 'with-domain'].map(container),
      );
      await run(sql`update containers set status = 'running' where id in (${healthy.id}, ${withDomain.id})`);
      await run(
        sql`update containers set status = 'failed', status_reason = 'The upstream refused.' where id = ${broken.id}`,
      );
      await run(sql`update containers set status = 'stopped' where id = ${parked.id}`);
      const pending = await create(shop.token, '/api/domains/', {
        hostname: `pending.${backend}.example`,
        container_id: withDomain.id,
      });
      const active = await create(shop.token, '/api/domains/', {
        hostname: `active.${backend}.example`,
        container_id: withDomain.id,
      });
      await run(sql`update domains set status = 'active' where id = ${active.id}`);
      await run(sql`insert into domain_certificates (domain_id, hostname, status, last_error)
        values (${active.id}, ${`active.${backend}.example`}, 'failed', 'CAA forbids the CA.')`);

      await run(sql`insert into container_usage (container_id, day, hostname, status_class, requests) values
        (${healthy.id}, ${dayOf(0)}, 'a', '2xx', 40), (${healthy.id}, ${dayOf(0)}, 'a', '5xx', 2),
        (${withDomain.id}, ${dayOf(3 * DAY)}, 'b', '2xx', 100), (${healthy.id}, ${dayOf(40 * DAY)}, 'a', '2xx', 999)`);

      const monitor = await create(shop.token, '/api/monitors/', {
        name: 'Shop',
        target: { type: 'url', url: 'https://127.0.0.1:9/' },
        interval_seconds: 60,
      });
      const checks: Array<[number, string]> = [
        [1 * HOUR, 'up'],
        [2 * HOUR, 'down'],
        [3 * DAY, 'degraded'],
        [20 * DAY, 'down'],
        [40 * DAY, 'up'],
      ];
      for (const [index, [age, result]] of checks.entries()) {
        await run(sql`insert into monitor_checks (id, monitor_id, tenant_id, checked_at, result)
          values (${`chk_ov${backend}${index}`}, ${monitor.id}, ${shop.tenantId}, ${ago(age)}::timestamptz, ${result})`);
      }
      await run(sql`insert into incidents (id, tenant_id, monitor_id, status, cause, opened_at)
        values (${`inc_ov${backend}`}, ${shop.tenantId}, ${monitor.id}, 'open', 'Connection refused', ${ago(HOUR)}::timestamptz)`);
      await run(sql`insert into scans (id, tenant_id, url, language, options, status, result, error, created_at) values
        (${`scn_ov${backend}1`}, ${shop.tenantId}, 'https://shop.example/', 'en', '{"ai_summary":false,"pagespeed":false}', 'completed', '{"trackers":[{},{},{}]}', null, ${ago(10 * 60_000)}::timestamptz),
        (${`scn_ov${backend}2`}, ${shop.tenantId}, 'https://shop.example/cart', 'en', '{"ai_summary":false,"pagespeed":false}', 'failed', null, '{"code":"interrupted","message":"x"}', ${ago(5 * 60_000)}::timestamptz),
        (${`scn_ov${backend}3`}, ${shop.tenantId}, 'https://shop.example/old', 'en', '{"ai_summary":false,"pagespeed":false}', 'completed', '{"trackers":[]}', null, ${ago(2 * HOUR)}::timestamptz)`);

      const body = await overview(shop.token);
      expect(body.containers.total).toBe(4);
      expect(body.containers.by_status).toMatchObject({ running: 2, failed: 1, stopped: 1, provisioning: 0 });
      expect(
        body.containers.needs_attention.map((item: { reason: string; hostname: string | null; detail: string }) => [
          item.reason,
          item.hostname,
          item.detail,
        ]),
      ).toEqual([
        ['container_failed', null, 'The upstream refused.'],
        ['certificate_failed', `active.${backend}.example`, 'CAA forbids the CA.'],
        ['container_stopped', null, null],
        ['domain_not_verified', `pending.${backend}.example`, null],
      ]);
      expect(body.containers.needs_attention[3]).toMatchObject({ domain_id: pending.id, container_id: withDomain.id });

      expect(body.traffic.today).toBe(42);
      expect(body.traffic.last_30_days).toBe(142);
      expect(body.traffic.daily.find((entry: { day: string }) => entry.day === dayOf(3 * DAY)).requests).toBe(100);

      expect(body.monitors).toMatchObject({ total: 1, by_status: { pending: 1, up: 0 }, open_incidents: 1 });
      expect(body.monitors.uptime).toEqual({ last_24_hours: 50, last_7_days: 66.667, last_30_days: 50 });
      expect(body.monitors.incidents).toEqual([
        expect.objectContaining({ id: `inc_ov${backend}`, monitor_name: 'Shop', status: 'open' }),
      ]);

      expect(body.scans).toMatchObject({ hourly_quota: 60, used_this_hour: 1 });
      expect(body.scans.latest.map((scan: { tracker_count: number | null }) => scan.tracker_count)).toEqual([
        null,
        3,
        0,
      ]);
      expect(body.next_steps.every((step: { done: boolean }) => step.done)).toBe(true);

      const other = await overview(stranger.token);
      expect(other.containers.total).toBe(0);
      expect(other.traffic.last_30_days).toBe(0);
      expect(other.monitors.open_incidents).toBe(0);
      expect(other.scans.latest).toEqual([]);
    });

    it('lists the clients of an agency that need attention, and a client through Tagport-Tenant', async () => {
      const agency = await t.tenantWithKey('agency');
      const client = async (name: string) =>
        (await create(agency.token, '/api/tenants/', { name })) as { id: string; name: string };
      const [calm, failing, paging] = await Promise.all(['Calm', 'Failing', 'Paging'].map(client));
      const as = (tenantId: string) => ({ 'tagport-tenant': tenantId });
      const failingContainer = await t.inject({
        method: 'POST',
        url: '/api/containers/',
        token: agency.token,
        headers: as(failing.id),
        payload: { name: 'x', region: 'eu-central', config: CONFIG },
      });
      expect(failingContainer.statusCode, failingContainer.body).toBe(201);
      await run(sql`update containers set status = 'failed' where id = ${failingContainer.json().id}`);
      const monitor = await t.inject({
        method: 'POST',
        url: '/api/monitors/',
        token: agency.token,
        headers: as(paging.id),
        payload: { name: 'Paging', target: { type: 'url', url: 'https://127.0.0.1:9/' }, interval_seconds: 300 },
      });
      expect(monitor.statusCode, monitor.body).toBe(201);
      await run(sql`insert into incidents (id, tenant_id, monitor_id, status, cause)
        values (${`inc_cl${backend}1`}, ${paging.id}, ${monitor.json().id}, 'open', 'Timeout')`);
      await run(sql`insert into incidents (id, tenant_id, monitor_id, status, cause, resolved_at)
        values (${`inc_cl${backend}2`}, ${calm.id}, ${monitor.json().id}, 'resolved', 'Timeout', now())`);

      const body = await overview(agency.token);
      expect(body.clients.total).toBe(3);
      expect(body.clients.needs_attention).toEqual([
        { id: failing.id, name: 'Failing', failed_containers: 1, open_incidents: 0 },
        { id: paging.id, name: 'Paging', failed_containers: 0, open_incidents: 1 },
      ]);

      const asClient = await overview(agency.token, as(failing.id));
      expect(asClient.tenant_id).toBe(failing.id);
      expect(asClient.containers.by_status).toMatchObject({ failed: 1, running: 0 });
      expect(asClient.clients).toBeNull();
    });

    it('needs credentials', async () => {
      const response = await t.inject({ method: 'GET', url: '/api/overview/' });
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe('missing_credentials');
    });
  });
});
