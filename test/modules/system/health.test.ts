import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';
import { redisServerPath, startRedis, waitFor } from '../../helpers/processes.js';

describe.each(backends)('system on %s', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(() => t?.close());

  describe('health · GET /healthz', () => {
    it('answers 200 ok without credentials', async () => {
      const response = await t.inject({ method: 'GET', url: '/healthz' });
      expect(response.statusCode).toBe(200);
      expect(response.json().status).toBe('ok');
    });
  });

  describe('readiness · GET /readyz', () => {
    it('answers 200 ok without credentials while the database answers', async () => {
      const response = await t.inject({ method: 'GET', url: '/readyz' });
      expect(response.statusCode).toBe(200);
      expect(response.json().status).toBe('ok');
    });

    it('answers 503 once the database is gone', async () => {
      const isolated = await startTestApp(backend);
      await isolated.database.close();
      const response = await isolated.inject({ method: 'GET', url: '/readyz' });
      expect(response.statusCode).toBe(503);
      await isolated.app.close();
      await isolated.testDatabase.drop();
    });
  });
});

describe.runIf(redisServerPath)('readiness · GET /readyz with REDIS_URL set', () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let t: TestApp;
  let redisStopped = false;
  beforeAll(async () => {
    redis = await startRedis();
    t = await startTestApp('pglite', { redisUrl: redis.url });
  });
  afterAll(async () => {
    await t?.close();
    if (!redisStopped) await redis?.stop();
  });

  const readiness = async () => {
    const response = await t.inject({ method: 'GET', url: '/readyz' });
    return { status: response.statusCode, body: response.json() };
  };

  it('reports Redis, and keeps the instance ready while Redis is unreachable (rate limits count per instance then)', async () => {
    expect(await readiness()).toMatchObject({ status: 200, body: { status: 'ok', checks: { redis: 'ok' } } });
    await redis.stop();
    redisStopped = true;
    await waitFor(async () => (await readiness()).body.checks.redis === 'unreachable', 10_000, 'Redis reported down');
    expect(await readiness()).toMatchObject({ status: 200, body: { status: 'ok', checks: { database: 'ok' } } });
  });
});
