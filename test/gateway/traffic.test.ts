import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { startAppWithGateway } from '../helpers/gateway-app.js';
import { backends } from '../helpers/database.js';
import { newId } from '../../src/lib/ids.js';
import { eq, sql } from 'drizzle-orm';
import { rowsOf } from '../../src/db/rows.js';
import { containers, domains } from '../../src/db/schema.js';
import {
  ContainerTraffic,
  type GatewayRoute,
  type RoutesCursor,
  type RoutesPage,
} from '../../src/modules/containers/traffic.js';
import { containersWithLogsBeyond } from '../../src/modules/containers/queries.js';

const CONFIG = Buffer.from('id=GTM-ABC1234&env=1&auth=AbCdEf123456').toString('base64');

describe.each(backends)('gateway traffic records on %s', (backend) => {
  let t: TestApp;
  let upstream: http.Server;
  let gatewayUrl: string;
  let token: string;
  const client = new Agent({ connections: 10 });
  const upstreamOrigin = () => `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(req.url?.includes('missing') ? 404 : 200).end('ok'));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    ({ t, gatewayUrl } = await startAppWithGateway(backend));
    token = (await t.tenantWithKey('business')).token;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await client.close();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  async function runningContainer() {
    const created = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token,
      payload: {
        name: 'Traffic',
        region: 'eu-central',
        config: CONFIG,
        upstream_url: `${upstreamOrigin()}/`,
      },
    });
    await t.app.services.containerWorker.idle();
    return created.json() as { id: string; default_hostname: string };
  }

  async function send(host: string, count: number, path = (i: number) => `/g/collect?n=${i}`) {
    for (let start = 0; start < count; start += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, count - start) }, async (_, offset) => {
          const response = await request(`${gatewayUrl}${path(start + offset)}`, {
            headers: { host },
            dispatcher: client,
          });
          await response.body.dump();
        }),
      );
  }

  it('keeps the newest 1000 sampled logs of a container after every flush', async () => {
    const container = await runningContainer();
    await send(container.default_hostname, 5, () => '/first');
    await t.app.services.gateway.flush();
    await send(container.default_hostname, 1000);
    await t.app.services.gateway.flush();
    const logs = await t.inject({
      method: 'GET',
      url: `/api/containers/${container.id}/logs/?limit=100`,
      token,
    });
    expect(logs.json().count).toBe(1000);
    expect(logs.json().results.map((log: { path: string }) => log.path)).not.toContain('/first');
  }, 60_000);

  it('trims a backlog longer than one delete statement down to the newest logs', async () => {
    const container = await runningContainer();
    const traffic = new ContainerTraffic({ database: t.app.database });
    const at = Date.now();
    const logs = Array.from({ length: 620 }, (_, i) => ({
      id: newId('requestLog'),
      containerId: container.id,
      at: new Date(at + i),
      hostname: container.default_hostname,
      method: 'GET',
      path: `/g/collect?n=${i}`,
      statusCode: 200,
      durationMs: 1,
      upstream: null,
      upstreamMs: null,
    }));
    await traffic.record([], logs);
    await traffic.trimLogs([container.id], 10);
    const kept = await t.inject({ method: 'GET', url: `/api/containers/${container.id}/logs/?limit=100`, token });
    expect(kept.json().count).toBe(10);
    expect(
      kept
        .json()
        .results.map((log: { path: string }) => log.path)
        .sort(),
    ).toEqual(
      logs
        .slice(-10)
        .map((log) => log.path)
        .sort(),
    );
  });

  it("writes a flush of 10,000 hostnames' counts whole (more values than a statement may carry one by one), adding them up", async () => {
    const traffic = new ContainerTraffic({ database: t.app.database });
    const containerId = newId('container');
    const usage = Array.from({ length: 10_000 }, (_, i) => ({
      containerId,
      day: '2026-11-29',
      hostname: `h${i}.fleet.example`,
      statusClass: '2xx',
      requests: 2,
      requestBytes: 10,
      responseBytes: 3_000_000_000,
    }));
    await traffic.record(usage, []);
    await traffic.record(usage.slice(0, 3), []);
    const runtime = Array.from({ length: 10_000 }, (_, i) => ({
      containerId: `${containerId}_${i}`,
      day: '2026-11-29',
      hitsReceived: 5,
      ga4Forwarded: 4,
      metaForwarded: 1,
      forwardsFailed: 0,
      hitsRefused: 0,
      botsDropped: 0,
      cookiesRestored: 1,
    }));
    await traffic.recordRuntime(runtime);
    await traffic.recordRuntime(runtime.slice(0, 1));
    const [counted] = rowsOf<{ rows: number; requests: number; response_bytes: string }>(
      await t.app.database.db.execute(sql`select count(*)::int as rows, sum(requests)::int as requests,
        sum(response_bytes)::text as response_bytes from container_usage where container_id = ${containerId}`),
    );
    expect(counted).toEqual({ rows: 10_000, requests: 20_006, response_bytes: String(3_000_000_000 * 10_003) });
    const [hits] = rowsOf<{ rows: number; hits: number; first: number }>(
      await t.app.database.db.execute(sql`select count(*)::int as rows, sum(hits_received)::int as hits,
        max(hits_received)::int as first from container_runtime_usage where container_id like ${`${containerId}_%`}`),
    );
    expect(hits).toEqual({ rows: 10_000, hits: 50_005, first: 10 });
  });

  it('trims, of the containers a flush touched, only those beyond the logs kept, found in one statement', async () => {
    const traffic = new ContainerTraffic({ database: t.app.database });
    const [none, few, exactly, beyond] = [
      await runningContainer(),
      await runningContainer(),
      await runningContainer(),
      await runningContainer(),
    ];
    const logsOf = (containerId: string, count: number) =>
      Array.from({ length: count }, (_, i) => ({
        id: newId('requestLog'),
        containerId,
        at: new Date(Date.now() + i),
        hostname: 'h.example',
        method: 'GET',
        path: `/n${i}`,
        statusCode: 200,
        durationMs: 1,
        upstream: null,
        upstreamMs: null,
      }));
    await traffic.record([], [...logsOf(few.id, 3), ...logsOf(exactly.id, 8), ...logsOf(beyond.id, 9)]);
    const ids = [none.id, few.id, exactly.id, beyond.id];
    expect(await containersWithLogsBeyond(t.app.database.db, ids, 8)).toEqual([beyond.id]);
    await traffic.trimLogs(ids, 8);
    const counted = async (id: string) =>
      (await t.inject({ method: 'GET', url: `/api/containers/${id}/logs/?limit=100`, token })).json().count;
    expect(await Promise.all(ids.map(counted))).toEqual([0, 3, 8, 8]);
    expect(await containersWithLogsBeyond(t.app.database.db, [], 8)).toEqual([]);
  });

  it("pages through every hostname's route for a gateway to warm: default hostnames and active custom domains", async () => {
    const [kept, withDomains, removed] = [await runningContainer(), await runningContainer(), await runningContainer()];
    await t.inject({ method: 'DELETE', url: `/api/containers/${removed.id}/`, token });
    await t.app.services.containerWorker.idle();
    const { tenantId } = (await t.app.database.db.select().from(containers).where(eq(containers.id, kept.id)))[0];
    const domain = (hostname: string, status: 'active' | 'pending_verification', deletedAt: Date | null = null) => ({
      id: newId('domain'),
      tenantId,
      containerId: withDomains.id,
      hostname,
      status,
      verificationToken: 'token',
      deletedAt,
    });
    await t.app.database.db
      .insert(domains)
      .values([
        domain('warm-active.test', 'active'),
        domain('warm-pending.test', 'pending_verification'),
        domain('warm-deleted.test', 'active', new Date()),
      ]);

    const traffic = new ContainerTraffic({ database: t.app.database });
    const seen = new Map<string, GatewayRoute>();
    let cursor: RoutesCursor | null = null;
    let pages = 0;
    do {
      const page: RoutesPage = await traffic.routesPage(cursor, 2);
      for (const { hostname, route } of page.routes) seen.set(hostname, route);
      cursor = page.next;
      pages++;
    } while (cursor && pages < 100);
    expect(seen.get(kept.default_hostname)?.containerId).toBe(kept.id);
    expect(seen.get(withDomains.default_hostname)?.containerId).toBe(withDomains.id);
    expect(seen.get('warm-active.test')?.containerId).toBe(withDomains.id);
    for (const hostname of ['warm-pending.test', 'warm-deleted.test', removed.default_hostname])
      expect(seen.has(hostname)).toBe(false);
    // Each route is the one a request's own lookup finds.
    for (const hostname of ['warm-active.test', kept.default_hostname])
      expect(seen.get(hostname)).toEqual(await traffic.route(hostname));
  });

  const api = (url: string) => t.inject({ method: 'GET', url, token });

  it('meters request and response body bytes per day, hostname and status class', async () => {
    const container = await runningContainer();
    const host = container.default_hostname;
    const post = async (body: string | Readable) => {
      const response = await request(`${gatewayUrl}/g/collect`, { method: 'POST', headers: { host }, body });
      await response.body.dump();
    };
    await send(host, 1);
    await post('x'.repeat(100));
    await post(Readable.from([Buffer.alloc(30), Buffer.alloc(20)])); // chunked: no Content-Length
    await send(host, 1, () => '/missing');
    const usage = (await api(`/api/containers/${container.id}/usage/`)).json();
    const day = new Date().toISOString().slice(0, 10);
    expect(usage.rows).toEqual([
      { day, hostname: host, status_class: '2xx', requests: 3, request_bytes: 150, response_bytes: 6 },
      { day, hostname: host, status_class: '4xx', requests: 1, request_bytes: 0, response_bytes: 2 },
    ]);
    expect(usage).toMatchObject({ total_requests: 4, total_request_bytes: 150, total_response_bytes: 8 });
    expect(usage.days).toEqual([{ day, requests: 4, request_bytes: 150, response_bytes: 8 }]);
    expect(usage.by_hostname).toEqual([{ hostname: host, requests: 4, request_bytes: 150, response_bytes: 8 }]);
  });

  describe('listContainerLogs · GET /api/containers/:id/logs/', () => {
    let container: { id: string; default_hostname: string };
    const paths = async (query: string) => {
      const response = await api(`/api/containers/${container.id}/logs/?${query}`);
      expect(response.statusCode, response.body).toBe(200);
      return (response.json().results as Array<{ path: string }>).map((log) => log.path).sort();
    };

    beforeAll(async () => {
      container = await runningContainer();
      const targets = ['/g/collect?v=1', '/g/collect?v=2', '/missing', '/other', '/g%25x'];
      await send(container.default_hostname, targets.length, (i) => targets[i]);
    });

    it('names the upstream that answered and how long it took', async () => {
      const [log] = (await api(`/api/containers/${container.id}/logs/?path_prefix=/other`)).json().results;
      expect(log).toMatchObject({ path: '/other', status_code: 200, upstream: upstreamOrigin() });
      expect(log.upstream_ms).toBeGreaterThanOrEqual(0);
      expect(log.upstream_ms).toBeLessThanOrEqual(log.duration_ms);
    });

    it('filters by status class', async () => {
      expect(await paths('status_class=4xx')).toEqual(['/missing']);
      expect(await paths('status_class=5xx')).toEqual([]);
    });

    it('filters by path prefix, taking % and _ literally', async () => {
      expect(await paths('path_prefix=/g/collect')).toEqual(['/g/collect?v=1', '/g/collect?v=2']);
      expect(await paths('path_prefix=/g%25')).toEqual(['/g%25x']);
      expect(await paths('path_prefix=/g_')).toEqual([]);
    });

    it('filters by time', async () => {
      const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
      const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
      expect(await paths(`from=${hourAgo}&to=${inAnHour}`)).toHaveLength(5);
      expect(await paths(`from=${inAnHour}`)).toEqual([]);
      expect(await paths(`to=${hourAgo}`)).toEqual([]);
    });

    it('answers 400 for a reversed period and for an unknown status class', async () => {
      const reversed = await api(
        `/api/containers/${container.id}/logs/?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z`,
      );
      expect(reversed.statusCode).toBe(400);
      expect(reversed.json().error).toMatchObject({ code: 'period_reversed', param: 'from' });
      expect((await api(`/api/containers/${container.id}/logs/?status_class=6xx`)).statusCode).toBe(400);
    });

    it('logs no upstream for answers the gateway gave itself', async () => {
      const stopped = await runningContainer();
      await t.inject({ method: 'POST', url: `/api/containers/${stopped.id}/stop/`, token });
      await t.app.services.containerWorker.idle();
      await send(stopped.default_hostname, 1);
      const [log] = (await api(`/api/containers/${stopped.id}/logs/`)).json().results;
      expect(log).toMatchObject({ status_code: 503, upstream: null, upstream_ms: null });
    });
  });
});
