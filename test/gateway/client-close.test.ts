import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { CONFIG, testGateway } from '../helpers/gateway-app.js';
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
  let gatewayUrl: string;
  let token: string;
  let container: { id: string; default_hostname: string };
  const lines: string[] = [];

  beforeAll(async () => {
    upstream = await startSilentUpstream();
    testDatabase = await createTestDatabase('pglite');
    app = await buildApp({
      config: testConfig({
        logLevel: 'info',
        allowPrivateNetworks: true,
        containerTransitionDelayMs: 10,
        gateway: testGateway(),
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
    await app.services.containerWorker.idle();
    gatewayUrl = await app.services.gateway.listen(0, '127.0.0.1');
  }, 60_000);
  afterAll(async () => {
    await upstream?.close();
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
});
