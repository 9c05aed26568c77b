import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import {
  type ProxiedConnection,
  type InstancePair,
  startPostgresProxy,
  twoInstancesThroughProxy,
} from '../helpers/postgres-proxy.js';
import { waitFor } from '../helpers/processes.js';

// Long enough that only an invalidation, never expiry, can drop a cached credential during the test.
const ONE_HOUR_MS = 3_600_000;

/**
 * A proxy that can silence the LISTEN connections open through it (named `tagport-listen` in their start-up
 * packet): nothing passes any more and nothing is closed, as when a failover or a partition leaves a connection
 * dead without a FIN. Connections opened later pass again.
 */
async function startSilencingProxy(target: URL) {
  const listeners = new Set<ProxiedConnection>();
  const proxy = await startPostgresProxy(target, (chunk, connection) => {
    if (connection.first && chunk.includes('tagport-listen')) listeners.add(connection);
  });
  return {
    ...proxy,
    /** Silences every LISTEN connection open now; returns how many. */
    silenceListeners(): number {
      for (const connection of listeners) connection.silenced = true;
      const count = listeners.size;
      listeners.clear();
      return count;
    },
  };
}

describe.runIf(backends.includes('postgres'))('a LISTEN connection that dies without a word', () => {
  let a: TestApp;
  let b: TestApp;
  let pair: InstancePair<Awaited<ReturnType<typeof startSilencingProxy>>>;

  beforeAll(async () => {
    // Instance B reaches the database through the proxy; its LISTEN connection is checked every 300 ms.
    pair = await twoInstancesThroughProxy({ authCacheTtlMs: ONE_HOUR_MS }, startSilencingProxy, {
      listenHeartbeatMs: 300,
    });
    ({ direct: a, proxied: b } = pair);
  }, 60_000);

  afterAll(() => pair?.close(), 60_000);

  const statusOnB = async (token: string) => {
    const response = await b.inject({ method: 'GET', url: '/api/tenants/', token });
    return { status: response.statusCode, code: response.json().error?.code };
  };

  it('is found by its heartbeat and replaced, and what was missed meanwhile is dropped: a revoked key is refused', async () => {
    const tenant = await a.tenantWithKey();
    expect((await statusOnB(tenant.token)).status).toBe(200); // instance B caches the key

    expect(pair.proxy.silenceListeners()).toBeGreaterThan(0);
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
