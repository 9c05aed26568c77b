import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';

const CONFIG = Buffer.from('id=GTM-ABC1234&env=1&auth=AbCdEf123456').toString('base64');

describe.each(backends)('gateway traffic records on %s', (backend) => {
  let t: TestApp;
  let upstream: http.Server;
  let gatewayUrl: string;
  let token: string;
  const client = new Agent({ connections: 10 });

  beforeAll(async () => {
    upstream = http.createServer((req, res) => res.writeHead(req.url?.includes('missing') ? 404 : 200).end('ok'));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    t = await startTestApp(backend, {
      allowPrivateNetworks: true,
      containerTransitionDelayMs: 10,
      gateway: {
        port: 0,
        baseDomain: 'containers.tagport.test',
        publicIps: [],
        flushMs: 60_000,
        logSampleRate: 1,
        upstreamTimeoutMs: 2000,
      },
    });
    gatewayUrl = await t.app.services.gateway.listen(0, '127.0.0.1');
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
        upstream_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`,
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
});
