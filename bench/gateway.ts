import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitFor } from '../test/helpers/processes.js';
import { median, startProcess } from './api.js';

const run = promisify(execFile);
const DURATION_SECONDS = Number(process.env.BENCH_DURATION ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const NGINX = process.env.BENCH_NGINX ?? '/usr/sbin/nginx';
const WRK = process.env.BENCH_WRK ?? '/usr/bin/wrk';
/** What a tagging server answers to a collect hit: a small body. */
const UPSTREAM_BODY = '{"ok":true}';

export interface GatewayRound {
  round: number;
  target: string;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  /** CPU time the server used per 1000 requests: steadier than req/s on a busy machine. */
  cpu_ms_per_1k: number;
}

export interface GatewayResult {
  name: string;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  cpu_ms_per_1k: number;
  /** Median over rounds of (this target ÷ nginx in the same round). */
  rps_ratio_to_nginx?: number;
  p99_ratio_to_nginx?: number;
  cpu_ratio_to_nginx?: number;
}

export interface Target {
  name: string;
  url: string;
  host: string;
  /** The process whose CPU time is measured: the server under test. */
  pid: number;
}

/** CPU time (user + system) a process has used so far, in ms, from /proc (clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** nginx with one process (`master_process off`), its config, pid, logs and temp files in a temp directory. */
export async function startNginx(name: string, server: string, extraHttp = '') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tagport-bench-${name}-`));
  const port = await freePort();
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((kind) => `${kind}_temp_path ${dir}/${kind};`)
    .join(' ');
  fs.writeFileSync(
    path.join(dir, 'nginx.conf'),
    `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  ${temp}
  ${extraHttp}
  server {
    listen 127.0.0.1:${port} reuseport;
    ${server}
  }
}
`,
  );
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-e', `${dir}/error.log`, '-c', `${dir}/nginx.conf`], {
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${base}/`)).status < 500, 10_000, `nginx (${name})`);
  return {
    base,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fixed-response server: nginx answering every request itself, far faster than either proxy in front of it. */
const startUpstream = () =>
  startNginx('upstream', `location / { default_type application/json; return 200 '${UPSTREAM_BODY}'; }`);

/** nginx as the reference proxy: one worker, `proxy_pass` to an `upstream` block with keep-alive connections. */
const startNginxProxy = (upstreamBase: string) =>
  startNginx(
    'proxy',
    `location / {
      proxy_pass http://tagging;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Host $host;
      proxy_set_header X-Forwarded-Proto https;
    }`,
    `upstream tagging { server ${new URL(upstreamBase).host}; keepalive 64; }`,
  );

/**
 * The real service from the CLI (PGlite in a temp directory, metering and log sampling at their defaults),
 * with one running container whose upstream is the fixed-response server. Private networks are allowed so
 * the loopback upstream passes the SSRF guard (bench only).
 */
async function startTagportGateway(upstreamBase: string, root = process.cwd(), nodeArgs: string[] = []) {
  const bin = path.join(root, 'bin/tagport.js');
  const cli = async (...args: string[]) =>
    JSON.parse((await run(process.execPath, [bin, ...args], { env: { ...process.env, ...env } })).stdout);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-bench-gateway-'));
  const gatewayPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    PGLITE_DATA_DIR: dataDir,
    DATABASE_URL: '',
    ALLOW_PRIVATE_NETWORKS: 'true',
    CONTAINER_TRANSITION_DELAY_MS: '0',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '100000000',
  };
  const tenant = await cli('tenants', 'create', '--name', 'Bench gateway', '--plan', 'business');
  const key = await cli('keys', 'create', '--tenant', tenant.id, '--name', 'bench');
  const server = await startProcess(
    [...nodeArgs, bin, 'serve'],
    { ...env, GATEWAY_PORT: String(gatewayPort), ...gatewayOverrides() },
    '/readyz',
  );
  const api = (method: string, url: string, body?: object) =>
    fetch(`${server.base}${url}`, {
      method,
      headers: { authorization: `Bearer ${key.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    }).then((response) => response.json());
  const container = await api('POST', '/api/containers/', {
    name: 'Bench',
    region: 'eu-central',
    config: Buffer.from('id=GTM-BENCH01&env=1&auth=AbCdEf123456').toString('base64'),
    upstream_url: `${upstreamBase}/`,
  });
  await waitFor(
    async () => (await api('GET', `/api/containers/${container.id}/`)).status === 'running',
    30_000,
    'the bench container to run',
  );
  return {
    base: `http://127.0.0.1:${gatewayPort}`,
    pid: server.pid,
    host: container.default_hostname as string,
    api,
    containerId: container.id as string,
    stop: async () => {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** GATEWAY_* variables given to the bench (e.g. GATEWAY_LOG_SAMPLE_RATE=0 to compare), passed to the service. */
function gatewayOverrides(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('GATEWAY_')));
}

function milliseconds(value: string, unit: string): number {
  const scale = unit === 'us' ? 0.001 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 1;
  return Number((Number(value) * scale).toFixed(2));
}

/** wrk with one thread (the machine has few cores), `--latency` for the percentiles. */
export async function load(target: Target, duration: number) {
  const cpuBefore = cpuMs(target.pid);
  const { stdout } = await run(
    WRK,
    ['-t1', `-c${CONNECTIONS}`, `-d${duration}s`, '--latency', '-H', `Host: ${target.host}`, target.url],
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
    cpuPer1k: Number((((cpuMs(target.pid) - cpuBefore) / requests) * 1000).toFixed(1)),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? Number.NaN),
    p50: percentile('50'),
    p99: percentile('99'),
    errors: non2xx + (socketErrors ? socketErrors.slice(1).reduce((sum, count) => sum + Number(count), 0) : 0),
  };
}

/**
 * `npm run bench gateway`: a fixed-response upstream, nginx (one worker, keep-alive `upstream` block) and the
 * Tagport gateway proxying to it, all on this machine, loaded by wrk in interleaved rounds. Reports every
 * round, the medians, and the gateway's ratios to nginx taken round by round. Plain http only (the gateway
 * has no TLS listener yet).
 */
export async function runGatewayBench(rounds = Number(process.env.BENCH_ROUNDS ?? 5)) {
  const upstream = await startUpstream();
  const stops: Array<() => Promise<void>> = [upstream.stop];
  try {
    const nginx = await startNginxProxy(upstream.base);
    stops.push(nginx.stop);
    const floor = await startProcess(['bench/undici-proxy.mjs'], { UPSTREAM: upstream.base }, '/');
    stops.push(floor.stop);
    const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const gateway = await startTagportGateway(upstream.base, process.cwd(), nodeArgs);
    stops.push(gateway.stop);
    // BENCH_BASELINE_TREE: another checkout (e.g. `git archive` of an older commit) measured in the same rounds.
    const baselineTree = process.env.BENCH_BASELINE_TREE;
    const baseline = baselineTree ? await startTagportGateway(upstream.base, path.resolve(baselineTree)) : null;
    if (baseline) stops.push(baseline.stop);
    const targets: Target[] = [
      { name: 'upstream alone', url: `${upstream.base}/g/collect?v=2`, host: 'upstream.bench', pid: upstream.pid },
      { name: 'nginx proxy (1 worker)', url: `${nginx.base}/g/collect?v=2`, host: gateway.host, pid: nginx.pid },
      { name: 'undici proxy (20 lines)', url: `${floor.base}/g/collect?v=2`, host: gateway.host, pid: floor.pid },
      { name: 'tagport gateway', url: `${gateway.base}/g/collect?v=2`, host: gateway.host, pid: gateway.pid },
    ];
    if (baseline)
      targets.push({
        name: `tagport gateway (${path.basename(baselineTree!)})`,
        url: `${baseline.base}/g/collect?v=2`,
        host: baseline.host,
        pid: baseline.pid,
      });
    for (const target of targets) await load(target, 2); // warm-up (JIT, pools)
    const perRound: GatewayRound[] = [];
    for (let round = 1; round <= rounds; round++)
      for (const target of targets) {
        const sample = await load(target, DURATION_SECONDS);
        perRound.push({
          round,
          target: target.name,
          requests_per_second: Math.round(sample.rps),
          p50_ms: sample.p50,
          p99_ms: sample.p99,
          errors: sample.errors,
          cpu_ms_per_1k: sample.cpuPer1k,
        });
      }
    const of = (name: string) => perRound.filter((sample) => sample.target === name);
    const nginxRuns = of(targets[1].name);
    const results = targets.map((target): GatewayResult => {
      const runs = of(target.name);
      return {
        name: target.name,
        requests_per_second: median(runs.map((sample) => sample.requests_per_second)),
        p50_ms: median(runs.map((sample) => sample.p50_ms)),
        p99_ms: median(runs.map((sample) => sample.p99_ms)),
        errors: runs.reduce((sum, sample) => sum + sample.errors, 0),
        cpu_ms_per_1k: median(runs.map((sample) => sample.cpu_ms_per_1k)),
        rps_ratio_to_nginx: ratio(
          runs.map((sample, i) => sample.requests_per_second / nginxRuns[i].requests_per_second),
        ),
        p99_ratio_to_nginx: ratio(runs.map((sample, i) => sample.p99_ms / nginxRuns[i].p99_ms)),
        cpu_ratio_to_nginx: ratio(runs.map((sample, i) => sample.cpu_ms_per_1k / nginxRuns[i].cpu_ms_per_1k)),
      };
    });
    const usage = await gateway.api('GET', `/api/containers/${gateway.containerId}/usage/`);
    return { perRound, results, meteredRequests: usage.total_requests as number };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}

const ratio = (values: number[]) => Number(median(values).toFixed(2));

export function printGatewayBench({ perRound, results, meteredRequests }: Awaited<ReturnType<typeof runGatewayBench>>) {
  console.log(`\nGateway vs nginx (wrk, 1 thread, ${CONNECTIONS} connections, ${DURATION_SECONDS}s a round, http)`);
  console.table(perRound);
  console.log('Medians; ratios are the median of round-by-round ratios to nginx (target: rps ≥ 0.6, p99 ≤ 2)');
  console.table(results);
  console.log(`Requests metered by the gateway (usage API): ${meteredRequests}`);
  console.log(JSON.stringify({ gateway: results }));
}
