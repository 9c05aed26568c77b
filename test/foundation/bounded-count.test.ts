import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNT_BOUND } from '../../src/lib/count-bound.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';

// Lists count only up to a bound (src/lib/count-bound.ts), so a count never reads a whole table; past the bound the
// envelope says `count_estimated: true` and its count is a lower bound. Shown on the events list; every list shares it
// but the active tenants, counted exactly from the caller's `client_count`.
describe.each(backends)('bounded list counts on %s', (backend) => {
  let t: TestApp;
  let tenant: { tenantId: string; token: string };
  const total = COUNT_BOUND + 30;

  beforeAll(async () => {
    t = await startTestApp(backend, { runWorkers: false });
    tenant = await t.tenantWithKey('business');
    await t.database.db.execute(sql`insert into events (id, tenant_id, type, object_type, object_id, data, created_at)
      select 'evt_count' || lpad(i::text, 8, '0'), ${tenant.tenantId}, 'container.status_changed', 'container',
             'ctr_x', '{}', now() - make_interval(secs => i)
      from generate_series(1, ${total}::int) i`);
  }, 60_000);
  afterAll(() => t?.close());

  const page = async (query: string) => {
    const response = await t.inject({ method: 'GET', url: `/api/events/?${query}`, token: tenant.token });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };

  describe('listEvents · GET /api/events/', () => {
    it('stops counting past the bound and says the count is a lower bound', async () => {
      const first = await page('page_size=20');
      expect(first).toMatchObject({
        count: COUNT_BOUND + 1,
        count_estimated: true,
        total_pages: Math.ceil((COUNT_BOUND + 1) / 20),
      });
      expect(first.next).toContain('page=2');
      expect(first.results).toHaveLength(20);
    });

    it('counts on past the end of a page beyond the bound, so its next link is right', async () => {
      const beyond = await page(`page_size=20&page=${COUNT_BOUND / 20 + 1}`);
      expect(beyond).toMatchObject({ count: COUNT_BOUND + 21, count_estimated: true });
      expect(beyond.next).toContain(`page=${COUNT_BOUND / 20 + 2}`);
      const last = await page(`page_size=20&page=${COUNT_BOUND / 20 + 2}`);
      expect(last).toMatchObject({ count: total, total_pages: COUNT_BOUND / 20 + 2, next: null });
      expect(last).not.toHaveProperty('count_estimated');
      expect(last.results).toHaveLength(10);
    });

    it('counts exactly below the bound', async () => {
      const filtered = await page('type=domain.verified');
      expect(filtered).toMatchObject({ count: 0, total_pages: 0, next: null, results: [] });
      expect(filtered).not.toHaveProperty('count_estimated');
    });
  });

  describe('listTenants · GET /api/tenants/', () => {
    let agency: { tenantId: string; token: string };
    const tenants = async (query: string) => {
      const response = await t.inject({ method: 'GET', url: `/api/tenants/?${query}`, token: agency.token });
      expect(response.statusCode, response.body).toBe(200);
      return response.json();
    };

    beforeAll(async () => {
      agency = await t.tenantWithKey('partner');
      await t.database.db.execute(sql`insert into tenants (id, name, plan_id, parent_id, status)
        select 'ten_' || lpad(i::text, 26, '0'), 'Client ' || i, 'free', ${agency.tenantId},
               case when i % 10 = 0 then 'archived' else 'active' end
        from generate_series(1, ${total}::int) i`);
    }, 60_000);

    const clientId = (i: number) => `ten_${String(i).padStart(26, '0')}`;
    const activeClients = total - Math.floor(total / 10);

    it('counts active tenants exactly past the bound, from the maintained client count', async () => {
      const first = await tenants('page_size=50');
      expect(first).toMatchObject({ count: activeClients + 1, total_pages: Math.ceil((activeClients + 1) / 50) });
      expect(first).not.toHaveProperty('count_estimated');
      const byCursor = await tenants(`page_size=50&starting_after=${clientId(2)}`);
      expect(byCursor).toMatchObject({ count: activeClients + 1 });
      expect(byCursor).not.toHaveProperty('count_estimated');
    });

    it('keeps the exact count when a client is archived', async () => {
      const before = (await tenants('status=archived')).count;
      const archive = await t.inject({ method: 'DELETE', url: `/api/tenants/${clientId(1)}/`, token: agency.token });
      expect(archive.statusCode, archive.body).toBeLessThan(300);
      expect((await tenants('page_size=50')).count).toBe(activeClients);
      expect((await tenants('status=archived')).count).toBe(before + 1);
    });

    it('counts all tenants up to the bound', async () => {
      expect(await tenants('status=all')).toMatchObject({ count: COUNT_BOUND + 1, count_estimated: true });
    });
  });
});
