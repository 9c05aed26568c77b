import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { waitFor } from '../helpers/processes.js';

// Long enough that only an invalidation, never expiry, can drop a cached credential during the test.
const ONE_HOUR_MS = 3_600_000;

/**
 * A TCP proxy to PostgreSQL that can silence the LISTEN connections open through it (named `tagport-listen` in their
 * start-up packet): nothing passes any more, in either direction, and nothing is closed, as when a failover or a
 * partition leaves a connection dead without a FIN. Connections opened later pass again.
 */
async function startSilencingProxy(target: URL) {
  const listeners = new Set<{ silenced: boolean }>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    const state = { silenced: false };
    let first = true;
    client.on('data', (chunk) => {
      if (first && chunk.includes('tagport-listen')) listeners.add(state);
      first = false;
      if (!state.silenced) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!state.silenced) client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    /** Silences every LISTEN connection open now; returns how many. */
    silenceListeners(): number {
      for (const state of listeners) state.silenced = true;
      const count = listeners.size;
      listeners.clear();
      return count;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe.runIf(backends.includes('postgres'))('a LISTEN connection that dies without a word', () => {
  let a: TestApp;
  let b: TestApp;
  let proxy: Awaited<ReturnType<typeof startSilencingProxy>>;

  beforeAll(async () => {
    const overrides = { authCacheTtlMs: ONE_HOUR_MS };
    a = await startTestApp('postgres', overrides);
    proxy = await startSilencingProxy(new URL(a.testDatabase.url!));
    // Instance B reaches the database through the proxy; its LISTEN connection is checked every 300 ms.
    const databaseB = await openDatabase({
      databaseUrl: proxy.url,
      pgliteDataDir: '',
      poolSize: 4,
      listenHeartbeatMs: 300,
    });
    b = await startTestApp('postgres', overrides, {
      database: databaseB,
      url: proxy.url,
      drop: () => databaseB.close(),
    });
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await b?.testDatabase.drop();
    await a?.close();
    await a?.testDatabase.drop();
    await proxy?.close();
  }, 60_000);

  const statusOnB = async (token: string) => {
    const response = await b.inject({ method: 'GET', url: '/api/tenants/', token });
    return { status: response.statusCode, code: response.json().error?.code };
  };

  it('is found by its heartbeat and replaced, and what was missed meanwhile is dropped: a revoked key is refused', async () => {
    const tenant = await a.tenantWithKey();
    expect((await statusOnB(tenant.token)).status).toBe(200); // instance B caches the key

    expect(proxy.silenceListeners()).toBeGreaterThan(0);
    const revoke = await a.inject({ method: 'DELETE', url: `/api/api-keys/${tenant.keyId}/`, token: tenant.token });
    expect(revoke.statusCode, revoke.body).toBe(200);

    await waitFor(
      async () => (await statusOnB(tenant.token)).status === 401,
      15_000,
      'instance B to refuse the key revoked while its LISTEN connection was silent',
    );
    expect(await statusOnB(tenant.token)).toEqual({ status: 401, code: 'api_key_revoked' });
  }, 60_000);
});
