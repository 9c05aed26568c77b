import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { startDns } from '../helpers/dns.js';

const CONFIG = Buffer.from('id=GTM-ABC1234&env=1&auth=AbCdEf123456').toString('base64');

async function startUpstream() {
  const seen: Array<{ path: string; host?: string; forwardedHost?: string }> = [];
  const server = http.createServer((req, res) => {
    seen.push({
      path: req.url ?? '',
      host: req.headers.host,
      forwardedHost: req.headers['x-forwarded-host'] as string,
    });
    if (req.url?.startsWith('/missing')) return void res.writeHead(404).end('no');
    res.writeHead(200, { 'content-type': 'text/plain', 'x-upstream': 'sgtm' }).end(`tagging server saw ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe.each(backends)('containers, gateway and domains on %s', (backend) => {
  let t: TestApp;
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let dns: Awaited<ReturnType<typeof startDns>>;
  let gatewayUrl: string;
  let tenant: { tenantId: string; token: string; keyId: string };

  beforeAll(async () => {
    upstream = await startUpstream();
    dns = await startDns();
    t = await startTestApp(backend, {
      allowPrivateNetworks: true,
      containerTransitionDelayMs: 20,
      gateway: {
        port: 0,
        baseDomain: 'containers.tagport.test',
        publicIps: ['203.0.113.10'],
        flushMs: 60_000,
        logSampleRate: 1,
        upstreamTimeoutMs: 2000,
      },
      dns: { resolvers: [`127.0.0.1:${dns.port}`], timeoutMs: 500, recheckIntervalMs: 60_000 },
    });
    gatewayUrl = await t.app.services.gateway.listen(0, '127.0.0.1');
    tenant = await t.tenantWithKey('business');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await upstream?.close();
    dns?.close();
  });

  const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.inject({ method, url, token: tenant.token, payload });
  const settle = () => t.app.services.containerWorker.idle();
  const through = async (host: string, path = '/g/collect?v=2') => {
    const response = await request(`${gatewayUrl}${path}`, { headers: { host } });
    return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
  };

  it('walks the documented state machine, records every transition as an event, and refuses invalid transitions with the allowed ones', async () => {
    const created = await api('POST', '/api/containers/', {
      name: 'Shop sGTM',
      region: 'eu-central',
      config: CONFIG,
      upstream_url: upstream.url,
    });
    expect(created.statusCode, created.body).toBe(201);
    const container = created.json();
    expect(container).toMatchObject({
      status: 'provisioning',
      gtm_container_id: 'GTM-ABC1234',
      region: 'eu-central',
      default_hostname: `${container.id.slice(4)}.containers.tagport.test`,
    });
    await settle();
    expect((await api('GET', `/api/containers/${container.id}/`)).json()).toMatchObject({
      status: 'running',
      allowed_actions: ['stop', 'restart', 'delete'],
    });

    const stop = await api('POST', `/api/containers/${container.id}/stop/`);
    expect(stop.statusCode).toBe(202);
    expect(stop.json().status).toBe('stopping');
    await settle();
    const again = await api('POST', `/api/containers/${container.id}/stop/`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({
      code: 'invalid_transition',
      details: { status: 'stopped', allowed_actions: ['start', 'delete'] },
    });

    expect((await api('POST', `/api/containers/${container.id}/start/`)).json().status).toBe('starting');
    await settle();
    expect((await api('POST', `/api/containers/${container.id}/restart/`)).json().status).toBe('stopping');
    await settle();
    expect((await api('GET', `/api/containers/${container.id}/`)).json().status).toBe('running');

    const [first, second] = await Promise.all([
      api('POST', `/api/containers/${container.id}/stop/`),
      api('POST', `/api/containers/${container.id}/stop/`),
    ]);
    expect([first.statusCode, second.statusCode].sort()).toEqual([202, 409]);
    await settle();

    const transitions = (await api('GET', `/api/events/?object_id=${container.id}&page_size=100`))
      .json()
      .results.reverse()
      .map((event: { data: { to: string } }) => event.data.to);
    expect(transitions).toEqual([
      'provisioning',
      'running',
      'stopping',
      'stopped',
      'starting',
      'running',
      'stopping',
      'stopped',
      'starting',
      'running',
      'stopping',
      'stopped',
    ]);

    expect((await api('DELETE', `/api/containers/${container.id}/`)).json().status).toBe('deleting');
    await settle();
    expect((await api('GET', `/api/containers/${container.id}/`)).json().status).toBe('deleted');
    expect((await api('GET', '/api/containers/')).json().results.map((c: { id: string }) => c.id)).not.toContain(
      container.id,
    );
    expect((await api('POST', `/api/containers/${container.id}/start/`)).statusCode).toBe(409);
  });

  it('proxies real HTTP through the gateway by Host, refuses stopped containers, and meters and samples every request', async () => {
    const container = (
      await api('POST', '/api/containers/', {
        name: 'Gateway test',
        region: 'us-east',
        config: CONFIG,
        upstream_url: upstream.url,
      })
    ).json();
    await settle();
    const host = container.default_hostname;
    const ok = await through(host, '/g/collect?v=2&tid=G-TEST');
    expect(ok).toMatchObject({ status: 200, body: 'tagging server saw /g/collect?v=2&tid=G-TEST' });
    expect(ok.headers['x-upstream']).toBe('sgtm');
    expect(upstream.seen.at(-1)).toMatchObject({ forwardedHost: host });
    expect((await through(host, '/missing')).status).toBe(404);
    expect((await through(`${host.toUpperCase()}.`, '/x')).status).toBe(200);
    expect((await through('unknown.example.test')).status).toBe(404);
    expect((await request(`${gatewayUrl}/healthz`)).statusCode).toBe(200);

    await api('POST', `/api/containers/${container.id}/stop/`);
    await settle();
    const refused = await through(host);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body).error.code).toBe('container_not_running');

    const usage = (await api('GET', `/api/containers/${container.id}/usage/`)).json();
    expect(usage.total_requests).toBe(4);
    expect(usage.by_status_class).toEqual({ '2xx': 2, '4xx': 1, '5xx': 1 });
    expect(usage.by_hostname).toMatchObject([{ hostname: host, requests: 4 }]);
    expect(usage.days).toMatchObject([{ day: new Date().toISOString().slice(0, 10), requests: 4 }]);
    const logs = (await api('GET', `/api/containers/${container.id}/logs/`)).json();
    expect(logs.count).toBe(4);
    expect(logs.results.map((log: { status_code: number }) => log.status_code).sort()).toEqual([200, 200, 404, 503]);
    await api('DELETE', `/api/containers/${container.id}/`);
    await settle();
  });

  it('verifies a custom domain with real DNS lookups, reports each failure reason, and routes it once active', async () => {
    const container = (
      await api('POST', '/api/containers/', {
        name: 'Domain test',
        region: 'eu-west',
        config: CONFIG,
        upstream_url: upstream.url,
      })
    ).json();
    await settle();
    const created = await api('POST', '/api/domains/', {
      hostname: 'Daten.Müller-Shop.Example.',
      container_id: container.id,
    });
    expect(created.statusCode, created.body).toBe(201);
    const domain = created.json();
    expect(domain.hostname).toBe('daten.xn--mller-shop-9db.example');
    expect(domain.status).toBe('pending_verification');
    const txt = domain.dns_records.find((record: { type: string }) => record.type === 'TXT');
    expect(domain.dns_records).toContainEqual({
      type: 'CNAME',
      name: domain.hostname,
      value: container.default_hostname,
      purpose: 'routing',
    });
    expect(
      domain.dns_records.some(
        (record: { type: string; value: string }) => record.type === 'A' && record.value === '203.0.113.10',
      ),
    ).toBe(true);

    const verify = async () => (await api('POST', `/api/domains/${domain.id}/verify/`)).json();
    expect(await verify()).toMatchObject({ status: 'failed', failure_reason: 'nxdomain' });
    dns.records.set(domain.hostname, [{ type: 'CNAME', value: 'elsewhere.example' }]);
    expect(await verify()).toMatchObject({ status: 'failed', failure_reason: 'wrong_target' });
    dns.records.set(domain.hostname, [{ type: 'CNAME', value: container.default_hostname }]);
    expect(await verify()).toMatchObject({ status: 'failed', failure_reason: 'missing_txt' });
    expect((await through(domain.hostname)).status).toBe(404);

    dns.records.set(txt.name, [{ type: 'TXT', value: txt.value }]);
    await t.database.db.execute(
      `update domains set last_checked_at = now() - interval '2 hours' where id = '${domain.id}'` as never,
    );
    expect(await t.app.services.domains.recheckDue()).toBeGreaterThanOrEqual(1);
    expect((await api('GET', `/api/domains/${domain.id}/`)).json()).toMatchObject({
      status: 'active',
      failure_reason: null,
    });
    expect((await through(domain.hostname, '/gtm.js?id=GTM-ABC1234')).body).toBe(
      'tagging server saw /gtm.js?id=GTM-ABC1234',
    );

    const events = (await api('GET', `/api/events/?object_id=${domain.id}`))
      .json()
      .results.map((event: { type: string }) => event.type);
    expect(events).toEqual(['domain.verified', 'domain.failed']);

    const duplicate = await api('POST', '/api/domains/', {
      hostname: 'DATEN.xn--mller-shop-9db.example',
      container_id: container.id,
    });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().error.code).toBe('hostname_taken');
    const other = await t.tenantWithKey('business');
    const stolen = await t.inject({ method: 'GET', url: `/api/domains/${domain.id}/`, token: other.token });
    expect(stolen.statusCode).toBe(404);

    await api('DELETE', `/api/domains/${domain.id}/`);
    expect((await through(domain.hostname)).status).toBe(404);
  });

  it.each([
    ['an unknown region', { region: 'mars-1' }, 'region', 'invalid_parameter'],
    ['a config that is not base64', { config: 'not base64 at all!' }, 'config', 'invalid_config'],
    [
      'a config without a GTM id',
      { config: Buffer.from('id=UA-1&env=1&auth=abcdefgh').toString('base64') },
      'config',
      'invalid_config',
    ],
    ['an empty name', { name: ' ' }, 'name', 'invalid_parameter'],
    ['an unknown field', { zone: 'x' }, 'zone', 'unknown_parameter'],
  ])('refuses %s', async (_name, change, param, code) => {
    const response = await api('POST', '/api/containers/', {
      name: 'Bad',
      region: 'eu-central',
      config: CONFIG,
      ...change,
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error).toMatchObject({ param, code });
  });

  it.each([
    ['not a hostname', 'param'],
    ['localhost', 'single label'],
    ['x.containers.tagport.test', 'reserved'],
    ['10.0.0.1', 'an ip'],
  ])('refuses the hostname %s', async (hostname) => {
    const container = (await api('GET', '/api/containers/')).json().results[0];
    const response = await api('POST', '/api/domains/', { hostname, container_id: container.id });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.param).toBe('hostname');
  });

  it('enforces the plan container limit with 402', async () => {
    const free = await t.tenantWithKey('free');
    const create = () =>
      t.inject({
        method: 'POST',
        url: '/api/containers/',
        token: free.token,
        payload: { name: 'One', region: 'eu-central', config: CONFIG },
      });
    expect((await create()).statusCode).toBe(201);
    const second = await create();
    expect(second.statusCode).toBe(402);
    expect(second.json().error).toMatchObject({ type: 'quota_error', code: 'plan_limit_reached' });
    await settle();
  });
});

describe('container upstreams in production settings', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { runWorkers: false });
  });
  afterAll(() => t?.close());

  it('refuses plain http and private upstream addresses', async () => {
    const tenant = await t.tenantWithKey('business');
    for (const [upstream_url, code] of [
      ['http://tagging.example.com', 'https_required'],
      ['https://127.0.0.1', 'upstream_not_allowed'],
      ['https://169.254.169.254/latest', 'upstream_not_allowed'],
      ['https://10.1.1.1', 'upstream_not_allowed'],
    ]) {
      const response = await t.inject({
        method: 'POST',
        url: '/api/containers/',
        token: tenant.token,
        payload: { name: 'x', region: 'eu-central', config: CONFIG, upstream_url },
      });
      expect(response.statusCode, upstream_url).toBe(400);
      expect(response.json().error).toMatchObject({ code, param: 'upstream_url' });
    }
  });
});
