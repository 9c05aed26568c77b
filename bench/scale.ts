import path from 'node:path';
import pg from 'pg';
import { median, startPostgres, startProcess, tagportCli } from './api.js';

/**
 * `npm run bench scale`: list latency as the data grows, on a private PostgreSQL cluster. For each size it seeds that
 * many client tenants and scans for one agency (in SQL), starts Tagport with its caches off (AUTH_CACHE_TTL_MS=0, so
 * every request reads the database), and times page 1, a deep page by offset (`page`) and the same page by cursor
 * (`starting_after` the last id of the page before it), one request at a time, in interleaved rounds.
 */

const SIZES = (process.env.BENCH_SCALE_SIZES ?? '1000,10000,100000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 60);
const PAGE_SIZE = 20;

export interface ScaleRow {
  list: string;
  rows: number;
  request: string;
  p50_ms: number;
  p90_ms: number;
}

interface Probe {
  list: string;
  request: string;
  url: string;
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
const round = (ms: number) => Math.round(ms * 100) / 100;

async function seed(url: string, agency: string, rows: number) {
  const client = new pg.Client(url);
  await client.connect();
  try {
    await client.query(
      `insert into tenants (id, name, plan_id, parent_id, status, created_at, updated_at)
       select 'ten_scale' || lpad(i::text, 8, '0'), 'Client ' || i, 'free', $1, 'active',
              now() - make_interval(secs => i), now()
       from generate_series(1, $2::int) i`,
      [agency, rows],
    );
    await client.query(
      `insert into scans (id, tenant_id, url, language, options, status, created_at)
       select 'scn_scale' || lpad(i::text, 8, '0'), $1, 'https://shop.test/' || i, 'en',
              '{"ai_summary": false, "pagespeed": false}', 'completed', now() - make_interval(secs => i * 20)
       from generate_series(1, $2::int) i`,
      [agency, rows],
    );
    await client.query('vacuum analyze');
  } finally {
    await client.end();
  }
}

async function timed(url: string, headers: Record<string, string>) {
  const started = performance.now();
  const response = await fetch(url, { headers });
  const body = await response.text();
  if (!response.ok) throw new Error(`${url}: ${response.status} ${body.slice(0, 200)}`);
  return { ms: performance.now() - started, body };
}

/** The deep page by number, and its first item's predecessor as the cursor that reads the same page. */
async function probes(base: string, headers: Record<string, string>, rows: number): Promise<Probe[]> {
  const deep = Math.max(2, Math.floor(rows / PAGE_SIZE / 2));
  const lists = [
    { list: 'tenants', path: '/api/tenants/', id: 'id' },
    { list: 'scans', path: '/api/v1/tracking-checker/scans/', id: 'scan_id' },
  ];
  const result: Probe[] = [];
  for (const { list, path, id } of lists) {
    const before = JSON.parse((await timed(`${base}${path}?page_size=${PAGE_SIZE}&page=${deep - 1}`, headers)).body);
    const cursor = before.results.at(-1)[id];
    result.push(
      { list, request: 'page 1', url: `${base}${path}?page_size=${PAGE_SIZE}` },
      { list, request: `page ${deep} (offset)`, url: `${base}${path}?page_size=${PAGE_SIZE}&page=${deep}` },
      { list, request: `page ${deep} (cursor)`, url: `${base}${path}?page_size=${PAGE_SIZE}&starting_after=${cursor}` },
    );
  }
  return result;
}

async function measureSize(clusterUrl: string, rows: number): Promise<ScaleRow[]> {
  const admin = new pg.Client(clusterUrl);
  await admin.connect();
  const name = `tagport_bench_scale_${rows}`;
  await admin.query(`drop database if exists ${name}`);
  await admin.query(`create database ${name}`);
  const url = clusterUrl.replace(/\/[^/]*$/, `/${name}`);
  const env = { DATABASE_URL: url, LOG_LEVEL: 'warn' };
  let server: Awaited<ReturnType<typeof startProcess>> | undefined;
  try {
    const agency = await tagportCli(env, 'tenants', 'create', '--name', 'Scale Agency', '--plan', 'agency');
    const key = await tagportCli(env, 'keys', 'create', '--tenant', agency.id, '--name', 'bench');
    await seed(url, agency.id, rows);
    server = await startProcess(
      [path.resolve('bin/tagport.js'), 'serve'],
      { ...env, AUTH_CACHE_TTL_MS: '0', RATE_LIMIT_PER_MINUTE: '100000000', GATEWAY_PORT: '0', RUN_WORKERS: 'false' },
      '/readyz',
    );
    const headers = { authorization: `Bearer ${key.token}` };
    const targets = await probes(server.base, headers, rows);
    const samples = new Map(targets.map((probe) => [probe, [] as number[]]));
    for (const probe of targets) for (let i = 0; i < 5; i++) await timed(probe.url, headers); // warm-up
    for (let i = 0; i < ROUNDS; i++)
      for (const probe of targets) samples.get(probe)!.push((await timed(probe.url, headers)).ms);
    return targets.map((probe) => ({
      list: probe.list,
      rows,
      request: probe.request,
      p50_ms: round(median(samples.get(probe)!)),
      p90_ms: round(percentile(samples.get(probe)!, 0.9)),
    }));
  } finally {
    await server?.stop();
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end();
  }
}

export async function runScaleBench(): Promise<ScaleRow[]> {
  const cluster = process.env.BENCH_DATABASE_URL ? null : await startPostgres();
  const clusterUrl = process.env.BENCH_DATABASE_URL ?? cluster!.url;
  try {
    const rows: ScaleRow[] = [];
    for (const size of SIZES) rows.push(...(await measureSize(clusterUrl, size)));
    return rows;
  } finally {
    await cluster?.stop();
  }
}

export function printScaleBench(rows: ScaleRow[]) {
  console.log(`\nList latency by size (PostgreSQL, caches off, one request at a time, ${ROUNDS} rounds)`);
  console.table(rows);
  console.log(JSON.stringify({ scale: rows }));
}
