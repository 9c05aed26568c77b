import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/db/index.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

const PASSWORD = 'a long enough password';
const EMAIL = 'guarded@example.com';
const codeAt = (secret: string, offsetSteps: number) =>
  generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSteps * 30 });

describe.each(backends)('wrong two-factor codes are capped per account, across IPs and instances (%s)', (backend) => {
  /** Two instances on one database, each with its own in-memory request limits (no Redis). */
  let first: TestApp;
  let second: TestApp;

  const signIn = (app: TestApp, ip: string, code: string) =>
    app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: ip,
      payload: { email: EMAIL, password: PASSWORD, code },
    });

  beforeAll(async () => {
    first = await startTestApp(backend);
    if (backend === 'pglite') second = await startTestApp(backend, {}, first.testDatabase);
    else {
      // Its own pool, as a second process would have.
      const url = first.testDatabase.url!;
      const own = await openDatabase({ databaseUrl: url, pgliteDataDir: '', poolSize: 5 });
      second = await startTestApp(backend, {}, { database: own, url, drop: () => own.close() });
    }
    const tenant = await first.tenants.create({ name: 'Guarded', plan: 'business' });
    await first.users.createUser({ email: EMAIL, name: 'Pat', password: PASSWORD, tenantId: tenant.id, role: 'owner' });
    const login = await first.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: EMAIL, password: PASSWORD },
    });
    const cookies = Object.fromEntries(login.cookies.map((cookie) => [cookie.name, cookie.value]));
    const headers = { 'x-csrf-token': login.json().csrf_token as string };
    const started = await first.inject({ method: 'POST', url: '/api/auth/two-factor/enrollment/', cookies, headers });
    secret = started.json().secret;
    const confirmed = await first.inject({
      method: 'POST',
      url: '/api/auth/two-factor/confirm/',
      cookies,
      headers,
      payload: { code: await codeAt(secret, 0) },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await second?.close();
    if (backend === 'postgres') await second?.testDatabase.drop();
    await first?.close();
  });
  let secret = '';

  it('refuses even the right code once 10 wrong ones came from 10 addresses through two instances', async () => {
    const answers: number[] = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      const app = attempt % 2 === 0 ? first : second;
      answers.push((await signIn(app, `198.51.100.${attempt + 1}`, '111111')).statusCode);
    }
    expect(answers).toEqual(Array(10).fill(401));
    const right = await signIn(second, '203.0.113.77', await codeAt(secret, 1));
    expect(right.statusCode, right.body).toBe(429);
    expect(right.json().error.code).toBe('too_many_login_attempts');
    expect(right.headers['retry-after']).toBeDefined();
  });
});
