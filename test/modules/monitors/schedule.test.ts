import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/db/index.js';
import { MONITOR_CHECKS } from '../../../src/modules/monitors/checks.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../../helpers/database.js';
import { startHttpsTarget } from '../../helpers/https-target.js';
import { waitFor } from '../../helpers/processes.js';

const MONITORS = 4;
const INTERVAL_SECONDS = 2;
const CHECKS_EACH = 4;

describe.runIf(postgresUrl)('monitor checks on two job engine workers of one PostgreSQL database', () => {
  let shared: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  let target: Awaited<ReturnType<typeof startHttpsTarget>>;

  beforeAll(async () => {
    // Checks take a while, so that a schedule measured from when checks end would visibly drift.
    target = await startHttpsTarget(() => ({ status: 200, body: 'ok', delayMs: 120 }));
    shared = await createTestDatabase('postgres');
    const second = await openDatabase({ databaseUrl: shared.url, pgliteDataDir: '', poolSize: 5 });
    const config = { allowPrivateNetworks: true, outboundCaCertificates: [target.ca] };
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

  it('checks each due time of each monitor once, and due times stay on the grid of the first one', async () => {
    const tenant = await a.tenants.create({ name: 'Scheduled', plan: 'business' });
    const db = a.database.db;
    // A short interval (below what the API allows) keeps the test brief; the first due time is off the second.
    const anchor = (
      (await db.execute(sql`select date_trunc('second', now()) + interval '1.237 seconds' as anchor`)) as unknown as {
        rows: Array<{ anchor: string | Date }>;
      }
    ).rows[0].anchor;
    await db.execute(sql`
      insert into monitors (id, tenant_id, name, target_type, url, method, interval_seconds, timeout_ms,
                            expected_status_codes, confirmation_checks, status, next_check_at)
      select 'monitor_grid_' || n, ${tenant.id}, 'Grid ' || n, 'url', ${target.url('/')}, 'GET', ${INTERVAL_SECONDS},
             5000, '["2xx"]'::jsonb, 2, 'pending', ${anchor}::timestamptz
        from generate_series(1, ${MONITORS}) as n`);
    const checks = async () =>
      (
        (await db.execute(sql`
          select monitor_id, due_at, checked_at from monitor_checks
           where monitor_id like 'monitor_grid_%' order by monitor_id, due_at`)) as unknown as {
          rows: Array<{ monitor_id: string; due_at: string | Date; checked_at: string | Date }>;
        }
      ).rows;
    await waitFor(async () => (await checks()).length >= MONITORS * CHECKS_EACH, 30_000, 'the checks');
    await db.execute(sql`update monitors set paused = true where id like 'monitor_grid_%'`);
    // Checks queued ahead of their due time find their monitor paused and end without checking (generous: a
    // loaded machine may take a while to poll and finish them).
    await a.app.services.jobs.idle([MONITOR_CHECKS], 45_000);

    const rows = await checks();
    // Every HTTP check the two workers ran is one recorded check: none ran twice.
    expect(target.received.length).toBe(rows.length);
    const anchorMs = new Date(anchor).getTime();
    for (let n = 1; n <= MONITORS; n++) {
      const dueTimes = rows
        .filter((row) => row.monitor_id === `monitor_grid_${n}`)
        .map((row) => new Date(row.due_at).getTime());
      expect(dueTimes.length).toBeGreaterThanOrEqual(CHECKS_EACH - 1);
      expect(new Set(dueTimes).size).toBe(dueTimes.length);
      // No drift: every due time is the first one plus whole intervals, however long the checks took.
      for (const due of dueTimes) expect((due - anchorMs) % (INTERVAL_SECONDS * 1000)).toBe(0);
    }
    for (const row of rows)
      expect(new Date(row.checked_at).getTime()).toBeGreaterThanOrEqual(new Date(row.due_at).getTime());
    const next = (
      (await db.execute(sql`select next_check_at from monitors where id like 'monitor_grid_%'`)) as unknown as {
        rows: Array<{ next_check_at: string | Date }>;
      }
    ).rows;
    for (const row of next)
      expect((new Date(row.next_check_at).getTime() - anchorMs) % (INTERVAL_SECONDS * 1000)).toBe(0);
  }, 120_000);
});

describe.runIf(postgresUrl)('a monitor check whose worker died', () => {
  let shared: TestDatabase;
  let a: TestApp;
  let b: TestApp | undefined;
  let target: Awaited<ReturnType<typeof startHttpsTarget>>;
  const state = { hang: true };
  // Supervision every second: a job whose worker stopped heartbeating goes back to the queue soon after. Nothing
  // announces a job supervision retries, so the second worker finds it by its backstop poll (every 2 s here).
  const config = () => ({
    allowPrivateNetworks: true,
    outboundCaCertificates: [target.ca],
    jobs: { pollMs: 500, backstopPollMs: 2000, superviseSeconds: 1 },
  });

  beforeAll(async () => {
    target = await startHttpsTarget(() => (state.hang ? 'hang' : { status: 200, body: 'ok' }));
    shared = await createTestDatabase('postgres');
    a = await startTestApp('postgres', config(), shared);
  }, 60_000);
  afterAll(async () => {
    await b?.app.close();
    await b?.testDatabase.drop();
    await target?.close();
    await a?.app.close();
    await shared?.drop();
  });

  it('is run by another worker, once, for the same due time', async () => {
    const tenant = await a.tenants.create({ name: 'Orphaned', plan: 'business' });
    const db = a.database.db;
    await db.execute(sql`
      insert into monitors (id, tenant_id, name, target_type, url, method, interval_seconds, timeout_ms,
                            expected_status_codes, confirmation_checks, status, next_check_at)
      values ('monitor_orphan', ${tenant.id}, 'Orphan', 'url', ${target.url('/')}, 'GET', 3600, 20000,
              '["2xx"]'::jsonb, 1, 'pending', now())`);
    await waitFor(async () => target.received.length === 1, 15_000, 'the first worker to take the check');
    // The worker "dies" holding the check: it stops without handing the job back and heartbeats no more.
    await a.app.services.jobs.stop({ graceful: false });
    state.hang = false;
    const second = await openDatabase({ databaseUrl: shared.url, pgliteDataDir: '', poolSize: 5 });
    b = await startTestApp('postgres', config(), { database: second, url: shared.url, drop: () => second.close() });
    const checks = async () =>
      (
        (await db.execute(
          sql`select due_at, result from monitor_checks where monitor_id = 'monitor_orphan'`,
        )) as unknown as { rows: Array<{ due_at: string | Date; result: string }> }
      ).rows;
    await waitFor(async () => (await checks()).length > 0, 40_000, 'the check on the second worker');
    const [check] = await checks();
    expect(check.result).toBe('up');
    expect(target.received.length).toBe(2);
    const { rows } = (await db.execute(
      sql`select next_check_at from monitors where id = 'monitor_orphan'`,
    )) as unknown as { rows: Array<{ next_check_at: string | Date }> };
    expect(new Date(rows[0].next_check_at).getTime() - new Date(check.due_at).getTime()).toBe(3600 * 1000);
  }, 90_000);
});
