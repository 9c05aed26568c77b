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

describe('rate limits of pages in a browser', () => {
  const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
  const OFFICE = '198.51.100.30';
  const password = 'a long enough password';
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { rateLimitPerMinute: 4, anonymousRateLimitPerMinute: 3 });
    const tenantId = (await t.tenants.create({ name: 'Office Co', plan: 'pro' })).id;
    await t.users.createUser({ email: 'ann@example.com', name: 'Ann', password, tenantId, role: 'owner' });
  });
  afterAll(() => t?.close());

  /** A signed-in browser's cookies; each sign-in comes from an address of its own, so it spends no shared budget. */
  async function signIn(remoteAddress: string) {
    const response = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'ann@example.com', password },
      remoteAddress,
    });
    expect(response.statusCode).toBe(200);
    return Object.fromEntries(response.cookies.map((cookie) => [cookie.name, cookie.value]));
  }
  const pageLoad = (url: string, remoteAddress: string, cookies?: Record<string, string>) =>
    t.inject({ method: 'GET', url, remoteAddress, cookies, headers: { accept: BROWSER_ACCEPT } });

  it("counts a signed-in browser's pages per session, apart from its address and from the session's API calls", async () => {
    const first = await signIn('198.51.100.20');
    const second = await signIn('198.51.100.21');
    for (let i = 0; i < 4; i++) {
      const page = await pageLoad('/dashboard', OFFICE, first);
      expect(page.statusCode).toBe(200);
      expect(page.headers['ratelimit-policy']).toBe('"page";q=4;w=60');
    }
    const limited = await pageLoad('/dashboard', OFFICE, first);
    expect(limited.statusCode).toBe(429);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(limited.headers['content-type']).toContain('text/html');
    expect(limited.body).toContain('<html lang="en">');
    expect(limited.body).toContain('<title>Too many requests · Tagport</title>');
    expect(limited.body).toContain(`<meta http-equiv="refresh" content="${retryAfter}">`);
    expect(limited.body).toContain(limited.headers['x-request-id'] as string);

    // A colleague in the same office, the first session's API calls and an anonymous visitor each have their own.
    expect((await pageLoad('/dashboard', OFFICE, second)).statusCode).toBe(200);
    const api = await t.inject({ method: 'GET', url: '/api/api-keys/', cookies: first, remoteAddress: OFFICE });
    expect(api.statusCode).toBe(200);
    expect(api.headers['ratelimit-policy']).toBe('"token";q=4;w=60');
    expect((await pageLoad('/login', OFFICE)).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await pageLoad('/favicon.ico', OFFICE)).statusCode).toBe(200);
    // The API console is a page too: on the second session's budget, not the address's.
    const apiConsole = await pageLoad('/api/docs/', OFFICE, second);
    expect(apiConsole.headers['ratelimit-policy']).toBe('"page";q=4;w=60');
  });

  it('answers a browser over the limit with an HTML page, and the API and other clients in JSON', async () => {
    const visitor = '198.51.100.40';
    for (let i = 0; i < 3; i++) expect((await pageLoad('/login', visitor)).statusCode).toBe(200);
    const page = await pageLoad('/login', visitor);
    expect(page.statusCode).toBe(429);
    expect(page.body).toContain('<h1>Too many requests</h1>');
    const api = await t.inject({
      method: 'GET',
      url: '/api/tenants/',
      remoteAddress: visitor,
      headers: { accept: BROWSER_ACCEPT },
    });
    expect(api.json().error.code).toBe('rate_limited');
    const script = await t.inject({ method: 'GET', url: '/login', remoteAddress: visitor });
    expect(script.statusCode).toBe(429);
    expect(script.json().error.code).toBe('rate_limited');
  });

  it('treats an expired or forged session cookie as no session: the page counts on its address', async () => {
    const address = '198.51.100.50';
    const forged = { tgp_session: 'x'.repeat(43) };
    for (let i = 0; i < 3; i++) expect((await pageLoad('/check', address, forged)).statusCode).toBe(200);
    const limited = await pageLoad('/check', address, forged);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['ratelimit-policy']).toBe('"ip";q=3;w=60');
  });
});
