import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

describe.each(backends)('web sessions on %s', (backend) => {
  let t: TestApp;
  let tenantId: string;
  const password = 'a long enough password';

  beforeAll(async () => {
    t = await startTestApp(backend);
    tenantId = (await t.tenants.create({ name: 'Web Co', plan: 'pro' })).id;
    await t.users.createUser({ email: 'olive@example.com', name: 'Olive Owner', password, tenantId, role: 'owner' });
  });
  afterAll(() => t?.close());

  describe('getSession · GET /api/auth/session', () => {
    it('answers the signed-in user, tenant and role with a fresh CSRF token', async () => {
      const login = await t.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: 'olive@example.com', password },
      });
      expect(login.statusCode, login.body).toBe(200);
      const cookies = Object.fromEntries(login.cookies.map((cookie) => [cookie.name, cookie.value]));
      const session = await t.inject({ method: 'GET', url: '/api/auth/session', cookies });
      expect(session.statusCode, session.body).toBe(200);
      expect(session.json()).toMatchObject({
        user: { email: 'olive@example.com', name: 'Olive Owner' },
        tenant_id: tenantId,
        role: 'owner',
        csrf_token: expect.any(String),
      });
    });

    it('answers 401 missing_credentials without the cookie', async () => {
      const response = await t.inject({ method: 'GET', url: '/api/auth/session' });
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe('missing_credentials');
    });
  });

  async function login() {
    const response = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'olive@example.com', password },
    });
    expect(response.statusCode, response.body).toBe(200);
    const cookies = Object.fromEntries(response.cookies.map((cookie) => [cookie.name, cookie.value]));
    return { response, cookies, csrf: response.json().csrf_token as string };
  }

  describe('login · POST /api/auth/login', () => {
    it('signs in with an HttpOnly session cookie and answers the user', async () => {
      const { response } = await login();
      expect(response.cookies.find((cookie) => cookie.name === 'tgp_session')).toMatchObject({ httpOnly: true });
      expect(response.json()).toMatchObject({ user: { email: 'olive@example.com' }, tenant_id: tenantId });
    });

    it('refuses a wrong password with 401 and no cookie', async () => {
      const response = await t.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: 'olive@example.com', password: 'not the password' },
      });
      expect(response.statusCode).toBe(401);
      expect(response.cookies.find((cookie) => cookie.name === 'tgp_session')).toBeUndefined();
    });
  });

  describe('logout · POST /api/auth/logout', () => {
    it('ends the session: its cookie no longer signs in', async () => {
      const { cookies, csrf } = await login();
      const logout = await t.inject({
        method: 'POST',
        url: '/api/auth/logout',
        cookies,
        headers: { 'x-csrf-token': csrf },
      });
      expect(logout.statusCode, logout.body).toBe(200);
      expect((await t.inject({ method: 'GET', url: '/api/auth/session', cookies })).statusCode).toBe(401);
    });
  });
});
