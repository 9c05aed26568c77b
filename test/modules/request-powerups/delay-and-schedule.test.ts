import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { staysWithNode } from '../../../src/gateway/native/node-only.js';
import { freeLoopbackPort } from '../../../src/lib/ports.js';
import { defaultSettings } from '../../../src/modules/containers/settings.js';
import { CONTAINER_TRANSITIONS } from '../../../src/modules/containers/worker.js';
import { DelayedRequestIntake } from '../../../src/modules/request-powerups/intake.js';
import { Scheduler } from '../../../src/modules/request-powerups/scheduler.js';
import { GatewaySender } from '../../../src/modules/request-powerups/sender.js';
import { platformRequestToken } from '../../../src/lib/secrets.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';
import { CONFIG, testGateway } from '../../helpers/gateway-app.js';

interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A tagging server on loopback that remembers every request; paths starting with /fail answer 503. */
async function startTaggingServer() {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      if (req.url?.startsWith('/fail')) return void res.writeHead(503).end('tagging server down for maintenance');
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => server.close(resolve)) };
}

const MINUTE = 60_000;

describe.each(backends)(
  'Request Delay and Schedule (%s): held and scheduled requests reach the container through the gateway',
  (backend) => {
    let t: TestApp;
    let tagging: Awaited<ReturnType<typeof startTaggingServer>>;
    let gatewayUrl: string;
    let token: string;
    let otherToken: string;
    let container: { id: string; default_hostname: string };

    const api = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, as = token) =>
      t.inject({ method, url, token: as, payload });
    const through = async (
      path: string,
      options: { method?: string; body?: string; headers?: Record<string, string> } = {},
    ) => {
      const response = await request(`${gatewayUrl}${path}`, {
        method: (options.method ?? 'GET') as 'GET',
        body: options.body,
        headers: { host: container.default_hostname, ...options.headers },
      });
      return { status: response.statusCode, headers: response.headers, body: (await response.body.json()) as any };
    };
    const delayed = async (query = '') =>
      (await api('GET', `/api/containers/${container.id}/delayed-requests/${query}`)).json().results as any[];
    const powerups = () => t.app.services.requestPowerups;

    beforeAll(async () => {
      tagging = await startTaggingServer();
      const port = await freeLoopbackPort();
      gatewayUrl = `http://127.0.0.1:${port}`;
      t = await startTestApp(backend, {
        allowPrivateNetworks: true,
        runWorkers: false,
        containerTransitionDelayMs: 0,
        gateway: testGateway({ port }),
        powerupRequests: { gatewayUrl, timeoutMs: 2000 },
      });
      await t.app.services.gateway.listen(port, '127.0.0.1');
      token = (await t.tenantWithKey('business')).token;
      otherToken = (await t.tenantWithKey('business')).token;
      const created = await api('POST', '/api/containers/', {
        name: 'Shop',
        region: 'eu-central',
        config: CONFIG,
        upstream_url: tagging.url,
        settings: { request_delay: { enabled: true } },
      });
      expect(created.statusCode, created.body).toBe(201);
      container = created.json();
      await t.app.services.jobs.runQueued(CONTAINER_TRANSITIONS);
    }, 120_000);
    afterAll(async () => {
      await t?.close();
      await tagging?.close();
    });
    beforeEach(() => {
      tagging.seen.length = 0;
    });

    it('answers 202 once stored and sends the request to /<path> with its method, body and headers when due', async () => {
      const before = Date.now();
      const held = await through('/stape/delay/5/mp/collect?measurement_id=G-ABC123', {
        method: 'POST',
        body: '{"events":[{"name":"purchase"}]}',
        headers: { 'content-type': 'application/json', cookie: '_ga=GA1.1.1', 'x-forwarded-for': '198.51.100.7' },
      });
      expect(held.status).toBe(202);
      expect(held.body.id).toMatch(/^dly_/);
      expect(new Date(held.body.due_at).getTime()).toBeGreaterThanOrEqual(before + 5 * MINUTE);
      const [listed] = await delayed();
      expect(listed).toMatchObject({
        id: held.body.id,
        method: 'POST',
        path: '/mp/collect?measurement_id=G-ABC123',
        status: 'pending',
        body_bytes: 32,
        body_start: '{"events":[{"name":"purchase"}]}',
        delay_minutes: 5,
        attempts: 0,
      });
      expect(tagging.seen).toEqual([]);

      expect(await powerups().delivery.deliverDue(new Date(before + 4 * MINUTE))).toBe(0);
      expect(tagging.seen).toEqual([]);
      expect(await powerups().delivery.deliverDue(new Date(Date.now() + 5 * MINUTE + 1000))).toBe(1);
      expect(tagging.seen).toHaveLength(1);
      const [sent] = tagging.seen;
      expect(sent).toMatchObject({ method: 'POST', path: '/mp/collect?measurement_id=G-ABC123' });
      expect(sent.body).toBe('{"events":[{"name":"purchase"}]}');
      expect(sent.headers).toMatchObject({
        'content-type': 'application/json',
        cookie: '_ga=GA1.1.1',
        'x-tagport-delayed-by': '5',
        'x-forwarded-host': container.default_hostname,
      });
      expect(String(sent.headers['x-forwarded-for'])).toMatch(/^198\.51\.100\.7, 127\.0\.0\.1/);
      const [delivered] = await delayed('?status=delivered');
      expect(delivered).toMatchObject({
        id: held.body.id,
        status: 'delivered',
        http_status: 200,
        attempts: 1,
        error: null,
      });
    });

    it('is sent by the job engine once due', async () => {
      const held = await through('/delay/1/g/collect?v=2&en=page_view');
      expect(held.status).toBe(202);
      // Time is driven by moving the request's due time into the past, as if its minute had gone by.
      await t.database.db.execute(
        sql`update delayed_requests set next_attempt_at = now() - interval '1 second' where id = ${held.body.id}`,
      );
      await t.app.services.jobs.send('delayed-requests', {});
      await t.app.services.jobs.runQueued('delayed-requests');
      expect(tagging.seen.map((seen) => `${seen.method} ${seen.path}`)).toEqual(['GET /g/collect?v=2&en=page_view']);
      expect((await delayed()).find((row) => row.id === held.body.id)?.status).toBe('delivered');
    });

    it("passes on a platform request's own headers but never its token, and drops a visitor's forged ones", async () => {
      await through('/stape/delay/1/forged', {
        headers: { 'x-tagport-schedule': 'ping', 'x-tagport-platform': 'guess' },
      });
      expect(await powerups().delivery.deliverDue(new Date(Date.now() + 2 * MINUTE))).toBe(1);
      const [delivered] = tagging.seen;
      expect(delivered.path).toBe('/forged');
      expect(delivered.headers['x-tagport-delayed-by']).toBe('1');
      expect(delivered.headers).not.toHaveProperty('x-tagport-platform');
      // The visitor's own X-Tagport-Schedule was not replayed as the platform's.
      expect(delivered.headers).not.toHaveProperty('x-tagport-schedule');
      tagging.seen.length = 0;
      const forged = await request(`${gatewayUrl}/direct`, {
        headers: { host: container.default_hostname, 'x-tagport-schedule': 'ping', 'x-tagport-delayed-by': '5' },
      });
      await forged.body.dump();
      const [direct] = tagging.seen;
      expect(direct.headers).not.toHaveProperty('x-tagport-schedule');
      expect(direct.headers).not.toHaveProperty('x-tagport-delayed-by');
    });

    it('refuses minutes outside 1–1,500 with 400 naming the delay, and stores nothing', async () => {
      const count = (await delayed()).length;
      for (const path of ['/delay/0/x', '/stape/delay/1501/x', '/delay/abc/x', '/delay/', '/stape/delay']) {
        const refused = await through(path);
        expect(refused.status, path).toBe(400);
        expect(refused.body.error.code).toBe('invalid_delay');
        expect(refused.body.error.message).toContain('minutes from 1 to 1500');
      }
      expect(await delayed()).toHaveLength(count);
      expect(tagging.seen).toEqual([]);
    });

    it('refuses a body over 64 KiB with 413', async () => {
      const refused = await through('/delay/5/x', { method: 'POST', body: 'x'.repeat(64 * 1024 + 1) });
      expect(refused.status).toBe(413);
      expect(refused.body.error.code).toBe('body_too_large');
    });

    it('answers 429 when the container already holds 10,000 pending requests', async () => {
      const db = t.database.db;
      await db.execute(sql`insert into delayed_requests (id, container_id, method, path, headers, body, delay_minutes, status, due_at, next_attempt_at)
      select 'dly_fill' || n, ${container.id}, 'GET', '/', '[]'::jsonb, ''::bytea, 60, 'pending', now() + interval '1 hour', now() + interval '1 hour'
        from generate_series(1, 10000) as n`);
      try {
        const refused = await through('/delay/5/x');
        expect(refused.status).toBe(429);
        expect(refused.body.error.code).toBe('too_many_delayed_requests');
      } finally {
        await db.execute(sql`delete from delayed_requests where id like 'dly_fill%'`);
      }
      expect((await through('/delay/5/x')).status).toBe(202);
      await db.execute(sql`delete from delayed_requests where status = 'pending'`);
    });

    it('retries a request the tagging server fails (5xx), then marks it failed with the reason, shown in the API', async () => {
      const held = await through('/delay/1/fail/collect', { method: 'POST', body: 'a=1' });
      expect(held.status).toBe(202);
      const due = new Date(held.body.due_at).getTime();
      expect(await powerups().delivery.deliverDue(new Date(due + 1000))).toBe(1);
      let [row] = await delayed('?status=pending');
      expect(row).toMatchObject({ id: held.body.id, attempts: 1, http_status: 503 });
      expect(row.error).toBe('HTTP 503 from the container: tagging server down for maintenance');
      // Not before its backoff…
      expect(await powerups().delivery.deliverDue(new Date(due + 2000))).toBe(0);
      // …then again, until the retry window (an hour after the due time) is over.
      expect(await powerups().delivery.deliverDue(new Date(due + 10 * MINUTE))).toBe(1);
      expect(await powerups().delivery.deliverDue(new Date(due + 61 * MINUTE))).toBe(1);
      [row] = await delayed('?status=failed');
      expect(row).toMatchObject({ id: held.body.id, status: 'failed', attempts: 3, http_status: 503 });
      expect(row.error).toContain('HTTP 503 from the container');
      expect(row.finished_at).not.toBeNull();
      expect(tagging.seen.map((seen) => seen.path)).toEqual(['/fail/collect', '/fail/collect', '/fail/collect']);
      expect(await powerups().delivery.deliverDue(new Date(due + 3 * 60 * MINUTE))).toBe(0);
    });

    it('removes delivered requests after 3 days and failed ones after 7', async () => {
      const now = Date.now();
      expect((await delayed('?status=delivered')).length).toBeGreaterThan(0);
      await powerups().prune(new Date(now + 4 * 1440 * MINUTE));
      expect(await delayed('?status=delivered')).toEqual([]);
      expect((await delayed('?status=failed')).length).toBe(1);
      await powerups().prune(new Date(now + 8 * 1440 * MINUTE));
      expect(await delayed('?status=failed')).toEqual([]);
    });

    it('pages the list with cursors and hides it from other tenants (404)', async () => {
      for (const minutes of [10, 11, 12]) expect((await through(`/delay/${minutes}/page`)).status).toBe(202);
      const first = (await api('GET', `/api/containers/${container.id}/delayed-requests/?page_size=2`)).json();
      expect(first.results.map((row: any) => row.delay_minutes)).toEqual([12, 11]);
      const next = await api(
        'GET',
        `/api/containers/${container.id}/delayed-requests/?page_size=2&starting_after=${first.results[1].id}`,
      );
      expect(next.json().results.map((row: any) => row.delay_minutes)).toEqual([10]);
      for (const list of ['delayed-requests', 'schedule-runs']) {
        const hidden = await api('GET', `/api/containers/${container.id}/${list}/`, undefined, otherToken);
        expect(hidden.statusCode, list).toBe(404);
      }
    });

    it('proxies /delay/ paths as they come when Request Delay is off, and keeps such containers with Node under nginx', async () => {
      expect(
        (await api('PATCH', `/api/containers/${container.id}/`, { settings: { request_delay: { enabled: false } } }))
          .statusCode,
      ).toBe(200);
      const response = await request(`${gatewayUrl}/delay/5/x`, { headers: { host: container.default_hostname } });
      await response.body.text();
      expect(response.statusCode).toBe(200);
      expect(tagging.seen.map((seen) => seen.path).filter((path) => path !== '/healthz')).toEqual(['/delay/5/x']);
      expect(
        (await api('PATCH', `/api/containers/${container.id}/`, { settings: { request_delay: { enabled: true } } }))
          .statusCode,
      ).toBe(200);
      const settings = defaultSettings('k3v9xq2m');
      expect(staysWithNode(settings)).toBe(false);
      expect(staysWithNode({ ...settings, request_delay: { enabled: true } })).toBe(true);
    });

    it('refuses a schedule whose cron expression is not five valid fields, naming the field', async () => {
      const request = (cron: string) => ({ name: 'refresh', cron, method: 'GET', path: '/feeds', body: null });
      for (const cron of ['61 * * * *', '0 0 * * * *', '@daily nope']) {
        const refused = await api('PATCH', `/api/containers/${container.id}/`, {
          settings: { schedule: { requests: [request('0 6 * * *'), request(cron)] } },
        });
        expect(refused.statusCode, cron).toBe(400);
        expect(refused.json().error).toMatchObject({
          code: 'invalid_cron',
          param: 'settings.schedule.requests[1].cron',
        });
      }
    });

    it('runs a schedule once per due time with two workers, with X-Tagport-Schedule, and lists its runs', async () => {
      const schedule = {
        name: 'refresh',
        cron: '0 10 1 1 *',
        method: 'POST',
        path: '/feeds/refresh?source=erp',
        body: '{"full":true}',
      };
      const patched = await api('PATCH', `/api/containers/${container.id}/`, {
        settings: { schedule: { requests: [schedule] } },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      const second = new Scheduler({
        database: t.database,
        sender: new GatewaySender({ gatewayUrl, timeoutMs: 2000, platformToken: platformRequestToken(t.app.config) }),
      });
      const at = new Date('2030-01-01T10:00:20Z');
      const sent = await Promise.all([
        powerups().scheduler.runDue(at),
        second.runDue(at),
        powerups().scheduler.runDue(at),
      ]);
      expect(sent.reduce((sum, count) => sum + count, 0)).toBe(1);
      expect(await second.runDue(new Date('2030-01-01T10:01:30Z'))).toBe(0);
      expect(await second.runDue(new Date('2030-01-02T10:00:00Z'))).toBe(0);
      expect(tagging.seen).toHaveLength(1);
      expect(tagging.seen[0]).toMatchObject({
        method: 'POST',
        path: '/feeds/refresh?source=erp',
        body: '{"full":true}',
      });
      expect(tagging.seen[0].headers).toMatchObject({
        'x-tagport-schedule': 'refresh',
        'content-type': 'application/json',
      });

      const runs = (await api('GET', `/api/containers/${container.id}/schedule-runs/`)).json();
      expect(runs.results).toHaveLength(1);
      expect(runs.results[0]).toMatchObject({
        schedule: 'refresh',
        due_at: '2030-01-01T10:00:00.000Z',
        status: 'succeeded',
        http_status: 200,
        error: null,
      });
      expect(runs.results[0].duration_ms).toBeGreaterThanOrEqual(0);
    });

    it('records a failed run with the reason, keeps the newest 20 runs, and runs nothing for a stopped container', async () => {
      const failing = { name: 'sync', cron: '* * * * *', method: 'GET', path: '/fail/sync', body: null };
      await api('PATCH', `/api/containers/${container.id}/`, { settings: { schedule: { requests: [failing] } } });
      const start = new Date('2031-03-01T00:00:10Z').getTime();
      for (let minute = 0; minute < 22; minute++) await powerups().scheduler.runDue(new Date(start + minute * MINUTE));
      const runs = (
        await api('GET', `/api/containers/${container.id}/schedule-runs/?schedule=sync&page_size=100`)
      ).json();
      expect(runs.results).toHaveLength(20);
      expect(runs.results[0]).toMatchObject({ status: 'failed', http_status: 503, due_at: '2031-03-01T00:21:00.000Z' });
      expect(runs.results[0].error).toContain('HTTP 503 from the container');

      expect((await api('POST', `/api/containers/${container.id}/stop/`)).statusCode).toBe(202);
      await t.app.services.jobs.runQueued(CONTAINER_TRANSITIONS);
      tagging.seen.length = 0;
      expect(await powerups().scheduler.runDue(new Date(start + 30 * MINUTE))).toBe(0);
      expect(tagging.seen).toEqual([]);
    });

    it('fails a run its worker abandoned (still running after 10 minutes)', async () => {
      await t.database.db.execute(sql`insert into schedule_runs (id, container_id, schedule_name, due_at, status, started_at)
      values ('run_abandoned', ${container.id}, 'lost', now() - interval '20 minutes', 'running', now() - interval '20 minutes')`);
      await powerups().prune();
      const runs = (await api('GET', `/api/containers/${container.id}/schedule-runs/?schedule=lost`)).json().results;
      expect(runs).toMatchObject([
        { id: 'run_abandoned', status: 'failed', error: expect.stringContaining('stopped') },
      ]);
    });
  },
);

describe('with the TLS listener up, the platform’s own requests on the plain port are not redirected to https', () => {
  let t: TestApp;
  let tagging: Awaited<ReturnType<typeof startTaggingServer>>;
  let gatewayUrl: string;
  let container: { id: string; default_hostname: string };

  beforeAll(async () => {
    tagging = await startTaggingServer();
    const port = await freeLoopbackPort();
    gatewayUrl = `http://127.0.0.1:${port}`;
    t = await startTestApp('pglite', {
      allowPrivateNetworks: true,
      runWorkers: false,
      containerTransitionDelayMs: 0,
      gateway: testGateway({ port, tlsPort: 0 }),
      powerupRequests: { gatewayUrl, timeoutMs: 2000 },
    });
    await t.app.services.gateway.listen(port, '127.0.0.1');
    await t.app.services.gatewayTls!.listen(0, '127.0.0.1');
    const { token } = await t.tenantWithKey('business');
    const created = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token,
      payload: {
        name: 'Shop',
        region: 'eu-central',
        config: CONFIG,
        upstream_url: tagging.url,
        settings: {
          request_delay: { enabled: true },
          schedule: { requests: [{ name: 'ping', cron: '0 10 1 1 *', method: 'GET', path: '/ping', body: null }] },
        },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    container = created.json();
    await t.app.services.jobs.runQueued(CONTAINER_TRANSITIONS);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await tagging?.close();
  });

  it('redirects a visitor but delivers delayed and scheduled requests', async () => {
    const visitor = await request(`${gatewayUrl}/delay/5/x`, { headers: { host: container.default_hostname } });
    await visitor.body.dump();
    expect(visitor.statusCode).toBe(308);
    // A visitor posing as the platform, without its token or with a wrong one, is redirected all the same.
    for (const forged of [
      { 'x-tagport-schedule': 'ping' },
      { 'x-tagport-delayed-by': '5', 'x-tagport-platform': 'guess' },
    ]) {
      const posing = await request(`${gatewayUrl}/ping`, { headers: { host: container.default_hostname, ...forged } });
      await posing.body.dump();
      expect(posing.statusCode).toBe(308);
    }

    const held = await new DelayedRequestIntake(t.database).hold({
      containerId: container.id,
      method: 'GET',
      path: '/later',
      headers: [],
      body: Buffer.alloc(0),
      minutes: 1,
    });
    expect(held).not.toBe('full');
    const powerups = t.app.services.requestPowerups;
    expect(await powerups.delivery.deliverDue(new Date(Date.now() + 2 * MINUTE))).toBe(1);
    expect(await powerups.scheduler.runDue(new Date('2030-01-01T10:00:05Z'))).toBe(1);
    expect(tagging.seen.map((seen) => seen.path).filter((path) => path !== '/healthz')).toEqual(['/later', '/ping']);
  });
});

describe('with the database down, a delayed request is not acknowledged', () => {
  let t: TestApp;
  let tagging: Awaited<ReturnType<typeof startTaggingServer>>;

  beforeAll(async () => {
    tagging = await startTaggingServer();
    t = await startTestApp('pglite', {
      allowPrivateNetworks: true,
      runWorkers: false,
      containerTransitionDelayMs: 0,
      gateway: testGateway(),
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await tagging?.close();
  });

  it('answers 503 delay_unavailable with Retry-After', async () => {
    const gatewayUrl = await t.app.services.gateway.listen(0, '127.0.0.1');
    const { token } = await t.tenantWithKey('business');
    const created = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token,
      payload: {
        name: 'Shop',
        region: 'eu-central',
        config: CONFIG,
        upstream_url: tagging.url,
        settings: { request_delay: { enabled: true } },
      },
    });
    const container = created.json();
    await t.app.services.jobs.runQueued(CONTAINER_TRANSITIONS);
    const send = () => request(`${gatewayUrl}/delay/5/x`, { headers: { host: container.default_hostname } });
    const stored = await send(); // the route is cached from here on
    await stored.body.dump();
    expect(stored.statusCode).toBe(202);
    await t.database.close();
    const refused = await send();
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('30');
    expect(((await refused.body.json()) as any).error.code).toBe('delay_unavailable');
  });
});
