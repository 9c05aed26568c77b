import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

describe.each(backends)('tenants on %s', (backend) => {
  let t: TestApp;
  let agency: { tenantId: string; token: string; keyId: string };
  let other: { tenantId: string; token: string; keyId: string };

  beforeAll(async () => {
    t = await startTestApp(backend);
    agency = await t.tenantWithKey('agency');
    other = await t.tenantWithKey('pro');
  });
  afterAll(() => t?.close());

  /** A client tenant of the agency, and an owner key for it made by the agency with Tagport-Tenant. */
  async function clientWithKey(name = 'Client GmbH', plan = 'business'): Promise<{ id: string; token: string }> {
    const created = await t.inject({
      method: 'POST',
      url: '/api/tenants/',
      token: agency.token,
      payload: { name, plan },
    });
    expect(created.statusCode, created.body).toBe(201);
    const key = await t.inject({
      method: 'POST',
      url: '/api/api-keys/',
      token: agency.token,
      headers: { 'tagport-tenant': created.json().id },
      payload: { name: 'client key', role: 'owner' },
    });
    expect(key.statusCode, key.body).toBe(201);
    return { id: created.json().id, token: key.json().token };
  }

  describe('createClientTenant · POST /api/tenants/', () => {
    it('creates a client tenant under the agency', async () => {
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
    });

    it('refuses client creation for non-agency plans with 403 clients_not_allowed', async () => {
      const response = await t.inject({
        method: 'POST',
        url: '/api/tenants/',
        token: other.token,
        payload: { name: 'Nope' },
      });
      expect(response.statusCode).toBe(403);
      expect(response.json().error.code).toBe('clients_not_allowed');
    });
  });

  describe('listTenants · GET /api/tenants/', () => {
    it('shows another tenant only its own tenant', async () => {
      const list = (await t.inject({ method: 'GET', url: '/api/tenants/', token: other.token })).json();
      expect(list.results.map((r: { id: string }) => r.id)).toEqual([other.tenantId]);
    });

    it("shows a client's key only the client", async () => {
      const client = await clientWithKey();
      const clientView = (await t.inject({ method: 'GET', url: '/api/tenants/', token: client.token })).json();
      expect(clientView.results.map((r: { id: string }) => r.id)).toEqual([client.id]);
    });

    it('lists archived clients with status=archived', async () => {
      const client = await clientWithKey();
      await t.inject({ method: 'DELETE', url: `/api/tenants/${client.id}/`, token: agency.token });
      const listed = (
        await t.inject({ method: 'GET', url: '/api/tenants/?status=archived', token: agency.token })
      ).json();
      expect(listed.results.map((r: { id: string }) => r.id)).toContain(client.id);
    });
  });

  describe('getTenant · GET /api/tenants/:id/', () => {
    it('never shows another tenant: 404, not 403', async () => {
      const response = await t.inject({ method: 'GET', url: `/api/tenants/${agency.tenantId}/`, token: other.token });
      expect(response.statusCode).toBe(404);
      expect(response.json().error.type).toBe('not_found_error');
    });

    it("answers 404 to a client's key asking for its agency", async () => {
      const client = await clientWithKey();
      const parentFromClient = await t.inject({
        method: 'GET',
        url: `/api/tenants/${agency.tenantId}/`,
        token: client.token,
      });
      expect(parentFromClient.statusCode).toBe(404);
    });

    it("answers 404 to another tenant asking for an agency's client", async () => {
      const client = await clientWithKey();
      const fromOther = await t.inject({ method: 'GET', url: `/api/tenants/${client.id}`, token: other.token });
      expect(fromOther.statusCode).toBe(404);
    });

    it('answers 400 naming id for a malformed id', async () => {
      const badId = await t.inject({ method: 'GET', url: '/api/tenants/not-an-id/', token: other.token });
      expect(badId.statusCode).toBe(400);
      expect(badId.json().error.param).toBe('id');
    });
  });

  describe('updateTenant · PATCH /api/tenants/:id/', () => {
    it('never changes another tenant: 404, not 403', async () => {
      const response = await t.inject({
        method: 'PATCH',
        url: `/api/tenants/${agency.tenantId}/`,
        token: other.token,
        payload: { name: 'x' },
      });
      expect(response.statusCode).toBe(404);
      expect(response.json().error.type).toBe('not_found_error');
    });

    it("lets the agency change a client's plan and feature overrides", async () => {
      const client = await clientWithKey();
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
    });

    it('refuses a client changing its own plan with 403 plan_change_not_allowed', async () => {
      const client = await clientWithKey();
      const selfUpgrade = await t.inject({
        method: 'PATCH',
        url: `/api/tenants/${client.id}/`,
        token: client.token,
        payload: { plan: 'business' },
      });
      expect(selfUpgrade.statusCode).toBe(403);
      expect(selfUpgrade.json().error.code).toBe('plan_change_not_allowed');
    });

    it('renames a tenant', async () => {
      const renamed = await t.inject({
        method: 'PATCH',
        url: `/api/tenants/${other.tenantId}/`,
        token: other.token,
        payload: { name: 'Renamed Ltd' },
      });
      expect(renamed.json().name).toBe('Renamed Ltd');
    });

    it.each([{}, { name: '' }, { name: '   ' }, { name: 42 }, { nickname: 'x' }, { plan: 'platinum' }])(
      'rejects the empty or unknown change %j with 400',
      async (payload) => {
        const response = await t.inject({
          method: 'PATCH',
          url: `/api/tenants/${other.tenantId}/`,
          token: other.token,
          payload,
        });
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      },
    );
  });

  describe('archiveTenant · DELETE /api/tenants/:id/', () => {
    it('never archives another tenant: 404, not 403', async () => {
      const response = await t.inject({
        method: 'DELETE',
        url: `/api/tenants/${agency.tenantId}/`,
        token: other.token,
      });
      expect(response.statusCode).toBe(404);
      expect(response.json().error.type).toBe('not_found_error');
    });

    it("archives a client; the client's keys then answer 401 tenant_archived", async () => {
      const client = await clientWithKey();
      const archived = await t.inject({ method: 'DELETE', url: `/api/tenants/${client.id}/`, token: agency.token });
      expect(archived.statusCode).toBe(200);
      expect(archived.json()).toMatchObject({ status: 'archived', archived_at: expect.any(String) });
      const afterArchive = await t.inject({ method: 'GET', url: '/api/tenants/', token: client.token });
      expect(afterArchive.statusCode).toBe(401);
      expect(afterArchive.json().error.code).toBe('tenant_archived');
    });

    it('refuses archiving oneself with 403', async () => {
      const self = await t.inject({ method: 'DELETE', url: `/api/tenants/${other.tenantId}/`, token: other.token });
      expect(self.statusCode).toBe(403);
    });
  });
});
