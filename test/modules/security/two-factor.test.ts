import { sql } from 'drizzle-orm';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

const PASSWORD = 'a long enough password';
/** A code for the step after the current one: accepted within the tolerance, and never the one just used. */
const codeAt = (secret: string, offsetSteps: number) =>
  generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSteps * 30 });

describe.each(backends)('two-factor sign-in and sessions on %s', (backend) => {
  let t: TestApp;
  let counter = 0;

  beforeAll(async () => {
    t = await startTestApp(backend);
  }, 60_000);
  afterAll(() => t?.close());

  /** A user with a tenant of their own (or a member of `tenantId`), signed in. */
  async function person(role: 'owner' | 'member' = 'owner', tenantId?: string) {
    const email = `person${++counter}-${backend}@example.com`;
    const tenant = tenantId ?? (await t.tenants.create({ name: `Co ${counter}`, plan: 'business' })).id;
    await t.users.createUser({ email, name: 'Pat', password: PASSWORD, tenantId: tenant, role });
    return { email, tenantId: tenant, ...(await signIn(email)) };
  }

  async function signIn(email: string, code?: string, userAgent = 'Test browser/1.0') {
    const response = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'user-agent': userAgent },
      payload: { email, password: PASSWORD, ...(code ? { code } : {}) },
    });
    if (response.statusCode !== 200) return { response, cookies: {}, csrf: '' };
    const cookies = Object.fromEntries(response.cookies.map((cookie) => [cookie.name, cookie.value]));
    return { response, cookies, csrf: response.json().csrf_token as string };
  }

  type Session = { cookies: Record<string, string>; csrf: string };
  const call = (session: Session, method: 'GET' | 'POST' | 'DELETE' | 'PATCH', url: string, payload?: object) =>
    t.inject({ method, url, cookies: session.cookies, headers: { 'x-csrf-token': session.csrf }, payload });

  async function enrol(session: Session) {
    const started = await call(session, 'POST', '/api/auth/two-factor/enrollment/');
    expect(started.statusCode, started.body).toBe(201);
    const { secret, otpauth_uri, qr_svg } = started.json();
    expect(otpauth_uri).toMatch(/^otpauth:\/\/totp\/Tagport:.+\?.*secret=/);
    expect(qr_svg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    const confirmed = await call(session, 'POST', '/api/auth/two-factor/confirm/', { code: await codeAt(secret, 0) });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    return { secret: secret as string, recoveryCodes: confirmed.json().recovery_codes as string[] };
  }

  describe('confirmTwoFactorEnrollment · POST /api/auth/two-factor/confirm/', () => {
    it('turns it on with a code from the app, stores the secret sealed and answers recovery codes once', async () => {
      const pat = await person();
      const wrong = await call(pat, 'POST', '/api/auth/two-factor/confirm/', { code: '000000' });
      expect(wrong.json().error.code).toBe('two_factor_enrollment_not_started');
      const started = await call(pat, 'POST', '/api/auth/two-factor/enrollment/');
      const badCode = await call(pat, 'POST', '/api/auth/two-factor/confirm/', { code: '123456' });
      expect(badCode.statusCode).toBe(400);
      expect(badCode.json().error).toMatchObject({ code: 'incorrect_code', param: 'code' });
      const secret = started.json().secret as string;
      const confirmed = await call(pat, 'POST', '/api/auth/two-factor/confirm/', { code: await codeAt(secret, 0) });
      expect(confirmed.statusCode, confirmed.body).toBe(200);
      const codes = confirmed.json().recovery_codes as string[];
      expect(codes).toHaveLength(10);
      expect(new Set(codes).size).toBe(10);

      const result = await t.database.db.execute(sql`select * from users where email = ${pat.email}`);
      const row = (result as unknown as { rows: Array<Record<string, unknown>> }).rows[0];
      expect(JSON.stringify(row)).not.toContain(secret);
      for (const code of codes) expect(JSON.stringify(row)).not.toContain(code);
      expect(String(row.totp_secret_sealed)).toMatch(/^v1\./);

      const status = (await call(pat, 'GET', '/api/auth/two-factor/')).json();
      expect(status).toMatchObject({ enabled: true, recovery_codes_left: 10, required_by_tenant: false });
      const again = await call(pat, 'POST', '/api/auth/two-factor/enrollment/');
      expect(again.json().error.code).toBe('two_factor_already_enabled');
    });
  });

  describe('login · POST /api/auth/login', () => {
    it('asks for the code, refuses a wrong or replayed one, and accepts each recovery code once', async () => {
      const pat = await person();
      const { secret, recoveryCodes } = await enrol(pat);

      const withoutCode = await signIn(pat.email);
      expect(withoutCode.response.statusCode).toBe(401);
      expect(withoutCode.response.json().error.code).toBe('two_factor_required');
      expect(withoutCode.response.cookies).toEqual([]);
      const wrong = await signIn(pat.email, '000000');
      expect(wrong.response.json().error.code).toBe('invalid_two_factor_code');

      const code = await codeAt(secret, 1);
      const good = await signIn(pat.email, code);
      expect(good.response.statusCode, good.response.body).toBe(200);
      expect(good.response.json().two_factor).toEqual({ enabled: true, enrollment_required: false });
      const replay = await signIn(pat.email, code);
      expect(replay.response.json().error.code).toBe('invalid_two_factor_code');

      const recovery = await signIn(pat.email, recoveryCodes[0].toUpperCase());
      expect(recovery.response.statusCode).toBe(200);
      expect((await signIn(pat.email, recoveryCodes[0])).response.json().error.code).toBe('invalid_two_factor_code');
      expect((await call(good, 'GET', '/api/auth/two-factor/')).json().recovery_codes_left).toBe(9);
    });

    it('throttles wrong codes like wrong passwords', async () => {
      const pat = await person();
      await enrol(pat);
      const answers: number[] = [];
      for (let attempt = 0; attempt < 11; attempt++)
        answers.push((await signIn(pat.email, '111111')).response.statusCode);
      expect(answers.slice(0, 10).every((status) => status === 401)).toBe(true);
      expect(answers[10]).toBe(429);
    });
  });

  describe('disableTwoFactor · DELETE /api/auth/two-factor/', () => {
    it('needs a current code, and is refused while a tenant requires two-factor sign-in', async () => {
      const pat = await person();
      const { secret } = await enrol(pat);
      const wrong = await call(pat, 'DELETE', '/api/auth/two-factor/', { code: '123456' });
      expect(wrong.json().error.code).toBe('incorrect_code');

      await t.database.db.execute(sql`update tenants set require_two_factor = true where id = ${pat.tenantId}`);
      const required = await call(pat, 'DELETE', '/api/auth/two-factor/', { code: await codeAt(secret, 1) });
      expect(required.json().error.code).toBe('two_factor_required_by_tenant');
      await t.database.db.execute(sql`update tenants set require_two_factor = false where id = ${pat.tenantId}`);

      const off = await call(pat, 'DELETE', '/api/auth/two-factor/', { code: await codeAt(secret, 1) });
      expect(off.statusCode, off.body).toBe(200);
      expect(off.json().enabled).toBe(false);
      expect((await signIn(pat.email)).response.statusCode).toBe(200);
    });
  });

  describe('getTwoFactor · GET /api/auth/two-factor/', () => {
    it('takes the session cookie, never an API key', async () => {
      const tenant = await t.tenantWithKey('business');
      const response = await t.inject({ method: 'GET', url: '/api/auth/two-factor/', token: tenant.token });
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe('session_required');
    });
  });

  describe('startTwoFactorEnrollment · POST /api/auth/two-factor/enrollment/', () => {
    it('is all a member can do once the owner requires two-factor sign-in, until they enrol', async () => {
      const owner = await person('owner');
      const ownerKey = await t.keys.create(owner.tenantId, { name: 'owner', role: 'owner' });
      const admin = await t.keys.create(owner.tenantId, { name: 'admin', role: 'admin' });
      const byAdmin = await t.inject({
        method: 'PATCH',
        url: `/api/tenants/${owner.tenantId}/`,
        token: admin.token,
        payload: { require_two_factor: true },
      });
      expect(byAdmin.json().error.code).toBe('insufficient_role');
      const required = await t.inject({
        method: 'PATCH',
        url: `/api/tenants/${owner.tenantId}/`,
        token: ownerKey.token,
        payload: { require_two_factor: true },
      });
      expect(required.statusCode, required.body).toBe(200);
      expect(required.json().require_two_factor).toBe(true);

      const member = await person('member', owner.tenantId);
      expect(member.response.json().two_factor).toEqual({ enabled: false, enrollment_required: true });
      const blocked = await call(member, 'GET', '/api/containers/');
      expect(blocked.statusCode).toBe(403);
      expect(blocked.json().error.code).toBe('two_factor_enrollment_required');
      expect((await call(member, 'GET', '/api/auth/session')).statusCode).toBe(200);

      await enrol(member);
      expect((await call(member, 'GET', '/api/containers/')).statusCode).toBe(200);
      expect((await call(member, 'GET', '/api/auth/session')).json().two_factor.enrollment_required).toBe(false);
    });
  });

  describe('listSessions · GET /api/auth/sessions/', () => {
    it("lists the user's own sessions with their browser and marks the current one", async () => {
      const pat = await person();
      const other = await signIn(pat.email, undefined, 'Phone browser/2.0');
      const stranger = await person();
      const list = (await call(pat, 'GET', '/api/auth/sessions/')).json().results;
      expect(list).toHaveLength(2);
      expect(list.find((session: { current: boolean }) => session.current).user_agent).toBe('Test browser/1.0');
      expect(list.find((session: { current: boolean }) => !session.current).user_agent).toBe('Phone browser/2.0');
      expect(list.every((session: { two_factor: boolean; ip: string }) => !session.two_factor && session.ip)).toBe(
        true,
      );
      expect((await call(stranger, 'GET', '/api/auth/sessions/')).json().results).toHaveLength(1);
      expect((await call(other, 'GET', '/api/auth/session')).statusCode).toBe(200);
    });
  });

  describe('revokeSession · DELETE /api/auth/sessions/:id/', () => {
    it('signs another session out at once, and cannot touch a stranger’s', async () => {
      const pat = await person();
      const phone = await signIn(pat.email, undefined, 'Phone browser/2.0');
      const stranger = await person();
      const list = (await call(pat, 'GET', '/api/auth/sessions/')).json().results;
      const phoneId = list.find((session: { current: boolean }) => !session.current).id;
      const byStranger = await call(stranger, 'DELETE', `/api/auth/sessions/${phoneId}/`);
      expect(byStranger.statusCode).toBe(404);
      expect((await call(phone, 'GET', '/api/auth/session')).statusCode).toBe(200);
      const revoked = await call(pat, 'DELETE', `/api/auth/sessions/${phoneId}/`);
      expect(revoked.statusCode, revoked.body).toBe(200);
      expect((await call(phone, 'GET', '/api/auth/session')).statusCode).toBe(401);
      expect((await call(pat, 'GET', '/api/auth/session')).statusCode).toBe(200);
    });
  });
});
