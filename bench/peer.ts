import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort, waitFor } from '../test/helpers/processes.js';
import { median, startPostgres, startProcess, tagportCli } from './api.js';

const run = promisify(execFile);
const PEER_DIR = path.resolve('bench/peers/drf');
const PYTHON = process.env.BENCH_PYTHON ?? '/usr/bin/python3';
const GUNICORN = process.env.BENCH_GUNICORN ?? '/usr/bin/gunicorn';
const DURATION_SECONDS = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const PEER_WORKERS = Number(process.env.BENCH_PEER_WORKERS ?? 2);
/** Threads per gunicorn worker: gthread keeps connections alive (sync workers close each one, and 50 clients then see resets). */
const PEER_THREADS = Number(process.env.BENCH_PEER_THREADS ?? 8);

interface Server {
  base: string;
  headers: Record<string, string>;
  stop(): Promise<void>;
}

interface Target {
  name: string;
  request: 'list' | 'create';
  server: Server;
  /** The peer's row for the same request: ratios are taken against it, round by round. */
  peer?: string;
}

export interface PeerRow {
  target: string;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  /** Median over rounds of (this target's req/s ÷ the peer's req/s in the same round). */
  x_peer?: number;
}

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function createDatabases(adminUrl: string, names: string[]) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    for (const name of names) {
      await client.query(`drop database if exists ${name} with (force)`);
      await client.query(`create database ${name}`);
    }
  } finally {
    await client.end();
  }
}

