import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { CONFIG, testGateway, testRuntime } from '../helpers/gateway-app.js';
import { type GoogleFixture, startGoogleFixture } from '../helpers/google-fixture.js';
import { waitFor } from '../helpers/processes.js';

/** A tagging server that never answers, and tells when a request it holds was given up by the gateway. */
async function startSilentUpstream() {
  const received: string[] = [];
  const abandoned: string[] = [];
  const server = http.createServer((req) => {
    received.push(req.url ?? '');
    req.socket.on('close', () => abandoned.push(req.url ?? ''));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    abandoned,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('a client closing its connection through the Node gateway', () => {
  let testDatabase: TestDatabase;
  let app: FastifyInstance;
  let upstream: Awaited<ReturnType<typeof startSilentUpstream>>;
  let google: GoogleFixture;
  let gatewayUrl: string;
  let token: string;
  let container: { id: string; default_hostname: string };
  let builtin: { id: string; default_hostname: string };
  const lines: string[] = [];
  /** Requests the gateway finished handling, however it went (the real handler, observed). */
  const started: string[] = [];
  const handled: string[] = [];

  beforeAll(async () => {
    upstream = await startSilentUpstream();
    google = await startGoogleFixture();
    testDatabase = await createTestDatabase('pglite');
    app = await buildApp({
      config: testConfig({
        logLevel: 'info',
        allowPrivateNetworks: true,
        containerTransitionDelayMs: 10,
        gateway: testGateway(),
        runtime: testRuntime(google.origin),
      }),
      database: testDatabase.database,
      logStream: { write: (line) => lines.push(line) },
    });
    await app.ready();
    const tenant = await app.services.tenants.create({ name: 'Closing clients', plan: 'business' });
    token = (await app.services.apiKeys.create(tenant.id, { name: 'k', role: 'owner' })).token;
    const created = await app.inject({
      method: 'POST',
      url: '/api/containers/',
      headers: { authorization: `Bearer ${token}` },
      payload: { name: 'Slow', region: 'eu-central', config: CONFIG, upstream_url: upstream.url },
    });
    container = created.json();
    const runtimeContainer = await app.inject({
      method: 'POST',
      url: '/api/containers/',
      headers: { authorization: `Bearer ${token}` },
      payload: { name: 'Builtin', region: 'eu-central', config: CONFIG },
    });
    builtin = runtimeContainer.json();
    await app.services.containerWorker.idle();
    const gateway = app.services.gateway as unknown as { handle(...args: unknown[]): Promise<void> };
    const handle = gateway.handle.bind(gateway);
    gateway.handle = (...args) => {
      const url = String((args[0] as http.IncomingMessage).url);
      started.push(url);
      return handle(...args).finally(() => handled.push(url));
    };
    gatewayUrl = await app.services.gateway.listen(0, '127.0.0.1');
  }, 60_000);
  afterAll(async () => {
    await upstream?.close();
    await google?.close();
    await app?.close();
    await testDatabase?.drop();
  });

  it('is metered as 499 and logged at no error level, without a stack trace', async () => {
    const { port } = new URL(gatewayUrl);
    const socket = net.connect(Number(port), '127.0.0.1');
    socket.write(`GET /g/collect?left=1 HTTP/1.1\r\nHost: ${container.default_hostname}\r\n\r\n`);
    await waitFor(async () => upstream.received.length > 0, 10_000, 'the request to reach the upstream');
    socket.destroy();
    await waitFor(async () => upstream.abandoned.length > 0, 10_000, 'the gateway to give the request up');
    const logs = async () => {
      await app.services.gateway.flush();
      const answer = await app.inject({
        method: 'GET',
        url: `/api/containers/${container.id}/logs/?limit=10`,
        headers: { authorization: `Bearer ${token}` },
      });
      return answer.json().results as Array<{ path: string; status_code: number }>;
    };
    await waitFor(async () => (await logs()).length > 0, 10_000, 'the request to be metered');
    expect((await logs()).map(({ path, status_code }) => ({ path, status_code }))).toEqual([
      { path: '/g/collect?left=1', status_code: 499 },
    ]);
    expect(lines.filter((line) => JSON.parse(line).level >= 50)).toEqual([]);
  });

  it('is metered as 499, with no error, when it goes away while sending a body to the upstream', async () => {
    const { port } = new URL(gatewayUrl);
    const socket = net.connect(Number(port), '127.0.0.1');
    const target = '/g/collect?half=1';
    socket.write(`POST ${target} HTTP/1.1\r\nHost: ${container.default_hostname}\r\nContent-Length: 1000\r\n\r\nen=`);
    await waitFor(async () => upstream.received.includes(target), 10_000, 'the request to reach the upstream');
    socket.destroy();
    await waitFor(async () => upstream.abandoned.includes(target), 10_000, 'the gateway to give the request up');
    await waitFor(async () => handled.includes(target), 10_000, 'the gateway to finish with the request');
    await app.services.gateway.flush();
    const answer = await app.inject({
      method: 'GET',
      url: `/api/containers/${container.id}/logs/?limit=10`,
      headers: { authorization: `Bearer ${token}` },
    });
    const logged = answer.json().results as Array<{ path: string; status_code: number }>;
    expect(logged.find(({ path }) => path === target)?.status_code).toBe(499);
    expect(lines.filter((line) => JSON.parse(line).level >= 50)).toEqual([]);
  });

  it('leaves no error in the log when it goes away while sending a body to the built-in runtime', async () => {
    const { port } = new URL(gatewayUrl);
    const socket = net.connect(Number(port), '127.0.0.1');
    const head = `POST /g/collect?v=2&tid=G-TEST HTTP/1.1\r\nHost: ${builtin.default_hostname}\r\nContent-Length: 1000\r\n\r\n`;
    const target = '/g/collect?v=2&tid=G-TEST';
    socket.write(`${head}en=page_view`);
    await waitFor(async () => started.includes(target), 10_000, 'the gateway to read the request');
    socket.destroy();
    await waitFor(async () => handled.includes(target), 10_000, 'the gateway to give the request up');
    // The listener's own catch runs right after the handler settles: let it.
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.filter((line) => JSON.parse(line).level >= 50)).toEqual([]);
  });
});
