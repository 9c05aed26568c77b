import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

describe.each(backends)('UserService.createUser (the CLI `users create`) on %s', (backend) => {
  let t: TestApp;
  let tenantId: string;
  const password = 'a long enough password';

  beforeAll(async () => {
    t = await startTestApp(backend);
    tenantId = (await t.tenants.create({ name: 'Users Co', plan: 'pro' })).id;
  });
  afterAll(() => t?.close());

  async function stored(email: string) {
    const result = (await t.database.db.execute(
      sql`select u.name, u.password_hash, (select count(*)::int from memberships m where m.user_id = u.id) as memberships from users u where u.email = ${email}`,
    )) as unknown as { rows: Array<{ name: string; password_hash: string; memberships: number }> };
    return result.rows;
  }

  it('refuses an email that is taken (in any case) with 409 email_taken and changes nothing', async () => {
    await t.users.createUser({ email: 'ada@example.com', name: 'Ada', password, tenantId, role: 'owner' });
    const before = await stored('ada@example.com');
    const otherTenant = (await t.tenants.create({ name: 'Other Co', plan: 'pro' })).id;
    await expect(
      t.users.createUser({
        email: ' ADA@example.com',
        name: 'Imposter',
        password: 'another long password',
        tenantId: otherTenant,
        role: 'member',
      }),
    ).rejects.toMatchObject({ statusCode: 400, code: 'invalid_email' });
    await expect(
      t.users.createUser({
        email: 'ADA@example.com',
        name: 'Imposter',
        password: 'another long password',
        tenantId: otherTenant,
        role: 'member',
      }),
    ).rejects.toMatchObject({ statusCode: 409, code: 'email_taken' });
    expect(await stored('ada@example.com')).toEqual(before);
    expect(before).toEqual([{ name: 'Ada', password_hash: expect.any(String), memberships: 1 }]);
  });

  it.each(['notanemail', 'a@', '@example.com', 'two words@example.com'])(
    'refuses %s as the API does (400 invalid_email)',
    async (email) => {
      await expect(t.users.createUser({ email, name: 'N', password, tenantId, role: 'member' })).rejects.toMatchObject({
        statusCode: 400,
        code: 'invalid_email',
        extra: { param: 'email' },
      });
      const login = await t.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
      expect(login.statusCode).toBe(400);
    },
  );
});
