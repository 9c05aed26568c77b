import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

describe.each(backends)('API keys on %s', (backend) => {
  let t: TestApp;
  let agency: { tenantId: string; token: string; keyId: string };
  let other: { tenantId: string; token: string; keyId: string };

  beforeAll(async () => {
    t = await startTestApp(backend);
    agency = await t.tenantWithKey('agency');
    other = await t.tenantWithKey('pro');
  });
  afterAll(() => t?.close());

  async function column(query: string): Promise<unknown> {
    const result = (await t.database.db.execute(sql.raw(query))) as unknown as { rows: Array<{ value: unknown }> };
    return result.rows[0]?.value ?? null;
  }

  async function createKey(name = 'deploy') {
    const created = await t.inject({ method: 'POST', url: '/api/api-keys/', token: other.token, payload: { name } });
    expect(created.statusCode, created.body).toBe(201);
    return created.json() as { id: string; token: string };
  }

  describe('createApiKey · POST /api/api-keys/', () => {
    it('shows the token once, at creation', async () => {
      const created = await t.inject({
        method: 'POST',
        url: '/api/api-keys/',
        token: other.token,
        payload: { name: 'deploy' },
      });
      expect(created.statusCode).toBe(201);
      const key = created.json();
      expect(key.token).toMatch(/^tgp_[0-9A-Za-z]{36}$/);
      expect(key).toMatchObject({
        name: 'deploy',
        status: 'active',
        token_start: key.token.slice(0, 8),
        token_last4: key.token.slice(-4),
        tenant_id: other.tenantId,
      });
    });

    it('stores only a hash of the token', async () => {
      const key = await createKey();
      const stored = await column(`select token_hash as value from api_keys where id = '${key.id}'`);
      expect(stored).toMatch(/^[0-9a-f]{64}$/);
      expect(stored).not.toContain(key.token.slice(4));
    });

    it('refuses an expiry date in the past with 400 naming expires_at', async () => {
      const past = await t.inject({
        method: 'POST',
        url: '/api/api-keys/',
        token: other.token,
        payload: { name: 'old', expires_at: '2020-01-01T00:00:00Z' },
      });
      expect(past.statusCode).toBe(400);
      expect(past.json().error.param).toBe('expires_at');
    });

    it('creates a key for a client tenant named in Tagport-Tenant', async () => {
      const client = (
        await t.inject({ method: 'POST', url: '/api/tenants/', token: agency.token, payload: { name: 'Client GmbH' } })
      ).json();
      const keyForClient = await t.inject({
        method: 'POST',
        url: '/api/api-keys/',
        token: agency.token,
        headers: { 'tagport-tenant': client.id },
        payload: { name: 'client key', role: 'owner' },
      });
      expect(keyForClient.statusCode).toBe(201);
      expect(keyForClient.json().tenant_id).toBe(client.id);
    });
  });

  describe('listApiKeys · GET /api/api-keys/', () => {
    it('never shows a token, and shows last_used_at once the key was used', async () => {
      const key = await createKey();
      const used = await t.inject({ method: 'GET', url: '/api/tenants/', token: key.token });
      expect(used.statusCode).toBe(200);
      const list = await t.inject({ method: 'GET', url: '/api/api-keys/', token: other.token });
      expect(list.body).not.toContain(key.token);
      const listed = list.json().results.find((k: { id: string }) => k.id === key.id);
      expect(listed.last_used_at).not.toBeNull();
      expect(listed).not.toHaveProperty('token');
    });

    it('answers 404 for a Tagport-Tenant that is not a client of the caller', async () => {
      const notMine = await t.inject({
        method: 'GET',
        url: '/api/api-keys/',
        token: agency.token,
        headers: { 'Tagport-Tenant': other.tenantId },
      });
      expect(notMine.statusCode).toBe(404);
    });
  });

  describe('revokeApiKey · DELETE /api/api-keys/:id/', () => {
    it('revokes at once: the key then answers 401 api_key_revoked', async () => {
      const key = await createKey();
      const revoked = await t.inject({ method: 'DELETE', url: `/api/api-keys/${key.id}/`, token: other.token });
      expect(revoked.statusCode).toBe(200);
      expect(revoked.json()).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
      const refused = await t.inject({ method: 'GET', url: '/api/tenants/', token: key.token });
      expect(refused.statusCode).toBe(401);
      expect(refused.json().error.code).toBe('api_key_revoked');
    });

    it('answers a second revocation with the revoked key', async () => {
      const key = await createKey();
      await t.inject({ method: 'DELETE', url: `/api/api-keys/${key.id}/`, token: other.token });
      const again = await t.inject({ method: 'DELETE', url: `/api/api-keys/${key.id}/`, token: other.token });
      expect(again.json().status).toBe('revoked');
    });

    it("cannot revoke or see another tenant's key", async () => {
      const revoke = await t.inject({ method: 'DELETE', url: `/api/api-keys/${agency.keyId}/`, token: other.token });
      expect(revoke.statusCode).toBe(404);
      expect((await t.inject({ method: 'GET', url: '/api/tenants/', token: agency.token })).statusCode).toBe(200);
    });
  });

  describe('keys in use', () => {
    it('writes last_used_at in batches, not per request', async () => {
      const key = await t.keys.create(other.tenantId, { name: 'batch' });
      await t.inject({ method: 'GET', url: '/api/tenants/', token: key.token });
      const query = `select last_used_at as value from api_keys where id = '${key.id}'`;
      expect(await column(query)).toBeNull();
      await t.app.services.auth.flushLastUsed();
      expect(await column(query)).not.toBeNull();
    });

    it('refuses a key once its expiry date has passed with 401 api_key_expired', async () => {
      const soon = await t.keys.create(other.tenantId, {
        name: 'soon',
        expires_at: new Date(Date.now() + 1500).toISOString(),
      });
      expect((await t.inject({ method: 'GET', url: '/api/tenants/', token: soon.token })).statusCode).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1600));
      const expired = await t.inject({ method: 'GET', url: '/api/tenants/', token: soon.token });
      expect(expired.statusCode).toBe(401);
      expect(expired.json().error.code).toBe('api_key_expired');
    });
  });
});
