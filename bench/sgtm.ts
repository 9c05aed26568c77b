import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitFor } from '../test/helpers/processes.js';
import { median, startProcess } from './api.js';
import { BENCH_BASE_DOMAIN, startNginx } from './gateway-servers.js';
import { processTree, treeCpuMs } from './process-tree.js';

const run = promisify(execFile);
const DURATION_SECONDS = Number(process.env.BENCH_DURATION ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const REPLICAS = Number(process.env.BENCH_SGTM_REPLICAS ?? 2);
const ENGINES = (process.env.BENCH_SGTM_ENGINES ?? 'node,nginx').split(',') as Engine[];
const WRK = process.env.BENCH_WRK ?? '/usr/bin/wrk';
/** Node flags for the Tagport processes, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (written when they stop). */
const NODE_ARGS = (process.env.BENCH_SGTM_NODE_ARGS ?? '').split(' ').filter(Boolean);
const STANDIN = path.resolve('test/fixtures/sgtm/server.mjs');
const HIT = '/g/collect?v=2&tid=G-BENCH1&cid=1234567890.1700000000&en=page_view&dl=https%3A%2F%2Fshop.bench%2F';
/** The issue's target: the gateway costs at most 15 % of the pool's throughput and at most 1.5× its p99. */
const TARGET = { rps_ratio: 0.85, p99_ratio: 1.5 };

type Engine = 'node' | 'nginx';
type Way = 'through gateway' | 'direct to pool' | 'minimal nginx proxy' | 'upstream runtime, 1 replica';
/**
 * BENCH_SGTM_COMPARE_UPSTREAM=1: also an `upstream` container on the same gateway whose upstream URL is the first
 * replica, measured in the same rounds: the gateway's CPU per hit on its `upstream` path against its `sgtm` path.
 */
const COMPARE_UPSTREAM = process.env.BENCH_SGTM_COMPARE_UPSTREAM === '1';
/**
 * BENCH_SGTM_BASELINE=<checkout>: the same rows for an earlier version (a checkout with its `node_modules`), each
 * engine's Tagport started from there as well and measured in the same rounds (rows labelled `<engine>, baseline`).
 */
const BASELINE = process.env.BENCH_SGTM_BASELINE ? path.resolve(process.env.BENCH_SGTM_BASELINE) : null;
/**
 * BENCH_SGTM_BROWSER=1: every hit carries what a browser's does (a current Chrome's user agent, Accept-Language,
 * fetch metadata), so bot detection reads a real user agent; without it wrk sends none.
 */
const BROWSER_HEADERS =
  process.env.BENCH_SGTM_BROWSER === '1'
    ? [
        'User-Agent: Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
        'Accept-Language: de-DE,de;q=0.9,en;q=0.8',
        'Sec-Fetch-Mode: no-cors',
      ].flatMap((header) => ['-H', header])
    : [];

/** The fake Google collection server the stand-in forwards every hit to: nginx answering 204 at once. */
const startCollector = () => startNginx('sgtm-collector', 'location / { return 204; }');

/**
 * The floor any proxy pays on this machine: nginx with one worker and nothing but `proxy_pass` to the same replicas
 * over keep-alive connections (no maps, no headers, no metering). Its cost against the pool in the same round is
 * the least a gateway can cost here.
 */
const startMinimalProxy = (ports: number[]) =>
  startNginx(
    'sgtm-minimal-proxy',
    `location / {
      proxy_pass http://replicas;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
    }`,
    { extraHttp: `upstream replicas { ${ports.map((port) => `server 127.0.0.1:${port};`).join(' ')} keepalive 128; }` },
  );

const commandLine = (pid: number) => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
};

/**
 * CPU time (ms) used so far by Tagport's own processes (the service, and nginx under the nginx engine) and by the
 * tagging replicas it supervises (every process running the stand-in), counted apart.
 */
function cpuSplit(tagportPid: number): { gateway: number; pool: number } {
  let gateway = 0;
  let pool = 0;
  for (const { pid, ticks } of processTree(tagportPid)) {
    if (commandLine(pid).includes(STANDIN)) pool += ticks * 10;
    else gateway += ticks * 10;
  }
  return { gateway, pool };
}

