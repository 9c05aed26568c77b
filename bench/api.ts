import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { freePort, waitFor } from '../test/helpers/processes.js';

const run = promisify(execFile);
const bin = path.resolve('bin/tagport.js');
const DURATION_SECONDS = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

export interface LoadResult {
  name: string;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  non_2xx: number;
  ratio_to_hello_world?: number;
}

async function startProcess(args: string[], env: NodeJS.ProcessEnv, readyPath: string) {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, args, { env: { ...process.env, ...env, PORT: String(port) }, stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(base + readyPath)).ok, 60_000, args.join(' '));
  return {
    base,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

async function load(name: string, url: string, headers: Record<string, string> = {}): Promise<LoadResult> {
  await autocannon({ url, connections: CONNECTIONS, duration: 2, headers }); // warm-up
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_SECONDS, headers });
  return {
    name,
    requests_per_second: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    non_2xx: result.non2xx,
  };
}

async function tagportCli(env: NodeJS.ProcessEnv, ...args: string[]) {
  const { stdout } = await run(process.execPath, [bin, ...args], { env: { ...process.env, ...env } });
  return JSON.parse(stdout);
}

async function benchTagport(name: string, env: NodeJS.ProcessEnv): Promise<LoadResult> {
  const tenant = await tagportCli(env, 'tenants', 'create', '--name', 'Bench Agency', '--plan', 'agency');
  for (let i = 0; i < 5; i++) await tagportCli(env, 'tenants', 'create', '--name', `Bench client ${i}`, '--parent', tenant.id);
  const key = await tagportCli(env, 'keys', 'create', '--tenant', tenant.id, '--name', 'bench');
  const server = await startProcess([bin, 'serve'], { ...env, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000000' }, '/readyz');
  try {
    return await load(name, `${server.base}/api/tenants/`, { authorization: `Bearer ${key.token}` });
  } finally {
    await server.stop();
  }
}

async function startPostgres(): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-bench-pg-'));
  const { stdout } = await run('bash', ['scripts/test-services.sh', 'start', dir]);
  const url = /TEST_DATABASE_URL=(\S+)/.exec(stdout)![1];
  return { url, stop: async () => void (await run('bash', ['scripts/test-services.sh', 'stop', dir])) };
}

/** autocannon against GET /api/tenants/ with a real key, on PGlite and PostgreSQL, against a bare Fastify hello-world. */
export async function runApiBench(): Promise<LoadResult[]> {
  const hello = await startProcess(['bench/hello-server.mjs'], {}, '/');
  let baseline: LoadResult;
  try {
    baseline = await load('fastify hello-world (baseline)', `${hello.base}/`);
  } finally {
    await hello.stop();
  }
  const results = [baseline];

  const pgliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-bench-pglite-'));
  results.push(await benchTagport('GET /api/tenants/ on PGlite', { PGLITE_DATA_DIR: pgliteDir, DATABASE_URL: '' }));
  fs.rmSync(pgliteDir, { recursive: true, force: true });

  const postgres = await startPostgres();
  try {
    results.push(await benchTagport('GET /api/tenants/ on PostgreSQL', { DATABASE_URL: postgres.url }));
  } finally {
    await postgres.stop();
  }
  for (const result of results) result.ratio_to_hello_world = Number((result.requests_per_second / baseline.requests_per_second).toFixed(3));
  return results;
}
