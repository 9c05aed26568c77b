import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { freePort, waitFor } from '../test/helpers/processes.js';

const run = promisify(execFile);
const bin = path.resolve('bin/tagport.js');
const DURATION_SECONDS = Number(process.env.BENCH_DURATION ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

export interface LoadResult {
  name: string;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  non_2xx: number;
  ratio_to_hello_world?: number;
  /** Median over rounds of (this target's req/s ÷ hello-world's req/s in the same round). */
  paired_ratio?: number;
}

export async function startProcess(args: string[], env: NodeJS.ProcessEnv, readyPath: string) {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(base + readyPath)).ok, 60_000, args.join(' '));
  return {
    base,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

async function load(url: string, headers: Record<string, string>, duration: number) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration, headers });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function tagportCli(env: NodeJS.ProcessEnv, ...args: string[]) {
  const { stdout } = await run(process.execPath, [bin, ...args], { env: { ...process.env, ...env } });
  return JSON.parse(stdout);
}

async function startTagport(env: NodeJS.ProcessEnv) {
  const tenant = await tagportCli(env, 'tenants', 'create', '--name', 'Bench Agency', '--plan', 'agency');
  for (let i = 0; i < 5; i++)
    await tagportCli(env, 'tenants', 'create', '--name', `Bench client ${i}`, '--parent', tenant.id);
  const key = await tagportCli(env, 'keys', 'create', '--tenant', tenant.id, '--name', 'bench');
  const server = await startProcess(
    [bin, 'serve'],
    { ...env, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000000', GATEWAY_PORT: '0' },
    '/readyz',
  );
  return { ...server, url: `${server.base}/api/tenants/`, headers: { authorization: `Bearer ${key.token}` } };
}

export async function startPostgres(): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-bench-pg-'));
  const { stdout } = await run('bash', ['scripts/test-services.sh', 'start', dir]);
  const url = /TEST_DATABASE_URL=(\S+)/.exec(stdout)![1];
  return { url, stop: async () => void (await run('bash', ['scripts/test-services.sh', 'stop', dir])) };
}

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
}

/**
 * autocannon against GET /api/tenants/ with a real key (an agency with 5 clients: 6 tenants a page), on
 * PGlite and on PostgreSQL, and against a bare Fastify hello-world. All servers run at once and are
 * measured in interleaved rounds; the medians are reported, so a noisy moment hits every target alike.
 * `paired_ratio` compares each round with the hello-world run just before it (the machine's speed drifts
 * between rounds), and takes the median of those ratios.
 */
export async function runApiBench(rounds = Number(process.env.BENCH_ROUNDS ?? 3)): Promise<LoadResult[]> {
  const pgliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-bench-pglite-'));
  const postgres = await startPostgres();
  const hello = await startProcess(['bench/hello-server.mjs'], {}, '/');
  const onPglite = await startTagport({ PGLITE_DATA_DIR: pgliteDir, DATABASE_URL: '' });
  const onPostgres = await startTagport({ DATABASE_URL: postgres.url });
  const targets: Target[] = [
    { name: 'fastify hello-world (baseline)', url: `${hello.base}/`, headers: {} },
    { name: 'GET /api/tenants/ on PGlite', url: onPglite.url, headers: onPglite.headers },
    { name: 'GET /api/tenants/ on PostgreSQL', url: onPostgres.url, headers: onPostgres.headers },
  ];
  try {
    for (const target of targets) await load(target.url, target.headers, 2); // warm-up
    const samples = new Map(targets.map((target) => [target.name, [] as Awaited<ReturnType<typeof load>>[]]));
    for (let round = 0; round < rounds; round++) {
      for (const target of targets)
        samples.get(target.name)!.push(await load(target.url, target.headers, DURATION_SECONDS));
    }
    const results = targets.map((target): LoadResult => {
      const runs = samples.get(target.name)!;
      return {
        name: target.name,
        requests_per_second: Math.round(median(runs.map((run) => run.rps))),
        p50_ms: median(runs.map((run) => run.p50)),
        p99_ms: median(runs.map((run) => run.p99)),
        non_2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
      };
    });
    const baseline = samples.get(targets[0].name)!;
    for (const [index, result] of results.entries()) {
      result.ratio_to_hello_world = Number((result.requests_per_second / results[0].requests_per_second).toFixed(3));
      const runs = samples.get(targets[index].name)!;
      result.paired_ratio = Number(median(runs.map((run, round) => run.rps / baseline[round].rps)).toFixed(3));
    }
    return results;
  } finally {
    await Promise.all([hello.stop(), onPglite.stop(), onPostgres.stop()]);
    await postgres.stop();
    fs.rmSync(pgliteDir, { recursive: true, force: true });
  }
}