/** The loopback ports of the container's tagging replicas (not the preview server), read from their environment. */
function replicaPorts(tagportPid: number): number[] {
  const ports: number[] = [];
  for (const { pid } of processTree(tagportPid)) {
    if (!commandLine(pid).includes(STANDIN)) continue;
    let environ: string[];
    try {
      environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (environ.includes('RUN_AS_PREVIEW_SERVER=true')) continue;
    const port = environ.find((entry) => entry.startsWith('PORT='));
    if (port) ports.push(Number(port.slice('PORT='.length)));
  }
  return [...new Set(ports)].sort((a, b) => a - b);
}

/**
 * Tagport from the CLI (one process, PGlite, the process driver supervising the stand-in tagging server) with one
 * `sgtm` container of REPLICAS tagging replicas; the stand-in forwards every hit to `collectorBase`.
 */
export async function startTagport(engine: Engine, collectorBase: string, checkout = '.') {
  const bin = path.resolve(checkout, 'bin/tagport.js');
  const label = checkout === '.' ? engine : `${engine}, baseline`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-bench-sgtm-'));
  const gatewayPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    PGLITE_DATA_DIR: dataDir,
    DATABASE_URL: '',
    ALLOW_PRIVATE_NETWORKS: 'true',
    // Not 0: a provisioning sgtm container's next step is polled after this delay, and with 0 that poll starves the
    // process (src/modules/containers/worker.ts), so its replicas never start.
    CONTAINER_TRANSITION_DELAY_MS: '200',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '100000000',
    GATEWAY_BASE_DOMAIN: BENCH_BASE_DOMAIN,
    COOKIE_SECRET: randomBytes(32).toString('base64url'),
    SGTM_DRIVER: 'process',
    SGTM_COMMAND: `env STANDIN_COLLECT_URL=${collectorBase}/g/collect ${JSON.stringify(process.execPath)} ${JSON.stringify(STANDIN)}`,
  };
  const cli = async (...args: string[]) =>
    JSON.parse((await run(process.execPath, [bin, ...args], { env: { ...process.env, ...env } })).stdout);
  const tenant = await cli('tenants', 'create', '--name', 'Bench sgtm', '--plan', 'business');
  const key = await cli('keys', 'create', '--tenant', tenant.id, '--name', 'bench');
  const server = await startProcess(
    [...NODE_ARGS, bin, 'serve'],
    { ...env, GATEWAY_PORT: String(gatewayPort), GATEWAY_ENGINE: engine },
    '/readyz',
  );
  try {
    const api = (method: string, url: string, body?: object) =>
      fetch(`${server.base}${url}`, {
        method,
        headers: { authorization: `Bearer ${key.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      }).then((response) => response.json());
    const container = await api('POST', '/api/containers/', {
      name: 'Bench sgtm',
      region: 'eu-central',
      runtime: 'sgtm',
      config: Buffer.from('id=GTM-BENCH01&env=1&auth=AbCdEf123456').toString('base64'),
      settings: { tagging_server: { min_replicas: REPLICAS } },
    });
    if (!container.id) throw new Error(`the sgtm container was not created: ${JSON.stringify(container)}`);
    await waitFor(
      async () => {
        const current = await api('GET', `/api/containers/${container.id}/`);
        if (current.status === 'failed') throw new Error(`the sgtm container failed: ${JSON.stringify(current)}`);
        return current.status === 'running' && current.tagging_server?.replicas?.ready === REPLICAS;
      },
      60_000,
      `the sgtm container's ${REPLICAS} replicas to be ready`,
    );
    const base = `http://127.0.0.1:${gatewayPort}`;
    const host = container.default_hostname as string;
    // The gateway's route to the replicas (its cache follows readiness): every replica answers through it.
    await waitFor(
      async () => {
        for (let i = 0; i < 2 * REPLICAS; i++) if ((await statusOf(`${base}${HIT}`, host)) !== 204) return false;
        return true;
      },
      30_000,
      'the gateway to relay hits to the replicas',
    );
    const ports = replicaPorts(server.pid);
    if (ports.length !== REPLICAS) throw new Error(`expected ${REPLICAS} tagging replicas, found ports ${ports}`);
    for (const port of ports) {
      const answer = await fetch(`http://127.0.0.1:${port}${HIT}`);
      if (answer.status !== 204) throw new Error(`replica on port ${port} answered ${answer.status}`);
    }
    let upstreamHost: string | null = null;
    if (COMPARE_UPSTREAM) {
      const upstream = await api('POST', '/api/containers/', {
        name: 'Bench upstream',
        region: 'eu-central',
        config: Buffer.from('id=GTM-BENCH02&env=1&auth=AbCdEf123456').toString('base64'),
        upstream_url: `http://127.0.0.1:${ports[0]}/`,
      });
      upstreamHost = upstream.default_hostname as string;
      await waitFor(
        async () => (await statusOf(`${base}${HIT}`, upstreamHost!)) === 204,
        30_000,
        'the upstream container to relay hits',
      );
    }
    return {
      engine,
      label,
      base,
      host,
      upstreamHost,
      pid: server.pid,
      ports,
      stop: async () => {
        await server.stop();
        fs.rmSync(dataDir, { recursive: true, force: true });
        fs.rmSync(`${dataDir}.cookie-secret`, { force: true });
      },
    };
  } catch (error) {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** The status of a GET with this Host header (fetch cannot set Host). */
const statusOf = (url: string, host: string) =>
  new Promise<number>((resolve, reject) => {
    http
      .get(url, { headers: { host }, agent: false }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      })
      .on('error', reject);
  });

type Tagport = Awaited<ReturnType<typeof startTagport>>;

/**
 * A wrk script giving each wrk thread one replica's address, in turn: with as many threads as replicas, the
 * connections are split evenly over the replicas and wrk still merges every thread's latencies into one histogram.
 */
function directScript(ports: number[]): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-bench-sgtm-wrk-')), 'replicas.lua');
  fs.writeFileSync(
    file,
    `local ports = { ${ports.map((port) => `"${port}"`).join(', ')} }
local threads = 0
function setup(thread)
  threads = threads + 1
  thread.addr = wrk.lookup("127.0.0.1", ports[((threads - 1) % #ports) + 1])[1]
end
`,
  );
  return file;
}

function milliseconds(value: string, unit: string): number {
  const scale = unit === 'us' ? 0.001 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 1;
  return Number((Number(value) * scale).toFixed(2));
}

interface Target {
  /** The engine, and whether this is the baseline's Tagport. */
  engine: string;
  way: Way;
  tagport: Tagport;
  args: string[];
  /** The minimal proxy's process, whose CPU is this row's gateway CPU (Tagport's own otherwise). */
  proxyPid?: number;
}

/**
 * Every way uses the same wrk: one process, one thread per replica (REPLICAS), CONNECTIONS connections in all, the
 * same hit and Host header. Through the gateway (or the minimal proxy) every thread connects to it; straight to the
 * pool each thread connects to one replica (directScript), so each replica gets CONNECTIONS / REPLICAS connections.
 */
function targetsOf(tagport: Tagport, minimalProxy: { base: string; pid: number }): Target[] {
  const common = [`-t${REPLICAS}`, `-c${CONNECTIONS}`, '--latency', '-H', `Host: ${tagport.host}`, ...BROWSER_HEADERS];
  return [
    {
      engine: tagport.label,
      way: 'direct to pool',
      tagport,
      args: [...common, '-s', directScript(tagport.ports), `http://127.0.0.1:${tagport.ports[0]}${HIT}`],
    },
    { engine: tagport.label, way: 'through gateway', tagport, args: [...common, `${tagport.base}${HIT}`] },
    {
      engine: tagport.label,
      way: 'minimal nginx proxy',
      tagport,
      proxyPid: minimalProxy.pid,
      args: [...common, `${minimalProxy.base}${HIT}`],
    },
    ...(tagport.upstreamHost
      ? [
          {
            engine: tagport.label,
            way: 'upstream runtime, 1 replica' as const,
            tagport,
            args: [
              `-t${REPLICAS}`,
              `-c${CONNECTIONS}`,
              '--latency',
              '-H',
              `Host: ${tagport.upstreamHost}`,
              `${tagport.base}${HIT}`,
            ],
          },
        ]
      : []),
  ];
}

/** Tagport's split, or for the minimal proxy's row that proxy's CPU as the gateway's. */
function cpuOf(target: Target) {
  const split = cpuSplit(target.tagport.pid);
  if (target.proxyPid === undefined) return split;
  return { gateway: treeCpuMs(target.proxyPid), pool: split.pool };
}

async function load(target: Target, duration: number) {
  const cpuBefore = cpuOf(target);
  const { stdout } = await run(WRK, [`-d${duration}s`, ...target.args], { maxBuffer: 1024 * 1024 });
  const cpuAfter = cpuOf(target);
  const percentile = (p: string) => {
    const match = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(stdout);
    return match ? milliseconds(match[1], match[2]) : Number.NaN;
  };
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? Number.NaN);
  const per1k = (ms: number) => Number(((ms / requests) * 1000).toFixed(1));
  return {
    requests,
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? Number.NaN),
    p50: percentile('50'),
    p99: percentile('99'),
    errors: non2xx + (socketErrors ? socketErrors.slice(1).reduce((sum, count) => sum + Number(count), 0) : 0),
    gatewayCpuPer1k: per1k(cpuAfter.gateway - cpuBefore.gateway),
    poolCpuPer1k: per1k(cpuAfter.pool - cpuBefore.pool),
  };
}

