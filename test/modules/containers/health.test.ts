import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/processes.js';
import type { TestApp } from '../../helpers/app.js';
import { CONFIG, startAppWithGateway, startTaggingServer } from '../../helpers/gateway-app.js';

describe("a container's health in the API is the gateway's health check", () => {
  let t: TestApp;
  let gatewayUrl: string;
  let token: string;
  let tagging: Awaited<ReturnType<typeof startTaggingServer>>;

  beforeAll(async () => {
    tagging = await startTaggingServer();
    ({ t, gatewayUrl } = await startAppWithGateway('pglite'));
    token = (await t.tenantWithKey('business')).token;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await tagging?.close();
  });

  async function runningContainer(upstreamUrl: string): Promise<{ id: string; default_hostname: string }> {
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

  it('a running container whose upstream is unreachable shows as unhealthy, with the reason, in get and list', async () => {
    const container = await runningContainer(`http://127.0.0.1:${await freePort()}`);
    const gateway = await request(`${gatewayUrl}/healthz`, { headers: { host: container.default_hostname } });
    expect(gateway.statusCode).toBe(503);
    expect(((await gateway.body.json()) as { error: { code: string } }).error.code).toBe('upstream_unreachable');

    const read = await t.inject({ method: 'GET', url: `/api/containers/${container.id}/`, token });
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json()).toMatchObject({
      status: 'running',
      health: {
        status: 'unhealthy',
        code: 'upstream_unreachable',
        message: expect.stringMatching(/could not be reached/),
      },
    });
    const listed = await t.inject({ method: 'GET', url: '/api/containers/', token });
    const item = listed.json().results.find((entry: { id: string }) => entry.id === container.id);
    expect(item.health).toMatchObject({ status: 'unhealthy', code: 'upstream_unreachable' });
  });

  it('a running container whose upstream answers is healthy; a stopped one is not checked', async () => {
    const container = await runningContainer(tagging.url);
    const read = await t.inject({ method: 'GET', url: `/api/containers/${container.id}/`, token });
    expect(read.json().health).toMatchObject({ status: 'healthy', code: null, message: null });

    await t.inject({ method: 'POST', url: `/api/containers/${container.id}/stop/`, token });
    await t.app.services.containerWorker.idle();
    const stopped = await t.inject({ method: 'GET', url: `/api/containers/${container.id}/`, token });
    expect(stopped.json()).toMatchObject({ status: 'stopped', health: { status: 'not_checked', code: null } });
  });
});
