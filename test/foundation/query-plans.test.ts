import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/index.js';
import * as schema from '../../src/db/schema.js';
import { newId } from '../../src/lib/ids.js';
import * as reportQueries from '../../src/modules/reports/queries.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../helpers/database.js';

// Query plans at scale: 100k rows in each big table on PostgreSQL (seeded in SQL with generate_series), then every
// list and report query the API runs is captured (Drizzle's query logger) and EXPLAINed. It fails on a sequential scan
// of a big table, and on a sort that no index provides whose input is larger than both SORT_ROWS_ALLOWED and the
// query's result: rows sorted only to be thrown away (a page picked from a sorted slice, a GROUP BY over another
// table's rows). A report that returns every scan of a period may sort what it returns. PostgreSQL only
// (TEST_DATABASE_URL): plans at this size are the PostgreSQL planner's; the test seeds nothing on PGlite.

const ROWS = 100_000;
const GTM_CONFIG = Buffer.from('id=GTM-ABC1234&env=1&auth=abcdefghij').toString('base64');
const BIG_TABLES = [
  'tenants',
  'scans',
  'monitor_checks',
  'events',
  'container_request_logs',
  'container_usage',
  'webhook_deliveries',
];
/** Sorting a bounded set is fine: one tenant's monitors, one container's sampled logs (the gateway keeps 1,000). */
const SORT_ROWS_ALLOWED = 2_000;

