import net, { type AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { waitFor } from '../helpers/processes.js';

// Long enough that only an invalidation, never expiry, can drop a cached credential during the test.
const ONE_HOUR_MS = 3_600_000;

/**
 * A TCP proxy to PostgreSQL that, once armed, cuts the connection sending the next invalidation NOTIFY (before it
 * reaches the server) and refuses every connection until restored: a network fault between a committed write and
 * the NOTIFY that tells the other instances about it.
 */
async function startCuttingProxy(target: URL) {
  let armed = false;
  let refusing = false;
  const server = net.createServer((client) => {
    if (refusing) return void client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk) => {
      const text = chunk.toString('latin1');
      if (armed && text.includes('tagport_invalidate') && !text.includes('LISTEN')) {
        armed = false;
        refusing = true;
        return close();
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => client.write(chunk));
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    arm: () => {
      armed = true;
    },
    get cut() {
      return refusing;
    },
    restore: () => {
      refusing = false;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe.runIf(backends.includes('postgres'))('an invalidation NOTIFY lost after its write committed', () => {
  let a: TestApp;
  let b: TestApp;
  let proxy: Awaited<ReturnType<typeof startCuttingProxy>>;

  beforeAll(async () => {
    const overrides = { authCacheTtlMs: ONE_HOUR_MS };
    b = await startTestApp('postgres', overrides);
    proxy = await startCuttingProxy(new URL(b.testDatabase.url!));
    // Instance A reaches the same database through the proxy, with its own pool and LISTEN connection.
    const databaseA = await openDatabase({ databaseUrl: proxy.url, pgliteDataDir: '', poolSize: 4 });
    a = await startTestApp('postgres', overrides, {
      database: databaseA,
      url: proxy.url,
      drop: () => databaseA.close(),
    });
  }, 60_000);

  afterAll(async () => {
    proxy?.restore();
    await a?.close();
    await a?.testDatabase.drop();
    await b?.close();
    await b?.testDatabase.drop();
    await proxy?.close();
  }, 60_000);

  const statusOnB = async (token: string) => {
    const response = await b.inject({ method: 'GET', url: '/api/tenants/', token });
    return { status: response.statusCode, code: response.json().error?.code };
  };

  it('still reaches the other instances once the database is reachable again: a revoked key is refused there', async () => {
    const tenant = await b.tenantWithKey();
    expect((await statusOnB(tenant.token)).status).toBe(200); // instance B caches the key

    proxy.arm();
    await a.inject({ method: 'DELETE', url: `/api/api-keys/${tenant.keyId}/`, token: tenant.token });
    expect(proxy.cut).toBe(true);
    const revoked = await b.database.db.execute(sql`select revoked_at from api_keys where id = ${tenant.keyId}`);
    expect((revoked as unknown as { rows: { revoked_at: unknown }[] }).rows[0].revoked_at).not.toBeNull();
    // Instance B heard nothing: it still accepts the key it cached.
    expect((await statusOnB(tenant.token)).status).toBe(200);

    proxy.restore();
    await waitFor(
      async () => (await statusOnB(tenant.token)).status === 401,
      15_000,
      'instance B to refuse the key revoked on instance A',
    );
    expect(await statusOnB(tenant.token)).toEqual({ status: 401, code: 'api_key_revoked' });
  }, 60_000);
});
