import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { openDatabase } from '../../src/db/index.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../helpers/database.js';
import { redisServerPath, startRedis } from '../helpers/processes.js';

async function listen(t: TestApp): Promise<string> {
  return t.app.listen({ host: '127.0.0.1', port: 0 });
}

async function getTenants(base: string, token: string) {
  const response = await request(`${base}/api/tenants/`, { headers: { authorization: `Bearer ${token}` } });
  return {
    status: response.statusCode,
    headers: response.headers,
    body: (await response.body.json()) as Record<string, any>,
  };
}

describe.runIf(postgresUrl)('two instances on one PostgreSQL database', () => {
  let shared: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  let baseA: string;
  let baseB: string;

  beforeAll(async () => {
    shared = await createTestDatabase('postgres');
    // Each instance has its own pool and LISTEN connection, as two processes would.
    const otherConnection = await openDatabase({ databaseUrl: shared.url, pgliteDataDir: '', poolSize: 5 });
    a = await startTestApp('postgres', {}, shared);
    b = await startTestApp(
      'postgres',
      {},
      { database: otherConnection, url: shared.url, drop: () => otherConnection.close() },
    );
    baseA = await listen(a);
    baseB = await listen(b);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await b?.testDatabase.drop();
    await shared?.drop();
  });

  it('a key revoked on one instance fails on the other, although the other had it cached', async () => {
    const tenant = await a.tenantWithKey();
    expect((await getTenants(baseB, tenant.token)).status).toBe(200);
    expect((await getTenants(baseB, tenant.token)).status).toBe(200);

    const revoke = await request(`${baseA}/api/api-keys/${tenant.keyId}/`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${tenant.token}` },
    });
    expect(revoke.statusCode).toBe(200);
    await revoke.body.dump();

    // NOTIFY is delivered asynchronously; measure how long the other instance keeps accepting the key.
    const started = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - started < 2000) status = (await getTenants(baseB, tenant.token)).status;
    expect(status).toBe(401);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it("a tenant created on one instance appears in the other instance's cached list at once", async () => {
    const agency = await a.tenantWithKey('agency');
    expect((await getTenants(baseB, agency.token)).body.count).toBe(1);
    const created = await request(`${baseA}/api/tenants/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agency.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'New client' }),
    });
    expect(created.statusCode).toBe(201);
    await created.body.dump();
    const started = Date.now();
    let count = 1;
    while (count === 1 && Date.now() - started < 2000) count = (await getTenants(baseB, agency.token)).body.count;
    expect(count).toBe(2);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('an archived client tenant is refused on the other instance', async () => {
    const agency = await a.tenantWithKey('agency');
    const client = await a.tenantWithKey('pro', agency.tenantId);
    expect((await getTenants(baseB, client.token)).status).toBe(200);
    const archive = await request(`${baseA}/api/tenants/${client.tenantId}/`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${agency.token}` },
    });
    expect(archive.statusCode).toBe(200);
    await archive.body.dump();
    const started = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - started < 2000) status = (await getTenants(baseB, client.token)).status;
    expect(status).toBe(401);
  });
});

describe.runIf(redisServerPath)('rate limit shared through Redis by two instances', () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    redis = await startRedis();
    a = await startTestApp('pglite', { redisUrl: redis.url, rateLimitPerMinute: 6 });
    b = await startTestApp('pglite', { redisUrl: redis.url, rateLimitPerMinute: 6 }, a.testDatabase);
  });
  afterAll(async () => {
    await b?.app.close();
    await a?.close();
    await redis?.stop();
  });

  it('counts requests of one token across both instances', async () => {
    const tenant = await a.tenantWithKey();
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 8; i++) {
      const target = i % 2 === 0 ? a : b;
      const response = await target.inject({ method: 'GET', url: '/api/tenants/', token: tenant.token });
      statuses.push(response.statusCode);
      remaining.push(String(response.headers['x-ratelimit-remaining']));
    }
    expect({ statuses, remaining }).toEqual({
      statuses: [200, 200, 200, 200, 200, 200, 429, 429],
      remaining: ['5', '4', '3', '2', '1', '0', '0', '0'],
    });
  });

  it('counts failed sign-ins across both instances: the 11th attempt is refused wherever it lands, even with the right password', async () => {
    const tenant = await a.tenantWithKey();
    const email = 'shared-throttle@example.com';
    await a.users.createUser({
      email,
      name: 'Owner',
      password: 'the right password',
      tenantId: tenant.tenantId,
      role: 'owner',
    });
    const login = (target: TestApp, password: string) =>
      target.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email, password },
        remoteAddress: '203.0.113.20',
      });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await login(i % 2 === 0 ? a : b, 'a wrong password')).statusCode);
    expect(statuses).toEqual(Array(10).fill(401));
    for (const target of [a, b]) {
      const refused = await login(target, 'the right password');
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error.code).toBe('too_many_login_attempts');
    }
  });

  it('a separate in-memory instance does not see that count', async () => {
    const alone = await startTestApp('pglite', { rateLimitPerMinute: 6 }, a.testDatabase);
    const tenant = await a.tenantWithKey();
    for (let i = 0; i < 6; i++) await a.inject({ method: 'GET', url: '/api/tenants/', token: tenant.token });
    const response = await alone.inject({ method: 'GET', url: '/api/tenants/', token: tenant.token });
    expect(response.statusCode).toBe(200);
    await alone.app.close();
  });
});