interface Captured {
  sql: string;
  params: unknown[];
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Plan Rows': number;
  'Sort Key'?: string[];
  Filter?: string;
  'Index Cond'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/**
 * A keyset condition `(sort_key, id) < (…)` left as a filter of a scan that does not start at the cursor: no bound on
 * the sort key in its index condition, so it reads every row before the cursor's and a deep page costs more than
 * page 1. (The planner may walk a time index from the cursor on and filter the tenant's rows: that costs the same
 * at any depth.) A primary key lookup (the caller's own tenant) reads one row.
 */
function keysetFiltered(node: PlanNode): string[] {
  const startsAtCursor = /[<>]/.test(node['Index Cond'] ?? '') || node['Index Name']?.endsWith('_pkey');
  const here =
    node.Filter?.includes('ROW(') && node['Relation Name'] && !startsAtCursor
      ? [`cursor condition filtered on ${node['Relation Name']}, not an index condition: ${node.Filter}`]
      : [];
  return [...here, ...(node.Plans ?? []).flatMap(keysetFiltered)];
}

/** What is wrong with a plan: sequential scans of big tables, and big sorts of more rows than the query returns. */
function planProblems(node: PlanNode, bigTables: Set<string>, resultRows = node['Plan Rows']): string[] {
  const problems: string[] = [];
  if (node['Node Type'] === 'Seq Scan' && bigTables.has(node['Relation Name'] ?? ''))
    problems.push(`Seq Scan on ${node['Relation Name']}`);
  const input = node.Plans?.[0]?.['Plan Rows'] ?? 0;
  if (node['Node Type'] === 'Sort' && input > Math.max(SORT_ROWS_ALLOWED, resultRows))
    problems.push(`Sort of ~${input} rows by ${node['Sort Key']?.join(', ')} for ~${resultRows} result rows`);
  for (const child of node.Plans ?? []) problems.push(...planProblems(child, bigTables, resultRows));
  return problems;
}

// Each test sends dozens of requests and EXPLAINs each statement: seconds here, far more on a loaded CI machine.
describe.skipIf(!postgresUrl)('query plans with 100k rows per big table (PostgreSQL)', { timeout: 180_000 }, () => {
  let testDatabase: TestDatabase;
  let pool: pg.Pool;
  let app: TestApp;
  const captured: Captured[] = [];
  let capturing = false;
  let db: Db;
  const ids = {
    agency: '',
    other: '',
    token: '',
    container: newId('container'),
    otherContainer: newId('container'),
    monitor: newId('monitor'),
    otherMonitor: newId('monitor'),
    webhook: newId('webhook'),
    otherWebhook: newId('webhook'),
  };

  beforeAll(async () => {
    testDatabase = await createTestDatabase('postgres');
    pool = new pg.Pool({ connectionString: testDatabase.url!, max: 4 });
    db = drizzle(pool, {
      schema,
      logger: { logQuery: (sql, params) => void (capturing && captured.push({ sql, params })) },
    }) as unknown as Db;
    app = await startTestApp(
      'postgres',
      { runWorkers: false },
      { ...testDatabase, database: { ...testDatabase.database, db } },
    );
    const agency = await app.tenantWithKey('agency');
    ids.agency = agency.tenantId;
    ids.token = agency.token;
    ids.other = (await app.tenants.create({ name: 'Other', plan: 'pro', parentId: null })).id;
    await seed(pool, ids);
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await pool?.end();
    await testDatabase?.drop();
  });

  async function capture(run: () => Promise<unknown>): Promise<Captured[]> {
    captured.length = 0;
    capturing = true;
    try {
      await run();
    } finally {
      capturing = false;
    }
    return [...captured];
  }

  async function explain(statement: Captured, keyset: boolean): Promise<string[]> {
    const { rows } = await pool.query(`explain (format json) ${statement.sql}`, statement.params);
    const plan = rows[0]['QUERY PLAN'][0].Plan as PlanNode;
    return [...planProblems(plan, new Set(BIG_TABLES)), ...(keyset ? keysetFiltered(plan) : [])];
  }

  async function problemsOf(statements: Captured[], keyset = false): Promise<string[]> {
    const problems: string[] = [];
    for (const statement of statements.filter((s) => /^[\s(]*(select|with|delete)/i.test(s.sql))) {
      const found = await explain(statement, keyset);
      if (found.length === 0) continue;
      const { rows } = await pool.query(`explain ${statement.sql}`, statement.params);
      const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
      problems.push(...found.map((problem) => `${problem}\n    in: ${statement.sql}\n${plan}`));
    }
    return problems;
  }

  const lists = () => [
    '/api/tenants/',
    '/api/tenants/?status=all',
    '/api/tenants/?status=archived',
    '/api/api-keys/',
    '/api/v1/tracking-checker/scans/',
    '/api/containers/',
    `/api/containers/${ids.container}/logs/`,
    `/api/containers/${ids.container}/logs/?status_class=5xx`,
    `/api/containers/${ids.container}/logs/?path_prefix=/g/collect`,
    `/api/containers/${ids.container}/usage/`,
    '/api/domains/',
    '/api/events/',
    `/api/events/?object_id=${ids.container}`,
    '/api/events/?type=container.status_changed',
    '/api/monitors/',
    `/api/monitors/${ids.monitor}/checks/`,
    `/api/monitors/${ids.monitor}/stats/`,
    '/api/incidents/',
    '/api/incidents/?status=open',
    `/api/incidents/?monitor_id=${ids.monitor}`,
    '/api/webhooks/',
    `/api/webhooks/${ids.webhook}/deliveries/`,
    '/api/reports/',
  ];

  it('every list reads through indexes, page 1 and a later page', async () => {
    const problems: string[] = [];
    for (const path of lists()) {
      for (const page of ['', 'page=40']) {
        const url = page ? `${path}${path.includes('?') ? '&' : '?'}${page}` : path;
        const statements = await capture(async () => {
          const response = await app.inject({ method: 'GET', url, token: ids.token });
          expect.soft(response.statusCode, `${url}: ${response.body}`).toBe(200);
        });
        problems.push(...(await problemsOf(statements)).map((problem) => `GET ${url}: ${problem}`));
      }
    }
    expect(problems).toEqual([]);
  });

  it('every list by cursor reads through an index from the cursor on, deep in the list', async () => {
    const problems: string[] = [];
    let paged = 0;
    for (const path of lists()) {
      const separator = path.includes('?') ? '&' : '?';
      const deep = await app.inject({ method: 'GET', url: `${path}${separator}page=40`, token: ids.token });
      const results = (deep.json() as { results?: Record<string, string>[] }).results;
      if (!results?.length) continue;
      const last = results.at(-1)!;
      const cursor = last.id ?? last.scan_id;
      paged++;
      for (const param of ['starting_after', 'ending_before']) {
        const url = `${path}${separator}${param}=${cursor}`;
        const statements = await capture(async () => {
          const response = await app.inject({ method: 'GET', url, token: ids.token });
          expect.soft(response.statusCode, `${url}: ${response.body}`).toBe(200);
        });
        problems.push(...(await problemsOf(statements, true)).map((problem) => `GET ${url}: ${problem}`));
        if (process.env.PRINT_PLANS)
          for (const st of statements.filter((x) => /limit/.test(x.sql))) {
            const { rows } = await pool.query(`explain (analyze, costs off) ${st.sql}`, st.params);
            console.log(`PLAN ${url}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`);
          }
      }
    }
    expect(paged, 'lists with a 40th page to page from').toBeGreaterThanOrEqual(10);
    expect(problems).toEqual([]);
  });

  it('no list runs a query per row: a page of 100 takes as many statements as a page of 1', async () => {
    // Reads only: a buffered `last_used_at` flush may land in the window. The fewer of two calls in a row: the
    // cached key (60 s) may expire during either, which adds its lookup to that one call (a loaded CI machine runs
    // this file for longer than the cache lasts).
    const selectsOf = async (url: string) =>
      (await capture(() => app.inject({ method: 'GET', url, token: ids.token }))).filter((s) =>
        /^[\s(]*select/i.test(s.sql),
      ).length;
    const statementsFor = async (url: string) => Math.min(await selectsOf(url), await selectsOf(url));
    await statementsFor('/api/tenants/');
    const perRow: string[] = [];
    for (const path of lists()) {
      const separator = path.includes('?') ? '&' : '?';
      const one = await statementsFor(`${path}${separator}page_size=1`);
      const hundred = await statementsFor(`${path}${separator}page_size=100`);
      if (hundred !== one) perRow.push(`GET ${path}: ${one} statements for 1 row, ${hundred} for 100`);
    }
    expect(perRow).toEqual([]);
  });

  it('every report reads only the tenant’s rows through an index', async () => {
    const end = new Date();
    const start = new Date(end.getTime() - 30 * 86_400_000);
    const problems: string[] = [];
    for (const [name, build] of Object.entries({
      uptime: () => reportQueries.uptimeRows(db, ids.agency, start, end),
      usage: () => reportQueries.usageRows(db, ids.agency, start, end),
      scans: () => reportQueries.scanRows(db, ids.agency, start, end),
    })) {
      problems.push(...(await problemsOf(await capture(build))).map((problem) => `${name} report: ${problem}`));
    }
    expect(problems).toEqual([]);
  });

  it('retention deletes read each table oldest first through an index', async () => {
    const statements = await capture(() => app.app.services.retention.pruneOnce());
    const deletes = new Set(
      statements.map((statement) => statement.sql).filter((text) => /\bdelete from\b/i.test(text)),
    );
    expect(deletes.size, 'one statement per table: checks, events, request logs, usage, Meta deliveries').toBe(5);
    expect(await problemsOf(statements)).toEqual([]);
  });
});

/** 100k rows per big table, a fifth of them the agency's (half of the tenants are its clients), in SQL (seconds, not minutes through the API). */
async function seed(pool: pg.Pool, ids: Record<string, string>) {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query(
      `insert into tenants (id, name, plan_id, parent_id, status, created_at, updated_at)
       select 'ten_seed' || lpad(i::text, 8, '0'), 'Client ' || i, 'free', case when i % 2 = 0 then $1 end,
              case when i % 10 = 0 then 'archived' else 'active' end, now() - make_interval(secs => i), now()
       from generate_series(1, $2::int) i`,
      [ids.agency, ROWS],
    );
    await client.query(
      `insert into containers (id, tenant_id, name, region, status, config, default_hostname)
       values ($1, $3, 'web', 'eu-central', 'running', $5, $1 || '.containers.test'),
              ($2, $4, 'web', 'eu-central', 'running', $5, $2 || '.containers.test')`,
      [ids.container, ids.otherContainer, ids.agency, ids.other, GTM_CONFIG],
    );
    await client.query(
      `insert into monitors (id, tenant_id, name, target_type, url, method, interval_seconds, timeout_ms,
                             expected_status_codes, confirmation_checks, status, created_at)
       select case i when 1 then $1 when 2 then $2 else 'mon_seed' || lpad(i::text, 8, '0') end,
              case when i % 2 = 1 then $3 else $4 end, 'Monitor ' || i, 'url', 'https://example.test/', 'GET', 60,
              5000, '[200]', 2, 'up', now() - make_interval(secs => i)
       from generate_series(1, 400) i`,
      [ids.monitor, ids.otherMonitor, ids.agency, ids.other],
    );
    // A fifth of the checks are the agency's: half of those on one monitor (its checks list), the rest spread over
    // its other monitors; the other tenant's over the other half of the monitors (odd numbers: the agency's).
    await client.query(
      `insert into monitor_checks (id, monitor_id, tenant_id, checked_at, result, status_code, latency_ms)
       select 'chk_seed' || lpad(i::text, 8, '0'),
              case when i % 10 = 0 then $1
                   when i % 5 = 0 then 'mon_seed' || lpad((3 + 2 * (i / 10 % 198))::text, 8, '0')
                   when i % 7 = 0 then $2
                   else 'mon_seed' || lpad((4 + 2 * (i % 198))::text, 8, '0') end,
              case when i % 5 = 0 then $3 else $4 end, now() - make_interval(secs => i * 30),
              case when i % 50 = 0 then 'down' else 'up' end, 200, 20 + i % 300
       from generate_series(1, $5::int) i`,
      [ids.monitor, ids.otherMonitor, ids.agency, ids.other, ROWS],
    );
    await client.query(
      `insert into incidents (id, tenant_id, monitor_id, status, cause, opened_at, resolved_at)
       select 'inc_seed' || lpad(i::text, 8, '0'), case when i % 2 = 0 then $1 else $2 end,
              case when i % 2 = 0 then $3 else $4 end, 'resolved', 'timeout', now() - make_interval(mins => i), now()
       from generate_series(1, 2000) i`,
      [ids.agency, ids.other, ids.monitor, ids.otherMonitor],
    );
    await client.query(
      `insert into scans (id, tenant_id, url, language, options, status, created_at)
       select 'scn_seed' || lpad(i::text, 8, '0'), case when i % 5 = 0 then $1 else $2 end,
              'https://shop.test/' || i, 'en', '{"ai_summary": false, "pagespeed": false}', 'completed',
              now() - make_interval(secs => i * 20)
       from generate_series(1, $3::int) i`,
      [ids.agency, ids.other, ROWS],
    );
    await client.query(
      `insert into events (id, tenant_id, type, object_type, object_id, data, created_at)
       select 'evt_seed' || lpad(i::text, 8, '0'), case when i % 5 = 0 then $1 else $2 end,
              case when i % 3 = 0 then 'container.status_changed' else 'domain.verified' end, 'container',
              case when i % 20 = 0 then $3 else 'ctr_seed' || (i % 500) end, '{}', now() - make_interval(secs => i * 10)
       from generate_series(1, $4::int) i`,
      [ids.agency, ids.other, ids.container, ROWS],
    );
    // The gateway keeps the newest 1,000 sampled logs per container: 100 containers at that limit.
    await client.query(
      `insert into container_request_logs (id, container_id, at, hostname, method, path, status_code, duration_ms)
       select 'log_seed' || lpad(i::text, 8, '0'), case when i % 100 = 0 then $1 else 'ctr_seed' || (i % 100) end,
              now() - make_interval(secs => i), 'www.shop.test', 'GET',
              case when i % 3 = 0 then '/g/collect?v=2' else '/gtm.js' end,
              case when i % 700 = 0 then 502 else 200 end, 5
       from generate_series(1, $2::int) i`,
      [ids.container, ROWS],
    );
    await client.query(
      `insert into container_usage (container_id, day, hostname, status_class, requests)
       select case when i % 2 = 0 then $1 else $2 end,
              to_char(current_date - (i / 80), 'YYYY-MM-DD'), 'host' || (i / 2 % 10) || '.shop.test',
              (i / 20 % 4 + 2) || 'xx', 100
       from generate_series(0, $3::int - 1) i`,
      [ids.container, ids.otherContainer, ROWS],
    );
    await client.query(
      `insert into domains (id, tenant_id, container_id, hostname, status, verification_token, created_at)
       select 'dom_seed' || lpad(i::text, 8, '0'), $1, $2, 'shop' || i || '.test', 'active', 'token',
              now() - make_interval(mins => i)
       from generate_series(1, 300) i`,
      [ids.agency, ids.container],
    );
    await client.query(
      `insert into webhooks (id, tenant_id, url, event_types, secret)
       values ($1, $3, 'https://hooks.test/', '["monitor.down"]', 'whsec_x'),
              ($2, $4, 'https://hooks.test/', '["monitor.down"]', 'whsec_x')`,
      [ids.webhook, ids.otherWebhook, ids.agency, ids.other],
    );
    await client.query(
      `insert into webhook_deliveries (id, webhook_id, tenant_id, event_id, event_type, payload, status, created_at)
       select 'dlv_seed' || lpad(i::text, 8, '0'), case when i % 5 = 0 then $1 else $2 end,
              case when i % 5 = 0 then $3 else $4 end, 'evt_' || i, 'monitor.down', '{}', 'succeeded',
              now() - make_interval(secs => i * 10)
       from generate_series(1, $5::int) i`,
      [ids.webhook, ids.otherWebhook, ids.agency, ids.other, ROWS],
    );
    await client.query(
      `insert into reports (id, tenant_id, kind, format, period_start, period_end, status, created_at)
       select 'rpt_seed' || lpad(i::text, 8, '0'), case when i % 2 = 0 then $1 else $2 end, 'uptime', 'json',
              now() - interval '30 days', now(), 'ready', now() - make_interval(mins => i)
       from generate_series(1, 2000) i`,
      [ids.agency, ids.other],
    );
    await client.query('commit');
    await client.query('vacuum analyze');
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
