import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { renderNginxConfig } from '../src/gateway/native/config.js';
import type { NativeRoute } from '../src/gateway/native/plan.js';
import { freePort, waitFor } from '../test/helpers/processes.js';
import { median } from './api.js';
import { load } from './gateway.js';

const NGINX = process.env.BENCH_NGINX ?? '/usr/sbin/nginx';
/** The backend answers on this port and the ones after it (below Linux's ephemeral range). */
const FIRST_PORT = 20_000;

/**
 * The addresses of pool `index`: two of the backend's ports, a different pair for each pool, so that `pools` pools
 * need 2 × √pools listening ports rather than `pools` (one nginx worker with 10,000 listening sockets served badly).
 */
function poolAddresses(index: number, pools: number): string[] {
  const side = Math.ceil(Math.sqrt(pools));
  return [FIRST_PORT + (index % side), FIRST_PORT + side + Math.floor(index / side)].map((port) => `127.0.0.1:${port}`);
}

export interface NginxRoutingRow {
  pools: number;
  position: string;
  requests_per_second: number;
  worker_us_per_request: number;
  ns_per_pool_passed: number | null;
}

/**
 * `npm run bench nginx-routing`: what the nginx engine's routing by maps costs a request by where its container's
 * pool is written. nginx finds the pool of a `proxy_pass` with variables by name, through the `upstream` blocks in
 * order. The engine's own config (renderNginxConfig) for BENCH_NGINX_POOLS containers (1000,10000), each with an
 * upstream of its own (two ports of one nginx answering 204), one nginx worker; wrk to the host whose pool comes first,
 * in the middle and last, in interleaved rounds (BENCH_ROUNDS, 3, × BENCH_DURATION s, 5).
 */
export async function runNginxRoutingBench(): Promise<NginxRoutingRow[]> {
  const sizes = (process.env.BENCH_NGINX_POOLS ?? '1000,10000').split(',').map(Number);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const duration = Number(process.env.BENCH_DURATION ?? 5);
  const rows: NginxRoutingRow[] = [];
  for (const pools of sizes) {
    const backend = await startNginx('backend', backendConfig(pools), FIRST_PORT);
    const gateway = await startNginx('gateway', (dir, port) => gatewayConfig(dir, port, pools), await portBelow());
    try {
      const positions = { first: 0, middle: Math.floor(pools / 2), last: pools - 1 };
      const samples = new Map<string, Array<{ rps: number; us: number }>>();
      for (let round = 0; round < rounds; round++) {
        const order = Object.entries(positions);
        if (round % 2) order.reverse();
        for (const [position, index] of order) {
          const target = {
            name: position,
            protocol: 'http' as const,
            url: `${gateway.base}/g/collect`,
            host: host(index),
            pid: gateway.pid,
          };
          const sample = await load(target, duration);
          if (sample.errors)
            throw new Error(
              `${sample.errors} failed requests to the ${position} pool of ${pools}: ${backend.errors()} ${gateway.errors()}`,
            );
          samples.set(position, [...(samples.get(position) ?? []), { rps: sample.rps, us: sample.cpuPer1k }]);
        }
      }
      const us = (position: string) => median(samples.get(position)!.map((sample) => sample.us));
      for (const [position, index] of Object.entries(positions))
        rows.push({
          pools,
          position,
          requests_per_second: Math.round(median(samples.get(position)!.map((sample) => sample.rps))),
          worker_us_per_request: Number(us(position).toFixed(1)),
          ns_per_pool_passed: index === 0 ? null : Math.round(((us(position) - us('first')) * 1000) / index),
        });
    } finally {
      await gateway.stop();
      await backend.stop();
    }
  }
  return rows;
}

export function printNginxRoutingBench(rows: NginxRoutingRow[]) {
  console.log("\nnginx engine: a request's pool looked up by name, by its place among the pools (one worker, wrk)");
  console.table(rows);
  console.log(JSON.stringify({ nginx_routing: rows }));
}

const host = (index: number) => `c${index}.routing.bench.test`;

/** A free port outside the backend's. */
async function portBelow(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port < FIRST_PORT) return port;
  }
}

/** One server answering 204 on a port per pool. */
function backendConfig(pools: number) {
  return (dir: string) => `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  ${temps(dir)}
  server {
    ${Array.from({ length: 2 * Math.ceil(Math.sqrt(pools)) }, (_, i) => `listen 127.0.0.1:${FIRST_PORT + i};`).join('\n    ')}
    return 204;
  }
}`;
}

/** The nginx engine's config, as it writes it, for `pools` containers each with its own upstream. */
function gatewayConfig(dir: string, port: number, pools: number) {
  const routes: NativeRoute[] = Array.from({ length: pools }, (_, i) => ({
    containerId: `ctr_${i}`,
    hostnames: [host(i)],
    upstream: {
      scheme: 'http',
      addresses: poolAddresses(i, pools),
      host: 'tagging.bench.test',
      serverName: 'tagging.bench.test',
      basePath: '',
    },
    markBots: true,
    loaderPath: `loader${i}`,
    replicas: false,
  }));
  return renderNginxConfig({
    runDir: dir,
    workers: 1,
    host: '127.0.0.1',
    httpPort: port,
    tlsPort: null,
    defaultCertificate: null,
    fallback: '127.0.0.1:9',
    frontSecret: 'bench',
    platformToken: 'bench',
    meterLog: path.join(dir, 'meter.log'),
    caFile: '/etc/ssl/certs/ca-certificates.crt',
    upstreamTimeoutMs: 15_000,
    routes,
    certificates: [],
  });
}

const temps = (dir: string) =>
  ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `${kind}_temp_path ${dir}/temp;`).join(' ');

async function startNginx(name: string, config: (dir: string, port: number) => string, port: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tagport-bench-${name}-`));
  fs.mkdirSync(path.join(dir, 'temp'));
  fs.writeFileSync(path.join(dir, 'nginx.conf'), config(dir, port));
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-e', `${dir}/error.log`, '-c', `${dir}/nginx.conf`], {
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${base}/healthz`).catch(() => null)) !== null, 20_000, `nginx (${name})`);
  return {
    base,
    pid: child.pid!,
    errors: () => fs.readFileSync(path.join(dir, 'error.log'), 'utf8').slice(-1000),
    stop: async () => {
      child.kill('SIGQUIT');
      await new Promise((resolve) => child.once('exit', resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