export interface SgtmRound {
  round: number;
  engine: string;
  way: Way;
  hits_per_second: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  /** CPU of Tagport's own processes (the gateway; nginx too under the nginx engine) per 1,000 hits. */
  gateway_cpu_ms_per_1k: number;
  /** CPU of the tagging replicas per 1,000 hits. */
  pool_cpu_ms_per_1k: number;
  /** Through the gateway (or the minimal proxy) ÷ direct to the same pool in the same round (null otherwise). */
  rps_ratio: number | null;
  p99_ratio: number | null;
}

export interface SgtmResult {
  engine: string;
  direct_hits_per_second: number;
  gateway_hits_per_second: number;
  direct_p99_ms: number;
  gateway_p99_ms: number;
  /** Medians of the per-round ratios (gateway ÷ direct). */
  rps_ratio: number;
  throughput_cost_percent: number;
  p99_ratio: number;
  gateway_cpu_ms_per_1k: number;
  /** The same medians for the minimal nginx proxy in front of the same replicas: the floor on this machine. */
  minimal_proxy_rps_ratio: number;
  minimal_proxy_p99_ratio: number;
  minimal_proxy_cpu_ms_per_1k: number;
  errors: number;
  target_met: boolean;
}

/**
 * `npm run bench sgtm`: Tagport with an `sgtm` container on the process driver (REPLICAS stand-in tagging servers
 * forwarding to an nginx collector that answers 204), one instance per gateway engine. Interleaved rounds of the
 * same hits through the gateway and straight to the replicas, the order reversed every other round.
 */
