import { sql } from 'drizzle-orm';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/processes.js';
import type { TestApp } from '../helpers/app.js';
import { CONFIG, startAppWithGateway, startTaggingServer } from '../helpers/gateway-app.js';

const BASE_DOMAIN = 'containers.tagport.test';

describe('container health · GET /healthz on the gateway', () => {
  let t: TestApp;
  let gatewayUrl: string;
  let token: string;
  let healthy: Awaited<ReturnType<typeof startTaggingServer>>;
  let failing: Awaited<ReturnType<typeof startTaggingServer>>;

  beforeAll(async () => {
    healthy = await startTaggingServer({ basePath: '/sgtm' });
    failing = await startTaggingServer({ healthStatus: 500, basePath: '/sgtm' });
    ({ t, gatewayUrl } = await startAppWithGateway('pglite', { gateway: { baseDomain: BASE_DOMAIN } }));
    token = (await t.tenantWithKey('business')).token;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await healthy?.close();
    await failing?.close();
  });

  async function runningContainer(upstreamUrl?: string): Promise<{ id: string; default_hostname: string }> {
    const created = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token,
      payload: { name: 'Health', region: 'eu-central', config: CONFIG, upstream_url: upstreamUrl },
    });
    expect(created.statusCode, created.body).toBe(201);
    await t.app.services.containerWorker.idle();
    return created.json();
  }

  async function health(host: string) {
    const response = await request(`${gatewayUrl}/healthz`, { headers: { host } });
    return { status: response.statusCode, body: (await response.body.json()) as Record<string, { code?: string }> };
  }

  it('answers 200 when the container runs and its upstream answers its health check', async () => {
    const container = await runningContainer(healthy.url);
    expect(await health(container.default_hostname)).toEqual({ status: 200, body: { status: 'ok' } });
    expect(healthy.probes).toContain('/sgtm/healthz');
  });

  it('answers for a custom domain as for the default hostname', async () => {
    const container = await runningContainer(healthy.url);
    const domain = await t.inject({
      method: 'POST',
      url: '/api/domains/',
      token,
      payload: { hostname: 'data.health.test', container_id: container.id },
    });
    await t.database.db.execute(sql`update domains set status = 'active' where id = ${domain.json().id}`);
    expect((await health('data.health.test')).status).toBe(200);
  });

  it('answers 503 container_not_running for a stopped container', async () => {
    const container = await runningContainer(healthy.url);
    await t.inject({ method: 'POST', url: `/api/containers/${container.id}/stop/`, token });
    await t.app.services.containerWorker.idle();
    const answer = await health(container.default_hostname);
    expect(answer.status).toBe(503);
    expect(answer.body.error.code).toBe('container_not_running');
  });

  it('answers 200 for a running container with only a GTM config: the built-in runtime serves it', async () => {
    const container = await runningContainer();
    const answer = await health(container.default_hostname);
    expect(answer.status).toBe(200);
  });

  it('answers 503 upstream_unreachable when nothing listens at the upstream', async () => {
    const container = await runningContainer(`http://127.0.0.1:${await freePort()}/`);
    const answer = await health(container.default_hostname);
    expect(answer.status).toBe(503);
    expect(answer.body.error.code).toBe('upstream_unreachable');
    expect(JSON.stringify(answer.body)).not.toMatch(/127\.|ECONN/);
  });

  it('answers 503 upstream_unreachable when the upstream reports itself unhealthy (5xx)', async () => {
    const container = await runningContainer(failing.url);
    const answer = await health(container.default_hostname);
    expect(answer.status).toBe(503);
    expect(answer.body.error.code).toBe('upstream_unreachable');
  });

  it('probes the upstream once for a burst of health checks', async () => {
    const container = await runningContainer(failing.url);
    const before = failing.probes.length;
    await Promise.all([1, 2, 3, 4, 5].map(() => health(container.default_hostname)));
    await health(container.default_hostname);
    expect(failing.probes.length - before).toBe(1);
  });

  it("answers the gateway's own liveness for an address, localhost or the bare base domain", async () => {
    for (const host of ['127.0.0.1:8080', '[::1]:8080', 'localhost', BASE_DOMAIN])
      expect(await health(host), host).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('answers 404 unknown_host for a hostname that reaches no container, not a false 200', async () => {
    const answer = await health('gone.shop.test');
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('unknown_host');
  });
});