/** The Django REST Framework peer (bench/peers/drf) under gunicorn, seeded with an agency, 5 clients and a key. */
async function startPeer(url: string): Promise<Server> {
  const env = { ...process.env, PEER_DATABASE_URL: url, PYTHONDONTWRITEBYTECODE: '1' };
  const { stdout } = await run(PYTHON, ['-m', 'peer.seed'], { cwd: PEER_DIR, env });
  const token = stdout.trim();
  const port = await freePort();
  const child: ChildProcess = spawn(
    GUNICORN,
    [
      '--chdir',
      PEER_DIR,
      '-w',
      String(PEER_WORKERS),
      '-k',
      'gthread',
      '--threads',
      String(PEER_THREADS),
      '-b',
      `127.0.0.1:${port}`,
      '--log-level',
      'warning',
      'peer.wsgi',
    ],
    { env, stdio: 'ignore' },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${base}/ready`)).ok, 30_000, 'the DRF peer');
  return {
    base,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/** Tagport on `url` (migrated by the CLI), an agency-like partner with room for every tenant the rounds create. */
async function startTagport(url: string, caches: boolean): Promise<Server> {
  const env = { DATABASE_URL: url, LOG_LEVEL: 'warn' };
  const key = await tagportCli(env, 'keys', 'create', '--tenant', 'ten_benchpartner', '--name', 'bench');
  const server = await startProcess(
    ['bin/tagport.js', 'serve'],
    {
      ...env,
      RATE_LIMIT_PER_MINUTE: '100000000',
      GATEWAY_PORT: '0',
      ...(caches ? {} : { AUTH_CACHE_TTL_MS: '0' }),
    },
    '/readyz',
  );
  return { ...server, headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' } };
}

async function seedTagport(url: string) {
  const env = { DATABASE_URL: url, LOG_LEVEL: 'warn' };
  await tagportCli(env, 'migrate');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `insert into tenants (id, name, plan_id, feature_overrides) values ('ten_benchpartner', 'Bench Partner', 'partner', '{"max_client_tenants": 100000000}')`,
    );
    for (let i = 0; i < 5; i++)
      await client.query(
        `insert into tenants (id, name, plan_id, parent_id) values ('ten_benchclient${i}', 'Bench client ${i}', 'free', 'ten_benchpartner')`,
      );
  } finally {
    await client.end();
  }
}

async function load(target: Target) {
  const result = await autocannon({
    url: `${target.server.base}/api/tenants/`,
    connections: CONNECTIONS,
    duration: DURATION_SECONDS,
    headers: target.server.headers,
    ...(target.request === 'create' ? { method: 'POST' as const, body: JSON.stringify({ name: 'Bench client' }) } : {}),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

/**
 * `npm run bench peer`: Tagport's tenants API against a Django REST Framework peer (bench/peers/drf: ModelViewSet,
 * page-number pagination, the key looked up per request, the plan limit checked under the parent's row lock) under
 * gunicorn (2 gthread workers of 8 threads: the machine's cores, connections kept alive), both on one PostgreSQL cluster (BENCH_DATABASE_URL, or a private one).
 * GET /api/tenants/ (6 tenants a page) and POST /api/tenants/ at 50 connections in interleaved rounds; Tagport with
 * its caches on (as it runs) and off (AUTH_CACHE_TTL_MS=0: every request reads the key and the list).
 */
export async function runPeerBench(rounds = Number(process.env.BENCH_ROUNDS ?? 3)): Promise<PeerRow[]> {
  const postgres = process.env.BENCH_DATABASE_URL
    ? { url: process.env.BENCH_DATABASE_URL, stop: async () => {} }
    : await startPostgres();
  const servers: Server[] = [];
  try {
    await createDatabases(postgres.url, ['bench_tagport', 'bench_drf_peer']);
    const tagportUrl = databaseUrl(postgres.url, 'bench_tagport');
    await seedTagport(tagportUrl);
    const peer = await startPeer(databaseUrl(postgres.url, 'bench_drf_peer'));
    servers.push(peer);
    const cached = await startTagport(tagportUrl, true);
    servers.push(cached);
    const uncached = await startTagport(tagportUrl, false);
    servers.push(uncached);
    const targets: Target[] = [
      { name: 'DRF peer: GET /api/tenants/', request: 'list', server: peer },
      { name: 'Tagport: GET, caches off', request: 'list', server: uncached, peer: 'DRF peer: GET /api/tenants/' },
      { name: 'Tagport: GET, caches on', request: 'list', server: cached, peer: 'DRF peer: GET /api/tenants/' },
      { name: 'DRF peer: POST /api/tenants/', request: 'create', server: peer },
      { name: 'Tagport: POST, caches on', request: 'create', server: cached, peer: 'DRF peer: POST /api/tenants/' },
      { name: 'Tagport: POST, caches off', request: 'create', server: uncached, peer: 'DRF peer: POST /api/tenants/' },
    ];
    for (const target of targets) await load({ ...target, request: 'list' }); // warm-up, nothing created
    const samples = new Map(targets.map((target) => [target.name, [] as Awaited<ReturnType<typeof load>>[]]));
    for (let round = 0; round < rounds; round++)
      for (const target of targets) samples.get(target.name)!.push(await load(target));
    return targets.map((target) => {
      const runs = samples.get(target.name)!;
      const peerRuns = target.peer ? samples.get(target.peer)! : null;
      return {
        target: target.name,
        requests_per_second: Math.round(median(runs.map((r) => r.rps))),
        p50_ms: median(runs.map((r) => r.p50)),
        p99_ms: median(runs.map((r) => r.p99)),
        errors: runs.reduce((sum, r) => sum + r.errors, 0),
        ...(peerRuns ? { x_peer: Number(median(runs.map((r, i) => r.rps / peerRuns[i].rps)).toFixed(2)) } : {}),
      };
    });
  } finally {
    for (const server of servers) await server.stop();
    await postgres.stop();
  }
}

export function printPeerBench(rows: PeerRow[]) {
  console.log(
    `\nTagport against a Django REST Framework peer on one PostgreSQL: ${CONNECTIONS} connections, ${DURATION_SECONDS}s a round`,
  );
  console.table(rows);
  console.log(JSON.stringify({ peer: rows }));
}
