import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';

function cookiesOf(response: { cookies: Array<{ name: string; value: string }> }): Record<string, string> {
  return Object.fromEntries(response.cookies.map((cookie) => [cookie.name, cookie.value]));
}

describe('web sessions with CSRF protection', () => {
  let t: TestApp;
  let tenantId: string;
  const password = 'a long enough password';

  beforeAll(async () => {
    t = await startTestApp('pglite');
    tenantId = (await t.tenants.create({ name: 'Web Co', plan: 'pro' })).id;
    await t.users.createUser({ email: 'Owner@Example.com', name: 'Olive Owner', password, tenantId, role: 'owner' });
  });
  afterAll(() => t?.close());

  async function login() {
    const response = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'owner@example.com', password },
    });
    expect(response.statusCode).toBe(200);
    const session = response.cookies.find((cookie) => cookie.name === 'tgp_session')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    return { cookies: cookiesOf(response), csrf: response.json().csrf_token as string, body: response.json() };
  }

  it('signs in, reads with the cookie, and needs the CSRF token for unsafe methods', async () => {
    const { cookies, csrf, body } = await login();
    expect(body).toMatchObject({
      user: { email: 'owner@example.com', name: 'Olive Owner' },
      tenant_id: tenantId,
      role: 'owner',
    });

    const read = await t.inject({ method: 'GET', url: '/api/api-keys/', cookies });
    expect(read.statusCode).toBe(200);

    const withoutToken = await t.inject({
      method: 'POST',
      url: '/api/api-keys/',
      cookies,
      payload: { name: 'from the dashboard' },
    });
    expect(withoutToken.statusCode).toBe(403);
    expect(withoutToken.json().error.code).toBe('csrf_token_invalid');
    const wrongToken = await t.inject({
      method: 'POST',
      url: '/api/api-keys/',
      cookies,
      headers: { 'x-csrf-token': 'forged' },
      payload: { name: 'x' },
    });
    expect(wrongToken.statusCode).toBe(403);
    expect((await t.inject({ method: 'GET', url: '/api/api-keys/', cookies })).json().count).toBe(0);

    const created = await t.inject({
      method: 'POST',
      url: '/api/api-keys/',
      cookies,
      headers: { 'x-csrf-token': csrf },
      payload: { name: 'from the dashboard' },
    });
    expect(created.statusCode).toBe(201);
    expect((await t.inject({ method: 'GET', url: '/api/tenants/', token: created.json().token })).statusCode).toBe(200);

    const logout = await t.inject({
      method: 'POST',
      url: '/api/auth/logout',
      cookies,
      headers: { 'x-csrf-token': csrf },
    });
    expect(logout.statusCode).toBe(200);
    const afterLogout = await t.inject({ method: 'GET', url: '/api/api-keys/', cookies });
    expect(afterLogout.statusCode).toBe(401);
  });

  it('refuses wrong passwords alike for unknown users and throttles repeated failures', async () => {
    const wrong = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'owner@example.com', password: 'wrong password!' },
    });
    expect(wrong.statusCode).toBe(401);
    const unknown = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'nobody@example.com', password: 'wrong password!' },
    });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().error.code).toBe(wrong.json().error.code);

    let last: Awaited<ReturnType<typeof t.inject>> | undefined;
    for (let i = 0; i < 11; i++)
      last = await t.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: 'victim@example.com', password: `guess number ${i}` },
      });
    expect(last!.statusCode).toBe(429);
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    const stillBlocked = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'victim@example.com', password: 'another guess' },
    });
    expect(stillBlocked.json().error.code).toBe('too_many_login_attempts');
  });

  it('does not let members change keys', async () => {
    await t.users.createUser({ email: 'member@example.com', name: 'Mel Member', password, tenantId, role: 'member' });
    const response = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'member@example.com', password },
    });
    const cookies = cookiesOf(response);
    const denied = await t.inject({
      method: 'POST',
      url: '/api/api-keys/',
      cookies,
      headers: { 'x-csrf-token': response.json().csrf_token },
      payload: { name: 'x' },
    });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.code).toBe('insufficient_role');
  });

  it('session endpoint needs the cookie, not a key', async () => {
    const key = await t.keys.create(tenantId, { name: 'k' });
    const response = await t.inject({ method: 'GET', url: '/api/auth/session', token: key.token });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('session_required');
  });
});

describe.each(backends)('first-run set-up on %s', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(() => t?.close());

  it('answers simultaneous set-ups with one 201 and 409s, and creates one owner', async () => {
    const attempt = (n: number) =>
      t.inject({
        method: 'POST',
        url: '/api/setup/',
        payload: {
          organisation: `Org ${n}`,
          name: `Owner ${n}`,
          email: `owner${n}@example.com`,
          password: 'a long enough password',
        },
      });
    const responses = await Promise.all([1, 2, 3, 4].map(attempt));
    const codes = responses.map((response) => response.statusCode).sort();
    expect(codes).toEqual([201, 409, 409, 409]);
    expect(responses.find((response) => response.statusCode === 409)!.json().error.code).toBe('already_set_up');
    const counts = (await t.database.db.execute(
      sql`select (select count(*) from users)::int as users, (select count(*) from tenants)::int as tenants, (select count(*) from memberships)::int as memberships`,
    )) as unknown as {
      rows: Array<{ users: number; tenants: number; memberships: number }>;
    };
    expect(counts.rows[0]).toEqual({ users: 1, tenants: 1, memberships: 1 });
  });
});
