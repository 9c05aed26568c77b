import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitFor } from '../test/helpers/processes.js';
import { median, startProcess } from './api.js';
import { load, type Target } from './gateway.js';
import { startNginx } from './gateway-servers.js';

const run = promisify(execFile);
const DURATION_SECONDS = Number(process.env.BENCH_DURATION ?? 6);
const SLOW_VENDOR_MS = Number(process.env.BENCH_SLOW_VENDOR_MS ?? 200);
const QUEUE_SIZE = Number(process.env.BENCH_QUEUE_SIZE ?? 10_000);
const HIT = '/g/collect?v=2&tid=G-BENCH123&cid=1234567890.1700000000&en=page_view&dl=https%3A%2F%2Fshop.bench%2F';

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

/**
 * The service from the CLI with two containers on one gateway: `builtin` (owns G-BENCH123, forwards to
 * `collectOrigin`) and `upstream` (proxies to `upstreamBase`).
 */
async function startTagport(collectOrigin: string, upstreamBase: string) {
  const bin = path.join(process.cwd(), 'bin/tagport.js');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-bench-runtime-'));
  const gatewayPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    PGLITE_DATA_DIR: dataDir,
    DATABASE_URL: '',
    ALLOW_PRIVATE_NETWORKS: 'true',
    CONTAINER_TRANSITION_DELAY_MS: '0',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '100000000',
    GOOGLE_TAG_ORIGIN: collectOrigin,
    GA4_COLLECT_ORIGIN: collectOrigin,
    RUNTIME_FORWARD_QUEUE_SIZE: String(QUEUE_SIZE),
  };
  const cli = async (...args: string[]) =>
    JSON.parse((await run(process.execPath, [bin, ...args], { env: { ...process.env, ...env } })).stdout);
  const tenant = await cli('tenants', 'create', '--name', 'Bench runtime', '--plan', 'business');
  const key = await cli('keys', 'create', '--tenant', tenant.id, '--name', 'bench');
  const server = await startProcess([bin, 'serve'], { ...env, GATEWAY_PORT: String(gatewayPort) }, '/readyz');
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
  return {
    base: `http://127.0.0.1:${gatewayPort}`,
    pid: server.pid,
    builtin: { id: builtin.id as string, host: builtin.default_hostname as string },
    upstream: { id: upstream.id as string, host: upstream.default_hostname as string },
    runtimeTotals: async (containerId: string) =>
      (await api('GET', `/api/containers/${containerId}/usage/`)).runtime.totals as Record<string, number>,
    stop: async () => {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface RuntimeRound {
  round: number;
  target: string;
  requests_per_second: number;
  /** For the builtin container: GA4 forwards delivered during the round, per second. */
  forwarded_per_second: number | null;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  cpu_ms_per_1k: number;
}

/** Forwarded GA4 hits per second against the same gateway proxying to a static upstream, interleaved rounds. */
async function throughput(rounds: number) {
  const vendor = await startVendor();
  const tagport = await startTagport(vendor.base, vendor.base);
  try {
    const targets: Target[] = [
      {
        name: 'upstream proxy',
        protocol: 'http',
        url: `${tagport.base}${HIT}`,
        host: tagport.upstream.host,
        pid: tagport.pid,
      },
      {
        name: 'builtin GA4 forwarding',
        protocol: 'http',
        url: `${tagport.base}${HIT}`,
        host: tagport.builtin.host,
        pid: tagport.pid,
      },
    ];
    for (const target of targets) await load(target, 2);
    const perRound: RuntimeRound[] = [];
    for (let round = 1; round <= rounds; round++)
      for (const target of targets) {
        const builtin = target.host === tagport.builtin.host;
        const before = builtin ? await tagport.runtimeTotals(tagport.builtin.id) : null;
        const started = performance.now();
        const sample = await load(target, DURATION_SECONDS);
        let forwarded: number | null = null;
        if (before) {
          // Wait for the queue to drain so the count covers the whole round.
          let after = await tagport.runtimeTotals(tagport.builtin.id);
          for (let i = 0; i < 50 && after.hits_received > after.ga4_forwarded + after.forwards_failed; i++) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            after = await tagport.runtimeTotals(tagport.builtin.id);
          }
          const seconds = (performance.now() - started) / 1000;
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
          cpu_ms_per_1k: sample.cpuPer1k,
        });
      }
    const of = (name: string) => perRound.filter((sample) => sample.target === name);
    const upstreamRuns = of(targets[0].name);
    const builtinRuns = of(targets[1].name);
    const totals = await tagport.runtimeTotals(tagport.builtin.id);
    return {
      perRound,
      summary: {
        upstream_rps: median(upstreamRuns.map((r) => r.requests_per_second)),
        builtin_rps: median(builtinRuns.map((r) => r.requests_per_second)),
        builtin_forwarded_per_second: median(builtinRuns.map((r) => r.forwarded_per_second ?? 0)),
        forwarded_ratio_to_upstream: Number(
          median(
            builtinRuns.map((r, i) => (r.forwarded_per_second ?? 0) / upstreamRuns[i].requests_per_second),
          ).toFixed(2),
        ),
        cpu_ratio_to_upstream: Number(
          median(builtinRuns.map((r, i) => r.cpu_ms_per_1k / upstreamRuns[i].cpu_ms_per_1k)).toFixed(2),
        ),
        forwards_failed: totals.forwards_failed,
      },
    };
  } finally {
    await tagport.stop();
    await vendor.stop();
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

export function printRuntimeBench({ perRound, summary, backlog }: Awaited<ReturnType<typeof runRuntimeBench>>) {
  console.log(`\nBuilt-in runtime vs upstream proxy on one gateway (wrk, 1 thread, ${DURATION_SECONDS}s a round)`);
  console.table(perRound);
  console.table([summary]);
  console.log(`Every hit accounted for: the vendor takes ${backlog.slow_vendor_ms} ms a hit for the middle third`);
  console.table([backlog]);
  console.log(JSON.stringify({ runtime: { summary, backlog } }));
}
