import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

const owner = {
  organisation: 'Owner Org',
  name: 'Olga Owner',
  email: 'olga@example.com',
  password: 'a long enough password',
};

async function countRows(t: TestApp, table: 'users' | 'setup_tokens'): Promise<number> {
  const result = (await t.database.db.execute(sql.raw(`select count(*)::int as n from ${table}`))) as unknown as {
    rows: Array<{ n: number }>;
  };
  return result.rows[0].n;
}

describe.each(backends)('first-run set-up on %s', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(() => t?.close());

  const setup = (body: Record<string, unknown>) => t.inject({ method: 'POST', url: '/api/setup/', payload: body });

  describe('firstRunSetup · POST /api/setup/', () => {
    it('is open without a token on a database without tenants', async () => {
      expect(await t.users.setupState()).toBe('open');
      const page = await t.inject({ method: 'GET', url: '/setup' });
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('name="setup_token"');
    });

    describe('on a database the CLI provisioned (tenants, no users)', () => {
      beforeAll(async () => {
        await t.tenantWithKey('agency');
      });

      it('answers 403 setup_token_required without a token and creates nothing', async () => {
        expect(await t.users.setupState()).toBe('token_required');
        const response = await setup(owner);
        expect(response.statusCode).toBe(403);
        expect(response.json().error).toMatchObject({ type: 'permission_error', code: 'setup_token_required' });
        expect(response.json().api_meta.request_id).toMatch(/^req_/);
        expect(await countRows(t, 'users')).toBe(0);
      });

      it('answers 403 invalid_setup_token for a wrong or an expired token', async () => {
        expect((await setup({ ...owner, setup_token: 'tgs_guessed' })).json().error.code).toBe('invalid_setup_token');
        const { token } = await t.users.createSetupToken();
        await t.database.db.execute(sql`update setup_tokens set expires_at = now() - interval '1 second'`);
        const expired = await setup({ ...owner, setup_token: token });
        expect(expired.statusCode).toBe(403);
        expect(expired.json().error.code).toBe('invalid_setup_token');
        expect(await countRows(t, 'users')).toBe(0);
      });

      it('shows the token field on the set-up page, filled from the one-time URL', async () => {
        const page = await t.inject({ method: 'GET', url: '/setup?token=tgs_from%22url' });
        expect(page.statusCode).toBe(200);
        expect(page.body).toContain('name="setup_token"');
        expect(page.body).toContain('value="tgs_from&quot;url"');
      });

      it('accepts a valid token once: the owner is created and every token is spent', async () => {
        const { token, expires_at } = await t.users.createSetupToken();
        expect(token).toMatch(/^tgs_/);
        expect(Date.parse(expires_at)).toBeGreaterThan(Date.now());
        await t.users.createSetupToken();
        const stored = (await t.database.db.execute(sql`select token_hash from setup_tokens`)) as unknown as {
          rows: Array<{ token_hash: string }>;
        };
        expect(stored.rows.map((row) => row.token_hash)).not.toContain(token);

        const created = await setup({ ...owner, setup_token: token });
        expect(created.statusCode).toBe(201);
        expect(await countRows(t, 'setup_tokens')).toBe(0);
        const again = await setup({ ...owner, email: 'mallory@example.com', setup_token: token });
        expect(again.statusCode).toBe(409);
        expect(again.json().error.code).toBe('already_set_up');
        expect(await countRows(t, 'users')).toBe(1);
        expect(await t.users.setupState()).toBe('done');
        await expect(t.users.createSetupToken()).rejects.toMatchObject({ code: 'already_set_up' });
      });
    });
  });
});

describe('first-run set-up in the OpenAPI document', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite');
  });
  afterAll(() => t?.close());

  it('documents setup_token and the 403 answers', async () => {
    const document = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const operation = document.paths['/api/setup/'].post;
    expect(operation.operationId).toBe('firstRunSetup');
    const body = operation.requestBody.content['application/json'].schema;
    expect(body.properties.setup_token.description).toContain('tagport setup-token');
    expect(body.required).not.toContain('setup_token');
    expect(operation.responses['403']).toBeDefined();
    expect(operation.description).toContain('setup_token_required');
  });
});
