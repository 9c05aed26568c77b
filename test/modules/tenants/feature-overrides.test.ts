import fs from 'node:fs';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsFolder } from '../../../src/db/index.js';
import { tenants } from '../../../src/db/schema.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

describe.each(backends)('feature overrides on %s', (backend) => {
  let t: TestApp;
  let agency: { tenantId: string; token: string; keyId: string };
  let clientId: string;

  beforeAll(async () => {
    t = await startTestApp(backend, { runWorkers: false });
    agency = await t.tenantWithKey('agency');
    const client = await t.inject({
      method: 'POST',
      url: '/api/tenants/',
      token: agency.token,
      payload: { name: 'Client', plan: 'pro' },
    });
    clientId = client.json().id;
  }, 60_000);
  afterAll(() => t?.close());

  const patch = (feature_overrides: unknown) =>
    t.inject({
      method: 'PATCH',
      url: `/api/tenants/${clientId}/`,
      token: agency.token,
      payload: { feature_overrides },
    });

  describe('updateTenant · PATCH /api/tenants/:id/', () => {
    it.each([
      [
        'a boolean for an integer limit',
        { max_containers: true },
        'feature_overrides.max_containers',
        'invalid_parameter',
      ],
      ['a string for an integer limit', { max_monitors: '5' }, 'feature_overrides.max_monitors', 'invalid_parameter'],
      [
        'a fraction for an integer limit',
        { tracking_checker_api_hourly: 1.5 },
        'feature_overrides.tracking_checker_api_hourly',
        'invalid_parameter',
      ],
      ['a negative limit', { max_containers: -1 }, 'feature_overrides.max_containers', 'invalid_parameter'],
      ['null for a limit', { max_containers: null }, 'feature_overrides.max_containers', 'invalid_parameter'],
      ['a number for a switch', { can_own_clients: 1 }, 'feature_overrides.can_own_clients', 'invalid_parameter'],
      ['an unknown feature', { max_widgets: 3 }, 'feature_overrides.max_widgets', 'unknown_parameter'],
    ])('refuses %s with a 400 naming the feature, and stores nothing', async (_name, overrides, param, code) => {
      const response = await patch(overrides);
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error).toMatchObject({ type: 'invalid_request_error', code, param });
      const [stored] = await t.database.db
        .select({ overrides: tenants.featureOverrides })
        .from(tenants)
        .where(eq(tenants.id, clientId));
      expect(stored.overrides).toEqual({});
    });

    it('accepts integer limits, including the new max_client_tenants', async () => {
      const response = await patch({ max_containers: 7, max_client_tenants: 0 });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().features).toMatchObject({ max_containers: 7, max_client_tenants: 0, max_monitors: 20 });
    });
  });
  it('migration 0005 drops booleans stored for integer limits and keeps the rest', async () => {
    await t.database.db.execute(
      sql`update tenants set feature_overrides = '{"max_containers": true, "max_monitors": 4, "tracking_checker_api_hourly": false}' where id = ${clientId}`,
    );
    const migration = fs.readFileSync(path.join(migrationsFolder, '0005_plan_limits_and_domain_claims.sql'), 'utf8');
    const cleanup = migration
      .split('--> statement-breakpoint')
      .find((statement) => statement.includes('UPDATE "tenants"'))!;
    await t.database.db.execute(sql.raw(cleanup));
    const tenant = (await t.inject({ method: 'GET', url: `/api/tenants/${clientId}/`, token: agency.token })).json();
    expect(tenant.features).toMatchObject({ max_containers: 5, max_monitors: 4, tracking_checker_api_hourly: 60 });
  });
});
