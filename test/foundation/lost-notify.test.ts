import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { type InstancePair, startPostgresProxy, twoInstancesThroughProxy } from '../helpers/postgres-proxy.js';
import { waitFor } from '../helpers/processes.js';

// Long enough that only an invalidation, never expiry, can drop a cached credential during the test.
const ONE_HOUR_MS = 3_600_000;

/**
 * A proxy that, once armed, cuts the connection sending the next invalidation NOTIFY (before it reaches the server)
 * and refuses every connection until restored: a network fault between a committed write and the NOTIFY that tells
 * the other instances about it.
 */
async function startCuttingProxy(target: URL) {
  let armed = false;
  const proxy = await startPostgresProxy(target, (chunk, connection) => {
    const text = chunk.toString('latin1');
    if (!armed || !text.includes('tagport_invalidate') || text.includes('LISTEN')) return;
    armed = false;
    proxy.state.accepting = false;
    connection.cut();
  });
  return {
    ...proxy,
    arm: () => {
      armed = true;
    },
    get cut() {
      return !proxy.state.accepting;
    },
    restore: () => {
      proxy.state.accepting = true;
    },
  };
}

describe.runIf(backends.includes('postgres'))('an invalidation NOTIFY lost after its write committed', () => {
  let a: TestApp;
  let b: TestApp;
  let pair: InstancePair<Awaited<ReturnType<typeof startCuttingProxy>>>;

  beforeAll(async () => {
    // Instance A reaches the database through the proxy, with its own pool and LISTEN connection.
    pair = await twoInstancesThroughProxy({ authCacheTtlMs: ONE_HOUR_MS }, startCuttingProxy);
    ({ direct: b, proxied: a } = pair);
  }, 60_000);

  afterAll(() => pair?.close(), 60_000);

  const statusOnB = async (token: string) => {
    const response = await b.inject({ method: 'GET', url: '/api/tenants/', token });
    return { status: response.statusCode, code: response.json().error?.code };
  };

  it('still reaches the other instances once the database is reachable again: a revoked key is refused there', async () => {
    const tenant = await b.tenantWithKey();
    expect((await statusOnB(tenant.token)).status).toBe(200); // instance B caches the key

    pair.proxy.arm();
    await a.inject({ method: 'DELETE', url: `/api/api-keys/${tenant.keyId}/`, token: tenant.token });
    expect(pair.proxy.cut).toBe(true);
    const revoked = await b.database.db.execute(sql`select revoked_at from api_keys where id = ${tenant.keyId}`);
    expect((revoked as unknown as { rows: { revoked_at: unknown }[] }).rows[0].revoked_at).not.toBeNull();
    // Instance B heard nothing: it still accepts the key it cached.
    expect((await statusOnB(tenant.token)).status).toBe(200);

    pair.proxy.restore();
    await waitFor(
      async () => (await statusOnB(tenant.token)).status === 401,
      15_000,
      'instance B to refuse the key revoked on instance A',
    );
    expect(await statusOnB(tenant.token)).toEqual({ status: 401, code: 'api_key_revoked' });
  }, 60_000);
});