export async function runSgtmBench(rounds = Number(process.env.BENCH_ROUNDS ?? 5)) {
  const stops: Array<() => Promise<void>> = [];
  try {
    const collector = await startCollector();
    stops.push(collector.stop);
    const targets: Target[] = [];
    const labels: string[] = [];
    for (const [engine, checkout] of ENGINES.flatMap((engine) => [
      [engine, '.'] as const,
      ...(BASELINE ? [[engine, BASELINE] as const] : []),
    ])) {
      const tagport = await startTagport(engine, collector.base, checkout);
      stops.push(tagport.stop);
      labels.push(tagport.label);
      const minimalProxy = await startMinimalProxy(tagport.ports);
      stops.push(minimalProxy.stop);
      const own = targetsOf(tagport, minimalProxy);
      targets.push(...own);
      const { args } = own.find((target) => target.way === 'direct to pool')!;
      const script = args[args.indexOf('-s') + 1];
      stops.push(async () => fs.rmSync(path.dirname(script), { recursive: true, force: true }));
    }
    for (const target of targets) await load(target, 2); // warm-up (JIT, keep-alive pools)
    const perRound: SgtmRound[] = [];
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 === 1 ? targets : [...targets].reverse();
      for (const target of order) {
        const sample = await load(target, DURATION_SECONDS);
        perRound.push({
          round,
          engine: target.engine,
          way: target.way,
          hits_per_second: Math.round(sample.rps),
          p50_ms: sample.p50,
          p99_ms: sample.p99,
          errors: sample.errors,
          gateway_cpu_ms_per_1k: sample.gatewayCpuPer1k,
          pool_cpu_ms_per_1k: sample.poolCpuPer1k,
          rps_ratio: null,
          p99_ratio: null,
        });
      }
    }
    perRound.sort((a, b) => a.round - b.round || labels.indexOf(a.engine) - labels.indexOf(b.engine));
    for (const sample of perRound) {
      if (sample.way !== 'through gateway' && sample.way !== 'minimal nginx proxy') continue;
      const direct = perRound.find(
        (other) => other.round === sample.round && other.engine === sample.engine && other.way === 'direct to pool',
      )!;
      sample.rps_ratio = Number((sample.hits_per_second / direct.hits_per_second).toFixed(2));
      sample.p99_ratio = Number((sample.p99_ms / direct.p99_ms).toFixed(2));
    }
    const results = labels.map((engine): SgtmResult => {
      const of = (way: Way) => perRound.filter((sample) => sample.engine === engine && sample.way === way);
      const direct = of('direct to pool');
      const gateway = of('through gateway');
      const minimal = of('minimal nginx proxy');
      const ratio = (samples: SgtmRound[], key: 'rps_ratio' | 'p99_ratio') =>
        Number(median(samples.map((sample) => sample[key] ?? Number.NaN)).toFixed(2));
      const rpsRatio = ratio(gateway, 'rps_ratio');
      const p99Ratio = ratio(gateway, 'p99_ratio');
      return {
        engine,
        direct_hits_per_second: median(direct.map((sample) => sample.hits_per_second)),
        gateway_hits_per_second: median(gateway.map((sample) => sample.hits_per_second)),
        direct_p99_ms: median(direct.map((sample) => sample.p99_ms)),
        gateway_p99_ms: median(gateway.map((sample) => sample.p99_ms)),
        rps_ratio: rpsRatio,
        throughput_cost_percent: Math.round((1 - rpsRatio) * 100),
        p99_ratio: p99Ratio,
        gateway_cpu_ms_per_1k: median(gateway.map((sample) => sample.gateway_cpu_ms_per_1k)),
        minimal_proxy_rps_ratio: ratio(minimal, 'rps_ratio'),
        minimal_proxy_p99_ratio: ratio(minimal, 'p99_ratio'),
        minimal_proxy_cpu_ms_per_1k: median(minimal.map((sample) => sample.gateway_cpu_ms_per_1k)),
        errors: [...direct, ...gateway, ...minimal].reduce((sum, sample) => sum + sample.errors, 0),
        target_met: rpsRatio >= TARGET.rps_ratio && p99Ratio <= TARGET.p99_ratio,
      };
    });
    return { perRound, results, load: os.loadavg().map((value) => Number(value.toFixed(2))) };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}

export function printSgtmBench({ perRound, results, load }: Awaited<ReturnType<typeof runSgtmBench>>) {
  console.log(
    `\nManaged tagging servers: through the gateway vs straight to the pool (${REPLICAS} stand-in replicas; wrk, ${REPLICAS} threads, ${CONNECTIONS} connections, ${DURATION_SECONDS}s a round)`,
  );
  console.table(perRound);
  console.log(
    `Medians; ratios are the median of round-by-round ratios (target: throughput cost ≤ 15 %, p99 ≤ 1.5×); minimal_proxy_*: a bare nginx proxy_pass in front of the same replicas, the floor on this machine. Load average at the end: ${load.join(', ')}`,
  );
  console.table(results);
  console.log(JSON.stringify({ sgtm: results }));
}
