import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { median } from './api.js';
import { treeCpuMs } from './process-tree.js';
import {
  BENCH_BASE_DOMAIN,
  benchCertificate,
  startFloor,
  startNginxProxy,
  startTagportGateway,
  startUpstream,
} from './gateway-servers.js';

const run = promisify(execFile);
const DURATION_SECONDS = Number(process.env.BENCH_DURATION ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WRK = process.env.BENCH_WRK ?? '/usr/bin/wrk';
type Protocol = 'http' | 'https';
const PROTOCOLS = (process.env.BENCH_PROTOCOLS ?? 'http,https').split(',') as Protocol[];
const NGINX = 'nginx proxy (1 worker)';

export interface GatewayRound {
  round: number;
  protocol: Protocol;
  target: string;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  /** CPU time the server (all its processes) used per 1000 requests: steadier than req/s on a busy machine. */
  cpu_ms_per_1k: number;
  /** This round's ratios to nginx on the same protocol. */
  rps_ratio: number;
  p99_ratio: number;
}

export interface GatewayResult {
  protocol: Protocol;
  name: string;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  cpu_ms_per_1k: number;
  /** Median over rounds of (this target ÷ nginx on the same protocol in the same round). */
  rps_ratio_to_nginx: number;
  p99_ratio_to_nginx: number;
  cpu_ratio_to_nginx: number;
}

export interface Target {
  name: string;
  protocol: Protocol;
  url: string;
  host: string;
  /** The server under test; its CPU time is measured with its child processes (cluster workers). */
  pid: number;
}

export { treeCpuMs as cpuMs } from './process-tree.js';

function milliseconds(value: string, unit: string): number {
  const scale = unit === 'us' ? 0.001 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 1;
  return Number((Number(value) * scale).toFixed(2));
}

/**
 * wrk with one thread (the machine has few cores), `--latency` for the percentiles; `script`, a wrk Lua script (one
 * that chooses each request's Host, say).
 */
export async function load(target: Target, duration: number, script?: string) {
  const cpuBefore = treeCpuMs(target.pid);
  const { stdout } = await run(
    WRK,
    [
      '-t1',
      `-c${CONNECTIONS}`,
      `-d${duration}s`,
      '--latency',
      '-H',
      `Host: ${target.host}`,
      ...(script ? ['-s', script] : []),
      target.url,
    ],
    { maxBuffer: 1024 * 1024 },
  );
  const percentile = (p: string) => {
    const match = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(stdout);
    return match ? milliseconds(match[1], match[2]) : Number.NaN;
  };
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? Number.NaN);
  return {
    requests,
    non2xx,
    cpuPer1k: Number((((treeCpuMs(target.pid) - cpuBefore) / requests) * 1000).toFixed(1)),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? Number.NaN),
    p50: percentile('50'),
    p99: percentile('99'),
    errors: non2xx + (socketErrors ? socketErrors.slice(1).reduce((sum, count) => sum + Number(count), 0) : 0),
  };
}

/**
 * `npm run bench gateway`: a fixed-response upstream, nginx (one worker, keep-alive `upstream` block, TLS with the
 * gateway's certificate), a 20-line undici proxy and the Tagport gateway proxying to it, all on this machine,
 * loaded by wrk over http and https in interleaved rounds. Reports every round, the medians, and the ratios to
 * nginx on the same protocol taken round by round.
 */
