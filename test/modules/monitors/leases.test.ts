import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/db/index.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../../helpers/database.js';
import { startHttpsTarget } from '../../helpers/https-target.js';
import { waitFor } from '../../helpers/processes.js';

describe.runIf(postgresUrl)('two schedulers on one PostgreSQL database', () => {
  let shared: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  let target: Awaited<ReturnType<typeof startHttpsTarget>>;

  beforeAll(async () => {
    target = await startHttpsTarget(() => ({ status: 200, body: 'ok', delayMs: 30 }));
    shared = await createTestDatabase('postgres');
    const second = await openDatabase({ databaseUrl: shared.url, pgliteDataDir: '', poolSize: 5 });
    const config = {
      allowPrivateNetworks: true,
      outboundCaCertificates: [target.ca],
      monitoring: { tickMs: 10, batchSize: 20, maxInFlight: 50, retentionDays: 30 },
    };
    a = await startTestApp('postgres', config, shared);
    b = await startTestApp('postgres', config, { database: second, url: shared.url, drop: () => second.close() });
  }, 60_000);
  afterAll(async () => {
    await a?.app.close();
    await b?.app.close();
    await b?.testDatabase.drop();
    await shared?.drop();
    await target?.close();
  });

  it('runs every due check exactly once although both instances poll every 10 ms', async () => {
    const tenant = await a.tenantWithKey('business');
    const created = await a.inject({
      method: 'POST',
      url: '/api/monitors/',
      token: tenant.token,
      payload: { name: 'Leased', target: { type: 'url', url: target.url('/') }, interval_seconds: 60 },
    });
    const monitorId = created.json().id as string;
    const countChecks = async () => {
      const result = (await a.database.db.execute(
        sql`select count(*)::int as n from monitor_checks where monitor_id = ${monitorId}`,
      )) as unknown as { rows: Array<{ n: number }> };
      return result.rows[0].n;
    };
    await waitFor(async () => (await countChecks()) === 1, 5000, 'the first check');
    const rounds = 8;
    for (let round = 2; round <= rounds + 1; round++) {
      await a.database.db.execute(sql`update monitors set next_check_at = now() where id = ${monitorId}`);
      await waitFor(async () => (await countChecks()) >= round, 5000, `check ${round}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await countChecks()).toBe(rounds + 1);
    expect(target.received.length).toBe(rounds + 1);
    const owners = (await a.database.db.execute(
      sql`select lease_owner from monitors where id = ${monitorId}`,
    )) as unknown as { rows: Array<{ lease_owner: string | null }> };
    expect(owners.rows[0].lease_owner).toBeNull();
  });
});
