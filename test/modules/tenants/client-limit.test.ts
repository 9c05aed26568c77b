import { count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenants } from '../../../src/db/schema.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

describe.each(backends)('max_client_tenants on %s', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(backend, { runWorkers: false });
  }, 60_000);
  afterAll(() => t?.close());

  const create = (token: string, name: string) =>
    t.inject({ method: 'POST', url: '/api/tenants/', token, payload: { name } });

  describe('createClientTenant · POST /api/tenants/', () => {
    it.each([
      ['agency', 100],
      ['partner', 1000],
      ['business', 0],
      ['free', 0],
    ])('gives the %s plan max_client_tenants = %i', async (plan, limit) => {
      const tenant = await t.tenantWithKey(plan);
      const self = (
        await t.inject({ method: 'GET', url: `/api/tenants/${tenant.tenantId}/`, token: tenant.token })
      ).json();
      expect(self.features.max_client_tenants).toBe(limit);
    });

    it('lets exactly the limit of parallel creates through and answers the rest 402 plan_limit_reached', async () => {
      const agency = await t.tenantWithKey('agency');
      await t.database.db.execute(
        sql`update tenants set feature_overrides = '{"max_client_tenants": 3}' where id = ${agency.tenantId}`,
      );
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, index) => create(agency.token, `Client ${index}`)),
      );
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses).toEqual([201, 201, 201, 402, 402, 402, 402, 402]);
      const refused = responses.find((response) => response.statusCode === 402)!.json();
      expect(refused.error).toEqual({
        type: 'quota_error',
        code: 'plan_limit_reached',
        message: 'Your plan allows 3 client tenants; archive one or upgrade.',
        details: { limit: 3 },
      });
      const [stored] = await t.database.db
        .select({ clients: count() })
        .from(tenants)
        .where(eq(tenants.parentId, agency.tenantId));
      expect(stored.clients).toBe(3);
    });

    it('reads can_own_clients and max_client_tenants with the tenant’s overrides over its plan', async () => {
      const business = await t.tenantWithKey('business');
      expect((await create(business.token, 'Not allowed')).json().error.code).toBe('clients_not_allowed');
      await t.database.db.execute(
        sql`update tenants set feature_overrides = '{"can_own_clients": true, "max_client_tenants": 1}'
            where id = ${business.tenantId}`,
      );
      const client = await create(business.token, 'Allowed by override');
      expect(client.statusCode, client.body).toBe(201);
      expect(client.json()).toMatchObject({ parent_id: business.tenantId, name: 'Allowed by override', plan: 'free' });
      expect((await create(business.token, 'Over the limit')).json().error.code).toBe('plan_limit_reached');

      const agency = await t.tenantWithKey('agency');
      await t.database.db.execute(
        sql`update tenants set feature_overrides = '{"can_own_clients": false}' where id = ${agency.tenantId}`,
      );
      expect((await create(agency.token, 'Switched off')).json().error.code).toBe('clients_not_allowed');
    });

    it('never lets a client tenant own clients, whatever its features say', async () => {
      const agency = await t.tenantWithKey('agency');
      const client = (await create(agency.token, 'Client')).json();
      await t.database.db.execute(
        sql`update tenants set plan_id = 'agency', feature_overrides = '{"can_own_clients": true}' where id = ${client.id}`,
      );
      const key = await t.inject({
        method: 'POST',
        url: '/api/api-keys/',
        token: agency.token,
        headers: { 'tagport-tenant': client.id },
        payload: { name: 'client key' },
      });
      expect(key.statusCode, key.body).toBe(201);
      const nested = await create(key.json().token, 'Grandchild');
      expect(nested.statusCode, nested.body).toBe(403);
      expect(nested.json().error.code).toBe('clients_not_allowed');
    });

    it('does not count archived clients', async () => {
      const agency = await t.tenantWithKey('agency');
      await t.database.db.execute(
        sql`update tenants set feature_overrides = '{"max_client_tenants": 1}' where id = ${agency.tenantId}`,
      );
      const first = await create(agency.token, 'First');
      expect(first.statusCode).toBe(201);
      expect((await create(agency.token, 'Second')).statusCode).toBe(402);
      expect(
        (await t.inject({ method: 'DELETE', url: `/api/tenants/${first.json().id}/`, token: agency.token })).statusCode,
      ).toBe(200);
      expect((await create(agency.token, 'Third')).statusCode).toBe(201);
      expect((await create(agency.token, 'Fourth')).statusCode).toBe(402);
    });

    it('keeps each parent’s client_count equal to its active clients through creates, archives and deletes', async () => {
      const agency = await t.tenantWithKey('agency');
      const other = await t.tenantWithKey('agency');
      const ids = [];
      for (const name of ['A', 'B', 'C']) ids.push((await create(agency.token, name)).json().id);
      await t.inject({ method: 'DELETE', url: `/api/tenants/${ids[0]}/`, token: agency.token });
      await t.tenants.create({ name: 'By the operator', plan: 'free', parentId: agency.tenantId });
      // Moves and deletes happen only in SQL (support work): the trigger follows them too.
      await t.database.db.execute(sql`update tenants set parent_id = ${other.tenantId} where id = ${ids[1]}`);
      await t.database.db.execute(sql`update tenants set status = 'active' where id = ${ids[0]}`);
      await t.database.db.execute(sql`delete from tenants where id = ${ids[2]}`);
      for (const parent of [agency.tenantId, other.tenantId]) {
        const [kept] = await t.database.db
          .select({ clientCount: tenants.clientCount })
          .from(tenants)
          .where(eq(tenants.id, parent));
        const [counted] = await t.database.db
          .select({ clients: count() })
          .from(tenants)
          .where(sql`${tenants.parentId} = ${parent} and ${tenants.status} = 'active'`);
        expect(kept.clientCount, parent).toBe(counted.clients);
      }
      const [agencyRow] = await t.database.db
        .select({ clientCount: tenants.clientCount })
        .from(tenants)
        .where(eq(tenants.id, agency.tenantId));
      expect(agencyRow.clientCount).toBe(2); // A (archived, then active again) and the operator's
    });

    it('documents the 402 in the OpenAPI document', async () => {
      const document = (await t.inject({ method: 'GET', url: '/api/openapi.json' })).json();
      expect(Object.keys(document.paths['/api/tenants/'].post.responses)).toContain('402');
    });
  });
});
