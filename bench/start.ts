import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitFor } from '../test/helpers/processes.js';
import { median } from './api.js';

const run = promisify(execFile);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const bin = path.resolve('bin/tagport.js');

/**
 * A fresh directory for the benches' data directories, under the repository: as root the embedded PostgreSQL runs as
 * `postgres`, which must reach it.
 */
export function benchDataRoot(prefix: string): string {
  fs.mkdirSync('.tmp', { recursive: true });
  const root = fs.mkdtempSync(path.join(path.resolve('.tmp'), prefix));
  fs.chmodSync(root, 0o755);
  return root;
}

/** `tagport serve` on an embedded database in `dir` (no `DATABASE_URL`, no Redis), its gateway on any port. */
export function embeddedServeEnv(engine: 'pglite' | 'embedded-postgres', dir: string): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: '',
    REDIS_URL: '',
    DATABASE_ENGINE: engine,
    EMBEDDED_POSTGRES_DIR: path.join(dir, 'postgres'),
    PGLITE_DATA_DIR: path.join(dir, 'pglite'),
    GATEWAY_PORT: '0',
    LOG_LEVEL: 'warn',
  };
}

/**
 * `npm run bench start`: what a user waits for. In each round, interleaved: `tagport serve` to its first 200 from
 * /readyz on a fresh data directory (cold: the cluster is created) and on an existing one (warm), `tagport --help`,
 * and `tagport migrate` (a command that starts the embedded cluster, opens the database and stops it), then one warm
 * start split into phases. Medians of the rounds. The default database, embedded PostgreSQL, unless
 * BENCH_START_ENGINE=pglite.
 */
export async function runStartBench() {
  const engine = process.env.BENCH_START_ENGINE === 'pglite' ? 'pglite' : 'embedded-postgres';
  const root = benchDataRoot('bench-start-');
  const envFor = (dir: string) => embeddedServeEnv(engine, dir);
  /** Spawn to the first 200 from /readyz, and the server's own `ready` log line (its `startup_ms` steps). */
  const timedServe = async (dir: string) => {
    const port = await freePort();
    const started = performance.now();
    const child = spawn(process.execPath, [bin, 'serve'], {
      env: { ...process.env, ...envFor(dir), LOG_LEVEL: 'info', PORT: String(port) },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${base}/readyz`)).ok, 120_000, 'tagport serve');
    const elapsed = performance.now() - started;
    await waitFor(async () => output.includes('"msg":"ready"'), 30_000, 'the ready log line');
    const line = output.split('\n').find((entry) => entry.includes('"msg":"ready"'))!;
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    return { elapsed, steps: (JSON.parse(line) as { startup_ms: Record<string, number> }).startup_ms };
  };
  const timedCli = async (env: NodeJS.ProcessEnv, ...args: string[]) => {
    const started = performance.now();
    await run(process.execPath, [bin, ...args], { env: { ...process.env, ...env } });
    return performance.now() - started;
  };
  const warm = path.join(root, 'warm');
  const samples: Record<string, number[]> = { cold: [], warm: [], help: [], migrate: [] };
  const phases: Phases[] = [];
  const serveSteps: Phases[] = [];
  try {
    await timedServe(warm); // creates and migrates the warm data directory
    for (let round = 0; round < ROUNDS; round++) {
      samples.cold.push((await timedServe(path.join(root, `cold-${round}`))).elapsed);
      const warmStart = await timedServe(warm);
      samples.warm.push(warmStart.elapsed);
      serveSteps.push({ marks: warmStart.steps, within: {} });
      samples.help.push(await timedCli({}, '--help'));
      samples.migrate.push(await timedCli(envFor(warm), 'migrate'));
      phases.push(await warmPhases(envFor(warm)));
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  const seconds = (values: number[]) => Number((median(values) / 1000).toFixed(2));
  return {
    engine,
    rounds: ROUNDS,
    cold_start_s: seconds(samples.cold),
    warm_start_s: seconds(samples.warm),
    cli_help_s: seconds(samples.help),
    cli_migrate_s: seconds(samples.migrate),
    warm_serve_steps_s: medianPhases(serveSteps),
    warm_phases_s: medianPhases(phases),
  };
}

export interface Phases {
  marks: Record<string, number>;
  within: Record<string, number>;
}

/** One warm start in a fresh process (bench/start-phases.ts), as `tagport serve` runs it: node, tsx, then the app. */
async function warmPhases(env: NodeJS.ProcessEnv): Promise<Phases> {
  const { stdout } = await run(
    process.execPath,
    ['--max-semi-space-size=8', '--import', 'tsx', path.resolve('bench/start-phases.ts')],
    { env: { ...process.env, ...env } },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Phases;
}

/** Each phase's own duration (from the previous mark), median over the rounds, in seconds. */
export function medianPhases(all: Phases[]): Record<string, number> {
  const durations = new Map<string, number[]>();
  const add = (name: string, value: number) => durations.set(name, [...(durations.get(name) ?? []), value]);
  for (const { marks, within } of all) {
    let previous = 0;
    for (const [name, at] of Object.entries(marks)) {
      add(name, at - previous);
      previous = at;
    }
    // Both run inside buildApp (the services' start).
    for (const [name, spent] of Object.entries(within)) add(`  app_built includes ${name}`, spent);
  }
  return Object.fromEntries([...durations].map(([name, values]) => [name, Number((median(values) / 1000).toFixed(2))]));
}

export function printStartBench(results: Awaited<ReturnType<typeof runStartBench>>) {
  console.log(`\nStart-up (${results.engine}, median of ${results.rounds} interleaved rounds, seconds)`);
  const { warm_phases_s, warm_serve_steps_s, ...times } = results;
  console.table([times]);
  console.log('Warm `tagport serve`, by the steps of its own `ready` log line (each from the end of the previous one)');
  console.table(warm_serve_steps_s);
  console.log(
    'Warm start by phase (each from the end of the previous one; `listening` is Fastify compiling the routes)',
  );
  console.table(warm_phases_s);
  console.log(JSON.stringify({ start: results }));
}
