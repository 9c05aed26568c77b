import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

describe('request rate limit (in memory)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { rateLimitPerMinute: 5, anonymousRateLimitPerMinute: 3 });
  });
  afterAll(() => t?.close());

  it('counts per token, sets IETF and X- headers on every response, and answers 429 with Retry-After', async () => {
    const a = await t.tenantWithKey();
    const b = await t.tenantWithKey();
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await t.inject({ method: 'GET', url: '/api/tenants/', token: a.token });
      expect(response.statusCode).toBe(200);
      expect(response.headers['ratelimit-policy']).toBe('"token";q=5;w=60');
      expect(response.headers.ratelimit).toMatch(/^"token";r=\d+;t=\d+$/);
      expect(response.headers['x-ratelimit-limit']).toBe('5');
      remaining.push(Number(response.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const limited = await t.inject({ method: 'GET', url: '/api/tenants/', token: a.token });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.ratelimit).toBe(`"token";r=0;t=${retryAfter}`);
    expect(Number(limited.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);

    const otherToken = await t.inject({ method: 'GET', url: '/api/tenants/', token: b.token });
    expect(otherToken.statusCode).toBe(200);
  });

  it('limits unauthenticated traffic per IP, bad tokens included', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await t.inject({
        method: 'GET',
        url: '/api/tenants/',
        headers: { authorization: 'Bearer nonsense' },
        remoteAddress: '198.51.100.7',
      });
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
    const otherIp = await t.inject({ method: 'GET', url: '/api/tenants/', remoteAddress: '198.51.100.8' });
    expect(otherIp.statusCode).toBe(401);
  });

  it('never limits health checks', async () => {
    for (let i = 0; i < 6; i++)
      expect((await t.inject({ method: 'GET', url: '/healthz', remoteAddress: '198.51.100.9' })).statusCode).toBe(200);
  });
});
