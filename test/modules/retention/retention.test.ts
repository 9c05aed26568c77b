import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/lib/ids.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { backends } from '../../helpers/database.js';

const DAY_MS = 86_400_000;

describe.each(backends)('retention on %s', (backend) => {
  let t: TestApp;
  const monitorId = newId('monitor');
  const containerId = newId('container');
  const now = new Date();
  const daysAgo = (days: number) => new Date(now.getTime() - days * DAY_MS).toISOString();

  beforeAll(async () => {
    t = await startTestApp(backend, {
      runWorkers: false,
      monitoring: { concurrency: 50, retentionDays: 30, trackingConcurrency: 1 },
      retention: {
        eventDays: 90,
        requestLogDays: 30,
        usageDays: 400,
        batchSize: 7,
        maxBatches: 1000,
        intervalMs: 600_000,
      },
    });
    const { tenantId } = await t.tenantWithKey('business');
    const db = t.database.db;
    await db.execute(sql`insert into monitors (id, tenant_id, name, target_type, url, method, interval_seconds,
        timeout_ms, expected_status_codes, confirmation_checks, status)
      values (${monitorId}, ${tenantId}, 'm', 'url', 'https://example.test/', 'GET', 60, 5000, '[200]', 2, 'up')`);
    // Per table: 50 rows past its retention and 20 within it, a day from the edge on each side.
    await db.execute(sql`insert into monitor_checks (id, monitor_id, tenant_id, checked_at, result)
      select 'chk_old' || i, ${monitorId}, ${tenantId}, ${daysAgo(31)}::timestamptz - make_interval(mins => i), 'up'
      from generate_series(1, 50) i
      union all
      select 'chk_new' || i, ${monitorId}, ${tenantId}, ${daysAgo(29)}::timestamptz - make_interval(mins => i), 'up'
      from generate_series(1, 20) i`);
    await db.execute(sql`insert into events (id, tenant_id, type, object_type, object_id, data, created_at)
      select 'evt_old' || i, ${tenantId}, 'domain.verified', 'domain', 'dom_x', '{}'::jsonb, ${daysAgo(91)}::timestamptz
      from generate_series(1, 50) i
      union all
      select 'evt_new' || i, ${tenantId}, 'domain.verified', 'domain', 'dom_x', '{}'::jsonb, ${daysAgo(89)}::timestamptz
      from generate_series(1, 20) i`);
    await db.execute(sql`insert into container_request_logs (id, container_id, at, hostname, method, path,
        status_code, duration_ms)
      select 'log_old' || i, ${containerId}, ${daysAgo(31)}::timestamptz, 'h.test', 'GET', '/', 200, 1
      from generate_series(1, 50) i
      union all
      select 'log_new' || i, ${containerId}, ${daysAgo(29)}::timestamptz, 'h.test', 'GET', '/', 200, 1
      from generate_series(1, 20) i`);
    await db.execute(sql`insert into container_usage (container_id, day, hostname, status_class, requests)
      select ${containerId}, ${daysAgo(401).slice(0, 10)}, 'h' || i || '.test', '2xx', 1 from generate_series(1, 50) i
      union all
      select ${containerId}, ${daysAgo(399).slice(0, 10)}, 'h' || i || '.test', '2xx', 1 from generate_series(1, 20) i`);
  });
  afterAll(() => t?.close());

  const remaining = async (table: string, column: string) => {
    const result = (await t.database.db.execute(
      sql.raw(`select count(*)::int as n, count(*) filter (where ${column} like '%old%')::int as old from ${table}`),
    )) as unknown as { rows: Array<{ n: number; old: number }> };
    return result.rows[0];
  };

  it('deletes checks, events, request logs and usage past their retention, in batches, and keeps the rest', async () => {
    expect(await t.app.services.retention.pruneOnce(now)).toEqual({
      checks: 50,
      events: 50,
      requestLogs: 50,
      usage: 50,
      metaDeliveries: 0,
    });
    expect(await remaining('monitor_checks', 'id')).toEqual({ n: 20, old: 0 });
    expect(await remaining('events', 'id')).toEqual({ n: 20, old: 0 });
    expect(await remaining('container_request_logs', 'id')).toEqual({ n: 20, old: 0 });
    expect((await remaining('container_usage', 'hostname')).n).toBe(20);
    expect(await t.app.services.retention.pruneOnce(now)).toEqual({
      checks: 0,
      events: 0,
      requestLogs: 0,
      usage: 0,
      metaDeliveries: 0,
    });
  });
});
