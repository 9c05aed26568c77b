import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';
import { CONFIG, type GatewayApp, startGatewayApp } from '../../helpers/gateway-app.js';

describe.each(backends)('containers and the gateway on %s', (backend) => {
  let g: GatewayApp;
  beforeAll(async () => {
    g = await startGatewayApp(backend);
  }, 60_000);
  afterAll(() => g?.close());

  /** A container the worker has brought to running. */
  async function runningContainer(name = 'Shop sGTM', region = 'eu-central') {
    const created = await g.api('POST', '/api/containers/', {
      name,
      region,
      config: CONFIG,
      upstream_url: g.upstream.url,
    });
    expect(created.statusCode, created.body).toBe(201);
    await g.settle();
    return created.json() as { id: string; default_hostname: string };
  }

  async function stoppedContainer() {
    const container = await runningContainer();
    await g.api('POST', `/api/containers/${container.id}/stop/`);
    await g.settle();
    return container;
  }

  describe('createContainer · POST /api/containers/', () => {
    it('creates a container in provisioning; the worker brings it to running', async () => {
      const created = await g.api('POST', '/api/containers/', {
        name: 'Shop sGTM',
        region: 'eu-central',
        config: CONFIG,
        upstream_url: g.upstream.url,
      });
      expect(created.statusCode, created.body).toBe(201);
      const container = created.json();
      expect(container).toMatchObject({
        status: 'provisioning',
        gtm_container_id: 'GTM-ABC1234',
        region: 'eu-central',
        default_hostname: `${container.id.slice(4)}.containers.tagport.test`,
      });
      await g.settle();
      expect((await g.api('GET', `/api/containers/${container.id}/`)).json()).toMatchObject({
        status: 'running',
        allowed_actions: ['stop', 'restart', 'delete'],
      });
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
      const response = await g.api('POST', '/api/containers/', {
        name: 'Bad',
        region: 'eu-central',
        config: CONFIG,
        ...change,
      });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error).toMatchObject({ param, code });
    });

    it('enforces the plan container limit with 402', async () => {
      const free = await g.t.tenantWithKey('free');
      const create = () =>
        g.t.inject({
          method: 'POST',
          url: '/api/containers/',
          token: free.token,
          payload: { name: 'One', region: 'eu-central', config: CONFIG },
        });
      expect((await create()).statusCode).toBe(201);
      const second = await create();
      expect(second.statusCode).toBe(402);
      expect(second.json().error).toMatchObject({ type: 'quota_error', code: 'plan_limit_reached' });
      await g.settle();
    });
  });

  describe('stopContainer · POST /api/containers/:id/stop/', () => {
    it('moves running → stopping; the worker completes it to stopped', async () => {
      const container = await runningContainer();
      const stop = await g.api('POST', `/api/containers/${container.id}/stop/`);
      expect(stop.statusCode).toBe(202);
      expect(stop.json().status).toBe('stopping');
      await g.settle();
      expect((await g.api('GET', `/api/containers/${container.id}/`)).json().status).toBe('stopped');
    });

    it('answers 409 invalid_transition with allowed_actions [start, delete] once stopped', async () => {
      const container = await stoppedContainer();
      const again = await g.api('POST', `/api/containers/${container.id}/stop/`);
      expect(again.statusCode).toBe(409);
      expect(again.json().error).toMatchObject({
        code: 'invalid_transition',
        details: { status: 'stopped', allowed_actions: ['start', 'delete'] },
      });
    });

    it('lets exactly one of two concurrent stops win (202 and 409)', async () => {
      const container = await runningContainer();
      const [first, second] = await Promise.all([
        g.api('POST', `/api/containers/${container.id}/stop/`),
        g.api('POST', `/api/containers/${container.id}/stop/`),
      ]);
      expect([first.statusCode, second.statusCode].sort()).toEqual([202, 409]);
      await g.settle();
    });
  });

  describe('startContainer · POST /api/containers/:id/start/', () => {
    it('moves stopped → starting; the worker completes it to running', async () => {
      const container = await stoppedContainer();
      expect((await g.api('POST', `/api/containers/${container.id}/start/`)).json().status).toBe('starting');
      await g.settle();
      expect((await g.api('GET', `/api/containers/${container.id}/`)).json().status).toBe('running');
    });
  });

  describe('restartContainer · POST /api/containers/:id/restart/', () => {
    it('moves running → stopping, then back to running', async () => {
      const container = await runningContainer();
      expect((await g.api('POST', `/api/containers/${container.id}/restart/`)).json().status).toBe('stopping');
      await g.settle();
      expect((await g.api('GET', `/api/containers/${container.id}/`)).json().status).toBe('running');
    });
  });

  describe('deleteContainer · DELETE /api/containers/:id/', () => {
    it('moves to deleting, then deleted: gone from the list, and every action answers 409', async () => {
      const container = await stoppedContainer();
      expect((await g.api('DELETE', `/api/containers/${container.id}/`)).json().status).toBe('deleting');
      await g.settle();
      expect((await g.api('GET', `/api/containers/${container.id}/`)).json().status).toBe('deleted');
      expect((await g.api('GET', '/api/containers/')).json().results.map((c: { id: string }) => c.id)).not.toContain(
        container.id,
      );
      expect((await g.api('POST', `/api/containers/${container.id}/start/`)).statusCode).toBe(409);
    });
  });

  describe('container lifecycle', () => {
    it('records every transition of the documented state machine as an event, in order', async () => {
      const container = await runningContainer();
      for (const action of ['stop', 'start', 'restart', 'stop']) {
        expect((await g.api('POST', `/api/containers/${container.id}/${action}/`)).statusCode).toBe(202);
        await g.settle();
      }
      const transitions = (await g.api('GET', `/api/events/?object_id=${container.id}&page_size=100`))
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
    });
  });

  /** Five requests through the gateway (200, 404, 200, unknown host, 503 once stopped), with what each answered. */
  async function traffic() {
    const container = await runningContainer('Gateway test', 'us-east');
    const host = container.default_hostname;
    const ok = await g.through(host, '/g/collect?v=2&tid=G-TEST');
    const forwarded = g.upstream.seen.at(-1);
    const missing = await g.through(host, '/missing');
    const oddCase = await g.through(`${host.toUpperCase()}.`, '/x');
    const unknown = await g.through('unknown.example.test');
    await g.api('POST', `/api/containers/${container.id}/stop/`);
    await g.settle();
    const refused = await g.through(host);
    return { container, host, ok, forwarded, missing, oddCase, unknown, refused };
  }

  describe('the gateway', () => {
    it('proxies real HTTP by Host, answers its own health check, and refuses stopped containers', async () => {
      const { host, ok, forwarded, missing, oddCase, unknown, refused } = await traffic();
      expect(ok).toMatchObject({ status: 200, body: 'tagging server saw /g/collect?v=2&tid=G-TEST' });
      expect(ok.headers['x-upstream']).toBe('sgtm');
      expect(forwarded).toMatchObject({ forwardedHost: host });
      expect(missing.status).toBe(404);
      expect(oddCase.status).toBe(200);
      expect(unknown.status).toBe(404);
      expect((await request(`${g.gatewayUrl}/healthz`)).statusCode).toBe(200);
      expect(refused.status).toBe(503);
      expect(JSON.parse(refused.body).error.code).toBe('container_not_running');
    });
  });

  describe('getContainerUsage · GET /api/containers/:id/usage/', () => {
    it('meters every request by status class, hostname and UTC day', async () => {
      const { container, host } = await traffic();
      const usage = (await g.api('GET', `/api/containers/${container.id}/usage/`)).json();
      expect(usage.total_requests).toBe(4);
      expect(usage.by_status_class).toEqual({ '2xx': 2, '4xx': 1, '5xx': 1 });
      expect(usage.by_hostname).toMatchObject([{ hostname: host, requests: 4 }]);
      expect(usage.days).toMatchObject([{ day: new Date().toISOString().slice(0, 10), requests: 4 }]);
    });
  });

  describe('listContainerLogs · GET /api/containers/:id/logs/', () => {
    it('samples every request at a sample rate of 1', async () => {
      const { container } = await traffic();
      const logs = (await g.api('GET', `/api/containers/${container.id}/logs/`)).json();
      expect(logs.count).toBe(4);
      expect(logs.results.map((log: { status_code: number }) => log.status_code).sort()).toEqual([200, 200, 404, 503]);
      await g.api('DELETE', `/api/containers/${container.id}/`);
      await g.settle();
    });
  });
});

describe('container upstreams in production settings', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { runWorkers: false });
  });
  afterAll(() => t?.close());

  describe('createContainer · POST /api/containers/', () => {
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
});