export async function runGatewayBench(rounds = Number(process.env.BENCH_ROUNDS ?? 5)) {
  const stops: Array<() => Promise<void>> = [];
  const started = <T extends { stop(): Promise<void> }>(server: T) => {
    stops.push(server.stop);
    return server;
  };
  try {
    const certificate = started(await benchCertificate());
    const upstream = started(await startUpstream());
    const nginx = started(await startNginxProxy(upstream.base, certificate));
    const floor = started(await startFloor(upstream.base, certificate));
    const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
    // BENCH_GATEWAY_WORKERS=1,2: one gateway per GATEWAY_WORKERS value, measured in the same rounds.
    const workerCounts = (process.env.BENCH_GATEWAY_WORKERS ?? '1').split(',').map(Number);
    // BENCH_BASELINE_TREE: another checkout (e.g. `git archive` of an older commit) measured in the same rounds.
    const baselineTree = process.env.BENCH_BASELINE_TREE;
    const targets: Target[] = [];
    const gateways: Array<{ containerId: string; api: (method: string, url: string) => Promise<any> }> = [];
    for (const protocol of PROTOCOLS) {
      const tls = protocol === 'https' ? certificate : undefined;
      const at = (base: string) => `${base}/g/collect?v=2`;
      const host = `bench.${BENCH_BASE_DOMAIN}`;
      if (protocol === 'http')
        targets.push({ name: 'upstream alone', protocol, url: at(upstream.base), host, pid: upstream.pid });
      targets.push(
        { name: NGINX, protocol, url: at(tls ? nginx.tlsBase! : nginx.base), host, pid: nginx.pid },
        { name: 'undici proxy (20 lines)', protocol, url: at(tls ? floor.tlsBase! : floor.base), host, pid: floor.pid },
      );
      for (const workers of workerCounts) {
        const gateway = started(await startTagportGateway(upstream.base, { nodeArgs, tls, workers }));
        gateways.push(gateway);
        const name = workers === 1 ? 'tagport gateway' : `tagport gateway (${workers} workers)`;
        targets.push({ name, protocol, url: at(gateway.base), host: gateway.host, pid: gateway.pid });
      }
      // The nginx engine: one nginx worker, as the reference nginx has; Tagport's process tree is measured.
      if (process.env.BENCH_GATEWAY_NGINX_ENGINE !== '0') {
        const gateway = started(await startTagportGateway(upstream.base, { nodeArgs, tls, engine: 'nginx' }));
        gateways.push(gateway);
        const name = 'tagport gateway (nginx engine)';
        targets.push({ name, protocol, url: at(gateway.base), host: gateway.host, pid: gateway.pid });
      }
      // With PostgreSQL, also the gateway as it is deployed at scale: its own `--role gateway` process.
      if (process.env.BENCH_DATABASE_URL && process.env.BENCH_GATEWAY_DEDICATED !== '0') {
        const gateway = started(await startTagportGateway(upstream.base, { nodeArgs, tls, dedicated: true }));
        gateways.push(gateway);
        const name = 'tagport gateway (role gateway, PostgreSQL)';
        targets.push({ name, protocol, url: at(gateway.base), host: gateway.host, pid: gateway.pid });
      }
      // BENCH_BASELINE_ENGINES (default node): the baseline checkout's gateway on each of these engines.
      for (const engine of baselineTree ? (process.env.BENCH_BASELINE_ENGINES ?? 'node').split(',') : []) {
        const root = path.resolve(baselineTree!);
        const baseline = started(
          await startTagportGateway(upstream.base, { root, tls, engine: engine as 'node' | 'nginx' }),
        );
        const name = `tagport gateway${engine === 'nginx' ? ' (nginx engine)' : ''} (${path.basename(root)})`;
        targets.push({ name, protocol, url: at(baseline.base), host: baseline.host, pid: baseline.pid });
        gateways.push(baseline);
      }
    }
    for (const target of targets) await load(target, 2); // warm-up (JIT, pools, TLS sessions)
    const perRound: GatewayRound[] = [];
    for (let round = 1; round <= rounds; round++)
      for (const target of targets) {
        const sample = await load(target, DURATION_SECONDS);
        perRound.push({
          round,
          protocol: target.protocol,
          target: target.name,
          requests_per_second: Math.round(sample.rps),
          p50_ms: sample.p50,
          p99_ms: sample.p99,
          errors: sample.errors,
          cpu_ms_per_1k: sample.cpuPer1k,
          rps_ratio: 0,
          p99_ratio: 0,
        });
      }
    for (const sample of perRound) {
      const nginxSample = perRound.find(
        (other) => other.round === sample.round && other.protocol === sample.protocol && other.target === NGINX,
      )!;
      sample.rps_ratio = Number((sample.requests_per_second / nginxSample.requests_per_second).toFixed(2));
      sample.p99_ratio = Number((sample.p99_ms / nginxSample.p99_ms).toFixed(2));
    }
    const results = targets.map((target): GatewayResult => {
      const runs = perRound.filter((sample) => sample.target === target.name && sample.protocol === target.protocol);
      const nginxRuns = perRound.filter((sample) => sample.target === NGINX && sample.protocol === target.protocol);
      return {
        protocol: target.protocol,
        name: target.name,
        requests_per_second: median(runs.map((sample) => sample.requests_per_second)),
        p50_ms: median(runs.map((sample) => sample.p50_ms)),
        p99_ms: median(runs.map((sample) => sample.p99_ms)),
        errors: runs.reduce((sum, sample) => sum + sample.errors, 0),
        cpu_ms_per_1k: median(runs.map((sample) => sample.cpu_ms_per_1k)),
        rps_ratio_to_nginx: ratio(runs.map((sample) => sample.rps_ratio)),
        p99_ratio_to_nginx: ratio(runs.map((sample) => sample.p99_ratio)),
        cpu_ratio_to_nginx: ratio(runs.map((sample, i) => sample.cpu_ms_per_1k / nginxRuns[i].cpu_ms_per_1k)),
      };
    });
    let meteredRequests = 0;
    for (const gateway of gateways)
      meteredRequests += (await gateway.api('GET', `/api/containers/${gateway.containerId}/usage/`)).total_requests;
    return { perRound, results, meteredRequests };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}

const ratio = (values: number[]) => Number(median(values).toFixed(2));

export function printGatewayBench({ perRound, results, meteredRequests }: Awaited<ReturnType<typeof runGatewayBench>>) {
  console.log(
    `\nGateway vs nginx (wrk, 1 thread, ${CONNECTIONS} connections, ${DURATION_SECONDS}s a round, ${PROTOCOLS.join(' and ')}; one gateway process on PGlite, workers on PostgreSQL)`,
  );
  console.table(perRound);
  console.log('Medians; ratios are the median of round-by-round ratios to nginx (target: rps ≥ 0.6, p99 ≤ 2)');
  console.table(results);
  console.log(`Requests metered by the gateways (usage API): ${meteredRequests}`);
  console.log(JSON.stringify({ gateway: results }));
}
