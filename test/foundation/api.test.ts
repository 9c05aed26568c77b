import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiToken } from '../../src/lib/tokens.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';

describe.each(backends)('API foundation on %s', (backend) => {
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

  describe('conventions', () => {
    it('lists tenants in the envelope with api_meta.request_id equal to X-Request-Id', async () => {
      const response = await t.inject({ method: 'GET', url: '/api/tenants/', token: agency.token });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toMatchObject({ count: 1, page: 1, page_size: 20, total_pages: 1, next: null, previous: null });
      expect(body.results[0]).toMatchObject({ id: agency.tenantId, plan: 'agency', parent_id: null, status: 'active' });
      expect(body.results[0].features.tracking_checker_api_hourly).toBe(300);
      expect(body.results[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(body.api_meta.request_id).toMatch(/^req_[0-9a-z]{26}$/);
      expect(response.headers['x-request-id']).toBe(body.api_meta.request_id);
    });

    it('accepts paths with and without the trailing slash', async () => {
      const withSlash = await t.inject({ method: 'GET', url: `/api/tenants/${agency.tenantId}/`, token: agency.token });
      const without = await t.inject({ method: 'GET', url: `/api/tenants/${agency.tenantId}`, token: agency.token });
      expect(withSlash.statusCode).toBe(200);
      expect(without.statusCode).toBe(200);
      expect(without.json().id).toBe(agency.tenantId);
    });

    it('answers 405 with Allow for a known path and 404 in the error format for an unknown one', async () => {
      const wrongMethod = await t.inject({ method: 'PUT', url: '/api/tenants/', token: agency.token });
      expect(wrongMethod.statusCode).toBe(405);
      expect(wrongMethod.headers.allow).toBe('GET, POST');
      expect(wrongMethod.json().error.code).toBe('method_not_allowed');
      const unknown = await t.inject({ method: 'GET', url: '/api/nothing-here/', token: agency.token });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ error: { type: 'not_found_error', code: 'route_not_found' } });
      expect(unknown.json().api_meta.request_id).toBe(unknown.headers['x-request-id']);
    });

    it('paginates with next and previous links', async () => {
      for (let i = 0; i < 4; i++)
        await t.inject({
          method: 'POST',
          url: '/api/tenants/',
          token: agency.token,
          payload: { name: `Page client ${i}` },
        });
      const first = (await t.inject({ method: 'GET', url: '/api/tenants/?page_size=2', token: agency.token })).json();
      expect(first).toMatchObject({ count: 5, page: 1, page_size: 2, total_pages: 3, previous: null });
      expect(new URL(first.next).search).toBe('?page_size=2&page=2');
      const last = (
        await t.inject({ method: 'GET', url: '/api/tenants/?page=3&page_size=2', token: agency.token })
      ).json();
      expect(last.results).toHaveLength(1);
      expect(last.next).toBeNull();
      expect(new URL(last.previous).searchParams.get('page')).toBe('2');
      const beyond = (
        await t.inject({ method: 'GET', url: '/api/tenants/?page=50&page_size=2', token: agency.token })
      ).json();
      expect(beyond).toMatchObject({ count: 5, results: [], next: null });
      const ids = [
        ...first.results,
        ...(
          await t.inject({ method: 'GET', url: first.next.replace(/^https?:\/\/[^/]+/, ''), token: agency.token })
        ).json().results,
      ].map((r: { id: string }) => r.id);
      expect(new Set(ids).size).toBe(4);
    });

    it.each([
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=abc', 'page'],
      ['page=1.5', 'page'],
      ['page=99999999999999999999', 'page'],
      ['page_size=0', 'page_size'],
      ['page_size=101', 'page_size'],
      ['page_size=1e3', 'page_size'],
      ['status=deleted', 'status'],
    ])('rejects the query %s with 400 naming the parameter', async (query, param) => {
      const response = await t.inject({ method: 'GET', url: `/api/tenants/?${query}`, token: agency.token });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ type: 'invalid_request_error', param });
    });
  });

  describe('authentication', () => {
    it.each([
      ['no header', undefined, 'missing_credentials'],
      ['a non-bearer scheme', 'Basic dXNlcjpwYXNz', 'invalid_authorization_header'],
      ['bearer without token', 'Bearer', 'invalid_authorization_header'],
      ['garbage', 'Bearer hello', 'invalid_api_key'],
      ['a truncated token', 'TRUNCATE', 'invalid_api_key'],
      ['a bad checksum', 'BADSUM', 'invalid_api_key'],
      ['an unknown well-formed token', 'UNKNOWN', 'invalid_api_key'],
      ['two tokens', 'TWO', 'invalid_authorization_header'],
    ])('refuses %s with 401, WWW-Authenticate and the error body', async (_name, header, code) => {
      const real = agency.token;
      const value =
        header === 'TRUNCATE'
          ? `Bearer ${real.slice(0, 20)}`
          : header === 'BADSUM'
            ? `Bearer ${real.slice(0, -1)}${real.endsWith('A') ? 'B' : 'A'}`
            : header === 'UNKNOWN'
              ? `Bearer ${generateApiToken()}`
              : header === 'TWO'
                ? `Bearer ${real} ${real}`
                : header;
      const response = await t.inject({
        method: 'GET',
        url: '/api/tenants/',
        headers: value === undefined ? {} : { authorization: value },
      });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(response.json().error).toMatchObject({ type: 'authentication_error', code });
      expect(response.headers['ratelimit-policy']).toMatch(/^"ip";q=\d+;w=60$/);
    });

    it('accepts the scheme in any case with extra spaces and a lower-case header name', async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/tenants/',
        headers: { authorization: `  bEaReR    ${agency.token}  ` },
      });
      expect(response.statusCode).toBe(200);
    });

    it('refuses a malformed token without touching the database', async () => {
      const isolated = await startTestApp(backend);
      await isolated.database.close();
      const response = await isolated.inject({
        method: 'GET',
        url: '/api/tenants/',
        headers: { authorization: `Bearer ${agency.token.slice(0, -1)}x` },
      });
      expect(response.statusCode).toBe(401);
      const unknown = await isolated.inject({ method: 'GET', url: '/api/tenants/', token: generateApiToken() });
      expect(unknown.statusCode).toBe(503);
      expect(unknown.headers['retry-after']).toMatch(/^\d+$/);
      expect(unknown.json().error).toEqual({
        type: 'api_error',
        code: 'service_unavailable',
        message: expect.any(String),
      });
      expect(JSON.stringify(unknown.json())).not.toMatch(/at .*\.ts|stack/i);
      await isolated.app.close();
      await isolated.testDatabase.drop();
    });
  });

  describe('tenants', () => {
    it('never shows another tenant: 404, not 403', async () => {
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        const response = await t.inject({
          method,
          url: `/api/tenants/${agency.tenantId}/`,
          token: other.token,
          payload: method === 'PATCH' ? { name: 'x' } : undefined,
        });
        expect(response.statusCode).toBe(404);
        expect(response.json().error.type).toBe('not_found_error');
      }
      const list = (await t.inject({ method: 'GET', url: '/api/tenants/', token: other.token })).json();
      expect(list.results.map((r: { id: string }) => r.id)).toEqual([other.tenantId]);
    });

    it('lets agencies create and manage client tenants, and act on them with Tagport-Tenant', async () => {
      const created = await t.inject({
        method: 'POST',
        url: '/api/tenants',
        token: agency.token,
        payload: { name: 'Client GmbH', plan: 'business' },
      });
      expect(created.statusCode).toBe(201);
      const client = created.json();
      expect(client).toMatchObject({
        name: 'Client GmbH',
        plan: 'business',
        parent_id: agency.tenantId,
        status: 'active',
      });
      expect(client.id).toMatch(/^ten_/);

      const keyForClient = await t.inject({
        method: 'POST',
        url: '/api/api-keys/',
        token: agency.token,
        headers: { 'tagport-tenant': client.id },
        payload: { name: 'client key', role: 'owner' },
      });
      expect(keyForClient.statusCode).toBe(201);
      expect(keyForClient.json().tenant_id).toBe(client.id);

      const clientView = (
        await t.inject({ method: 'GET', url: '/api/tenants/', token: keyForClient.json().token })
      ).json();
      expect(clientView.results.map((r: { id: string }) => r.id)).toEqual([client.id]);
      const parentFromClient = await t.inject({
        method: 'GET',
        url: `/api/tenants/${agency.tenantId}/`,
        token: keyForClient.json().token,
      });
      expect(parentFromClient.statusCode).toBe(404);

      const notMine = await t.inject({
        method: 'GET',
        url: '/api/api-keys/',
        token: agency.token,
        headers: { 'Tagport-Tenant': other.tenantId },
      });
      expect(notMine.statusCode).toBe(404);
      const fromOther = await t.inject({ method: 'GET', url: `/api/tenants/${client.id}`, token: other.token });
      expect(fromOther.statusCode).toBe(404);

      const plan = await t.inject({
        method: 'PATCH',
        url: `/api/tenants/${client.id}/`,
        token: agency.token,
        payload: { plan: 'pro', feature_overrides: { tracking_checker_api_hourly: 120 } },
      });
      expect(plan.statusCode).toBe(200);
      expect(plan.json()).toMatchObject({
        plan: 'pro',
        features: { tracking_checker_api_hourly: 120, max_containers: 5 },
      });
      const selfUpgrade = await t.inject({
        method: 'PATCH',
        url: `/api/tenants/${client.id}/`,
        token: keyForClient.json().token,
        payload: { plan: 'business' },
      });
      expect(selfUpgrade.statusCode).toBe(403);
      expect(selfUpgrade.json().error.code).toBe('plan_change_not_allowed');

      const archived = await t.inject({ method: 'DELETE', url: `/api/tenants/${client.id}/`, token: agency.token });
      expect(archived.statusCode).toBe(200);
      expect(archived.json()).toMatchObject({ status: 'archived', archived_at: expect.any(String) });
      const afterArchive = await t.inject({ method: 'GET', url: '/api/tenants/', token: keyForClient.json().token });
      expect(afterArchive.statusCode).toBe(401);
      expect(afterArchive.json().error.code).toBe('tenant_archived');
      const listed = (
        await t.inject({ method: 'GET', url: '/api/tenants/?status=archived', token: agency.token })
      ).json();
      expect(listed.results.map((r: { id: string }) => r.id)).toContain(client.id);
    });

    it('refuses client creation for non-agency plans and self-archiving', async () => {
      const response = await t.inject({
        method: 'POST',
        url: '/api/tenants/',
        token: other.token,
        payload: { name: 'Nope' },
      });
      expect(response.statusCode).toBe(403);
      expect(response.json().error.code).toBe('clients_not_allowed');
      const self = await t.inject({ method: 'DELETE', url: `/api/tenants/${other.tenantId}/`, token: other.token });
      expect(self.statusCode).toBe(403);
    });

    it('renames a tenant and rejects empty or unknown changes', async () => {
      const renamed = await t.inject({
        method: 'PATCH',
        url: `/api/tenants/${other.tenantId}/`,
        token: other.token,
        payload: { name: 'Renamed Ltd' },
      });
      expect(renamed.json().name).toBe('Renamed Ltd');
      for (const payload of [
        {},
        { name: '' },
        { name: '   ' },
        { name: 42 },
        { nickname: 'x' },
        { plan: 'platinum' },
      ]) {
        const response = await t.inject({
          method: 'PATCH',
          url: `/api/tenants/${other.tenantId}/`,
          token: other.token,
          payload,
        });
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      }
      const badId = await t.inject({ method: 'GET', url: '/api/tenants/not-an-id/', token: other.token });
      expect(badId.statusCode).toBe(400);
      expect(badId.json().error.param).toBe('id');
    });
  });

  describe('bad input never writes', () => {
    async function tenantCount() {
      return (await t.inject({ method: 'GET', url: '/api/tenants/?status=all', token: agency.token })).json()
        .count as number;
    }

    it.each([
      ['malformed JSON', { 'content-type': 'application/json' }, '{"name": "x"', 400, 'invalid_json'],
      ['an empty JSON body', { 'content-type': 'application/json' }, '', 400, 'empty_body'],
      ['a JSON array', { 'content-type': 'application/json' }, '[1,2]', 400, 'invalid_parameter'],
      ['text/plain', { 'content-type': 'text/plain' }, '{"name": "x"}', 415, 'unsupported_media_type'],
      ['form data', { 'content-type': 'application/x-www-form-urlencoded' }, 'name=x', 415, 'unsupported_media_type'],
      [
        'an unknown field',
        { 'content-type': 'application/json' },
        '{"name": "x", "owner": "me"}',
        400,
        'unknown_parameter',
      ],
      ['a wrong type', { 'content-type': 'application/json' }, '{"name": 12}', 400, 'invalid_parameter'],
      [
        'a string for a boolean-free schema',
        { 'content-type': 'application/json' },
        '{"name": "x", "plan": "agency"}',
        400,
        'invalid_parameter',
      ],
      [
        'a body over 1 MB',
        { 'content-type': 'application/json' },
        JSON.stringify({ name: 'x'.repeat(1_100_000) }),
        413,
        'body_too_large',
      ],
      [
        'JSON with a charset parameter in odd case',
        { 'Content-Type': 'Application/JSON; Charset=UTF-8' },
        '{"name": 5}',
        400,
        'invalid_parameter',
      ],
    ])('%s gets a clear 4xx', async (_name, headers, payload, status, code) => {
      const before = await tenantCount();
      const response = await t.inject({ method: 'POST', url: '/api/tenants/', token: agency.token, headers, payload });
      expect(response.statusCode).toBe(status);
      expect(response.json().error.code).toBe(code);
      expect(response.json().api_meta.request_id).toBe(response.headers['x-request-id']);
      expect(await tenantCount()).toBe(before);
    });
  });

  describe('API keys', () => {
    it('shows the token only at creation, hashes it, and revocation is immediate', async () => {
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

      const used = await t.inject({ method: 'GET', url: '/api/tenants/', token: key.token });
      expect(used.statusCode).toBe(200);

      const list = await t.inject({ method: 'GET', url: '/api/api-keys/', token: other.token });
      expect(list.body).not.toContain(key.token);
      const listed = list.json().results.find((k: { id: string }) => k.id === key.id);
      expect(listed.last_used_at).not.toBeNull();
      expect(listed).not.toHaveProperty('token');

      const stored = await column(`select token_hash as value from api_keys where id = '${key.id}'`);
      expect(stored).toMatch(/^[0-9a-f]{64}$/);
      expect(stored).not.toContain(key.token.slice(4));

      const revoked = await t.inject({ method: 'DELETE', url: `/api/api-keys/${key.id}/`, token: other.token });
      expect(revoked.statusCode).toBe(200);
      expect(revoked.json()).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
      const refused = await t.inject({ method: 'GET', url: '/api/tenants/', token: key.token });
      expect(refused.statusCode).toBe(401);
      expect(refused.json().error.code).toBe('api_key_revoked');
      const again = await t.inject({ method: 'DELETE', url: `/api/api-keys/${key.id}/`, token: other.token });
      expect(again.json().status).toBe('revoked');
    });

    it('writes last_used_at in batches, not per request', async () => {
      const key = await t.keys.create(other.tenantId, { name: 'batch' });
      await t.inject({ method: 'GET', url: '/api/tenants/', token: key.token });
      const query = `select last_used_at as value from api_keys where id = '${key.id}'`;
      expect(await column(query)).toBeNull();
      await t.app.services.auth.flushLastUsed();
      expect(await column(query)).not.toBeNull();
    });

    it('refuses expired keys and past expiry dates', async () => {
      const past = await t.inject({
        method: 'POST',
        url: '/api/api-keys/',
        token: other.token,
        payload: { name: 'old', expires_at: '2020-01-01T00:00:00Z' },
      });
      expect(past.statusCode).toBe(400);
      expect(past.json().error.param).toBe('expires_at');
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

    it("cannot revoke or see another tenant's key", async () => {
      const revoke = await t.inject({ method: 'DELETE', url: `/api/api-keys/${agency.keyId}/`, token: other.token });
      expect(revoke.statusCode).toBe(404);
      expect((await t.inject({ method: 'GET', url: '/api/tenants/', token: agency.token })).statusCode).toBe(200);
    });
  });
});
