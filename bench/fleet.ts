import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { Agent, request } from 'undici';
import { freePort, waitFor } from '../test/helpers/processes.js';
import { median, startPostgres, startProcess } from './api.js';
import { load } from './gateway.js';
import { type FleetCa, fleetCa, fleetHostname, seedFleet } from './fleet-seed.js';
import { treeCpuMs, treeMemoryByKind, treeMemoryMb } from './process-tree.js';

/**
 * `npm run bench fleet`: a gateway serving a fleet, on PostgreSQL. For each size (BENCH_FLEET_SIZES, default 1000)
 * it seeds that many `upstream` containers (half with a base path) and as many custom domains with certificates from
 * a test CA, then for each engine (BENCH_FLEET_ENGINES, default node,nginx) starts a gateway process
 * (`TAGPORT_ROLES=gateway`) beside an API process and measures: start to the first correct answer on a custom
 * domain; the memory of the gateway's process tree (PSS: nginx's workers share pages with their master); its CPU per
 * minute when idle; from a change in the API to the first answer that shows it (BENCH_FLEET_CHANGES, p50/p95); requests
 * per second over a random spread of hosts against one host (interleaved rounds); and failed requests while 100
 * changes a minute are applied under load.
 */

const run = promisify(execFile);
const bin = path.resolve('bin/tagport.js');
const SIZES = (process.env.BENCH_FLEET_SIZES ?? '1000').split(',').map(Number);
const ENGINES = (process.env.BENCH_FLEET_ENGINES ?? 'node,nginx').split(',') as Array<'node' | 'nginx'>;
const CHANGES = Number(process.env.BENCH_FLEET_CHANGES ?? 40);
const ROUNDS = Number(process.env.BENCH_FLEET_ROUNDS ?? 3);
const DURATION = Number(process.env.BENCH_FLEET_DURATION ?? 5);
const BASE_DOMAIN = 'gw.fleet.test';
const CONTAINER_CONFIG = Buffer.from('id=GTM-FLEET01&env=1&auth=AbCdEf123456').toString('base64');

export interface FleetRow {
  size: number;
  engine: string;
  ready_s: number;
  /** The gateway's memory right after it served its first correct answer, before any load. */
  memory_at_ready_mb: number;
  memory_mb: number;
  /** The same memory by kind of process (the Node gateway, nginx's master and its workers). */
  memory_by_process: string;
  idle_cpu_ms_per_min: number;
  change_p50_ms: number;
  change_p95_ms: number;
  spread_rps: number;
  one_host_rps: number;
  spread_ratio: number;
  spread_p99_ms: number;
  /** The gateway's process tree's CPU per 1,000 requests: what a request costs, whoever runs out first. */
  spread_cpu_ms_per_1k: number;
  one_host_cpu_ms_per_1k: number;
  failed_during_changes: string;
}

/** Two upstream tagging servers that answer with their name: a change of upstream shows in the body. */
async function startUpstreams() {
  const start = (name: string) =>
    new Promise<http.Server>((resolve) => {
      const server = http.createServer((req, res) => res.writeHead(200).end(`${name} ${req.url}`));
      server.keepAliveTimeout = 30_000;
      server.listen(0, '127.0.0.1', () => resolve(server));
    });
  const servers = [await start('A'), await start('B')];
  const url = (server: http.Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    a: url(servers[0]),
    b: url(servers[1]),
    close: () => {
      for (const server of servers) server.close();
    },
  };
}

/** The process tree's memory (PSS, MB) in all and by kind of process, as `node 212, nginx: worker process 81`. */
function memoryByKind(root: number): { total: number; kinds: string } {
  const byKind = treeMemoryByKind(root);
  return {
    total: Object.values(byKind).reduce((sum, mb) => sum + mb, 0),
    kinds: Object.entries(byKind)
      .map(([kind, mb]) => `${kind} ${mb}`)
      .join(', '),
  };
}

/** The process tree's proportional memory (MB) and CPU time (ms). */
const tree = (root: number) => ({ memoryMb: treeMemoryMb(root), cpuMs: treeCpuMs(root) });

async function fleetSize(clusterUrl: string, size: number, ca: FleetCa): Promise<FleetRow[]> {
  const admin = new pg.Client(clusterUrl);
  await admin.connect();
  const name = `tagport_bench_fleet_${size}`;
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  const secretsKey = randomBytes(32);
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: clusterUrl.replace(/\/[^/]*$/, `/${name}`),
    SECRETS_KEY: secretsKey.toString('base64'),
    ALLOW_PRIVATE_NETWORKS: 'true',
    CONTAINER_TRANSITION_DELAY_MS: '0',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '100000000',
    GATEWAY_BASE_DOMAIN: BASE_DOMAIN,
    // Certificates are served only with ACME on; every seeded one is months from renewal, so it is never called.
    ACME_DIRECTORY_URL: 'http://127.0.0.1:9/directory',
    COOKIE_SECRET: randomBytes(32).toString('base64url'),
  };
  const cli = async (...args: string[]) =>
    JSON.parse((await run(process.execPath, [bin, ...args], { env: { ...process.env, ...env } })).stdout);
  const upstreams = await startUpstreams();
  const api = await startProcess([bin, 'serve'], { ...env, TAGPORT_ROLES: 'api,worker', GATEWAY_PORT: '0' }, '/readyz');
  try {
    const tenant = await cli('tenants', 'create', '--name', 'Fleet', '--plan', 'agency');
    const key = await cli('keys', 'create', '--tenant', tenant.id, '--name', 'bench');
    const call = async (method: string, url: string, body?: object) => {
      const response = await fetch(`${api.base}${url}`, {
        method,
        headers: { authorization: `Bearer ${key.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
      return response.json();
    };
    const template = await call('POST', '/api/containers/', {
      name: 'Template',
      region: 'eu-central',
      config: CONTAINER_CONFIG,
      upstream_url: upstreams.a,
    });
    await waitFor(
      async () => (await call('GET', `/api/containers/${template.id}/`)).status === 'running',
      30_000,
      'the template container',
    );
    const domain = await call('POST', '/api/domains/', { hostname: 'template.fleet.test', container_id: template.id });
    const seeded = performance.now();
    const ids = await seedFleet(
      env.DATABASE_URL!,
      { containerId: template.id, domainId: domain.id, config: CONTAINER_CONFIG },
      {
        size,
        upstream: upstreams.a,
        secretsKey,
        ca,
      },
    );
    console.log(`[fleet] ${size}: seeded in ${Math.round(performance.now() - seeded)} ms`);
    const rows: FleetRow[] = [];
    for (const engine of ENGINES) rows.push(await measureEngine({ size, engine, env, ids, call, ca, upstreams }));
    return rows;
  } finally {
    await api.stop();
    upstreams.close();
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end();
  }
}

interface EngineRun {
  size: number;
  engine: 'node' | 'nginx';
  env: NodeJS.ProcessEnv;
  ids: string[];
  call: (method: string, url: string, body?: object) => Promise<{ [key: string]: unknown }>;
  ca: FleetCa;
  upstreams: { a: string; b: string };
}

async function measureEngine({ size, engine, env, ids, call, ca, upstreams }: EngineRun): Promise<FleetRow> {
  const tlsPort = await freePort();
  const fetchHost = async (hostname: string) => {
    const answer = await request(`https://127.0.0.1:${tlsPort}/g/collect`, {
      dispatcher: new Agent({ connect: { ca: ca.certificatePem, servername: hostname } }),
      headers: { host: hostname },
    });
    return { status: answer.statusCode, body: await answer.body.text() };
  };
  const started = performance.now();
  const gateway = await startProcess(
    [bin, 'serve'],
    {
      ...env,
      TAGPORT_ROLES: 'gateway',
      GATEWAY_ENGINE: engine,
      GATEWAY_PORT: String(await freePort()),
      GATEWAY_TLS_PORT: String(tlsPort),
    },
    '/readyz',
  );
  try {
    const last = fleetHostname(size);
    let seen = '';
    await waitFor(
      async () => {
        const answer = await fetchHost(last).catch((error: Error) => ({
          status: 0,
          body: String(error.cause ?? error),
        }));
        seen = `${answer.status} ${answer.body.slice(0, 200)}`;
        return answer.status === 200;
      },
      120_000,
      `${last} over https`,
    ).catch((error) => {
      throw new Error(`${error.message}; last answer: ${seen}`);
    });
    const readyS = (performance.now() - started) / 1000;
    const memoryAtReady = memoryByKind(gateway.pid);
    await settled(gateway.pid);
    // The seeded ids are `ctr_<i, 26 digits>` for the default hostnames `fleet<i>.<base domain>`.
    const hosts = ids.map((id) => ({ id, host: `fleet${Number(id.slice('ctr_'.length))}.${BASE_DOMAIN}` }));
    const spread = await throughput(
      tlsPort,
      hosts.map(({ host }) => host),
      gateway.pid,
    );
    const idleBefore = tree(gateway.pid);
    await new Promise((resolve) => setTimeout(resolve, 20_000));
    const idleCpu = ((tree(gateway.pid).cpuMs - idleBefore.cpuMs) * 60) / 20;
    const memoryMb = tree(gateway.pid).memoryMb;
    const memoryByProcess = memoryByKind(gateway.pid);
    const latencies: number[] = [];
    for (let i = 0; i < CHANGES; i++) latencies.push(await change(hosts, i, call, upstreams, tlsPort));
    const failures = await failuresDuringChanges(hosts, call, upstreams, tlsPort);
    latencies.sort((a, b) => a - b);
    return {
      size,
      engine,
      ready_s: Math.round(readyS * 10) / 10,
      memory_at_ready_mb: Math.round(memoryAtReady.total),
      memory_mb: Math.round(memoryMb),
      memory_by_process: `at ready: ${memoryAtReady.kinds}; after load: ${memoryByProcess.kinds}`,
      idle_cpu_ms_per_min: Math.round(idleCpu),
      change_p50_ms: Math.round(median(latencies)),
      change_p95_ms: Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.95))]),
      ...spread,
      failed_during_changes: failures,
    };
  } finally {
    await gateway.stop();
  }
}

/**
 * Waits until the gateway is idle after its start (under 5 % of a core over half a second, 30 s at most): it reads
 * every route in the background once ready, and a throughput round begun meanwhile measures that reading too.
 */
async function settled(pid: number): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    const before = treeCpuMs(pid);
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (treeCpuMs(pid) - before < 25) return;
  }
}

/** From a change of one container's upstream in the API to the first answer on its host that comes from the new one. */
async function change(
  hosts: Array<{ id: string; host: string }>,
  index: number,
  call: EngineRun['call'],
  upstreams: EngineRun['upstreams'],
  tlsPort: number,
): Promise<number> {
  const { id, host } = hosts[(index * 7919) % hosts.length];
  const current = (await call('GET', `/api/containers/${id}/`)).upstream_url as string;
  const next = current.startsWith(upstreams.a) ? upstreams.b : upstreams.a;
  const marker = next === upstreams.a ? 'A ' : 'B ';
  // A default hostname: the gateway's own development certificate, not the fleet CA's (the body is what is checked).
  const dispatcher = new Agent({ connect: { servername: host, rejectUnauthorized: false } });
  const started = performance.now();
  await call('PATCH', `/api/containers/${id}/`, { upstream_url: next });
  try {
    for (;;) {
      // A kept-alive connection closed by a reload (nginx) is asked again, as a browser would.
      const answer = await request(`https://127.0.0.1:${tlsPort}/g/collect`, { dispatcher, headers: { host } }).catch(
        () => null,
      );
      const body = (await answer?.body.text()) ?? '';
      if (answer?.statusCode === 200 && body.startsWith(marker)) return performance.now() - started;
      if (performance.now() - started > 30_000) throw new Error(`${host}: the change was not served in 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    await dispatcher.close();
  }
}

/**
 * Requests per second, p99 and the gateway's CPU per 1,000 requests over every host at random, and over one host, in
 * interleaved rounds. wrk (C, one thread) sends them: a client in Node on the same two cores ran out before the
 * gateways did. Each request's Host is drawn by a Lua script from its list, the same script for one host.
 */
async function throughput(tlsPort: number, hosts: string[], pid: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-bench-fleet-'));
  const script = (name: string, list: string[]) => {
    const file = path.join(dir, `${name}.lua`);
    fs.writeFileSync(
      file,
      `local hosts = { ${list.map((host) => JSON.stringify(host)).join(', ')} }
request = function()
  return wrk.format("GET", "/g/collect", { Host = hosts[math.random(#hosts)] })
end
`,
    );
    return file;
  };
  const spreadScript = script('spread', hosts);
  const oneScript = script('one', [hosts[0]]);
  const target = {
    name: 'fleet',
    protocol: 'https' as const,
    url: `https://127.0.0.1:${tlsPort}/g/collect`,
    host: hosts[0],
    pid,
  };
  const rounds: Array<{ spread: Awaited<ReturnType<typeof load>>; one: Awaited<ReturnType<typeof load>> }> = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const spread = await load(target, DURATION, spreadScript);
      const one = await load(target, DURATION, oneScript);
      if (spread.errors || one.errors)
        throw new Error(`failed requests in a throughput round: ${spread.errors} spread, ${one.errors} one host`);
      rounds.push({ spread, one });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const of = (pick: (round: (typeof rounds)[number]) => number) => median(rounds.map(pick));
  return {
    spread_rps: Math.round(of(({ spread }) => spread.rps)),
    one_host_rps: Math.round(of(({ one }) => one.rps)),
    spread_ratio: Math.round(of(({ spread, one }) => spread.rps / one.rps) * 100) / 100,
    spread_p99_ms: of(({ spread }) => spread.p99),
    spread_cpu_ms_per_1k: of(({ spread }) => spread.cpuPer1k),
    one_host_cpu_ms_per_1k: of(({ one }) => one.cpuPer1k),
  };
}

/** Failed requests (non-2xx, errors) over a spread of hosts while changes come at 100 a minute. */
async function failuresDuringChanges(
  hosts: Array<{ id: string; host: string }>,
  call: EngineRun['call'],
  upstreams: EngineRun['upstreams'],
  tlsPort: number,
): Promise<string> {
  let changing = true;
  const changes = (async () => {
    for (let i = 0; changing; i++) {
      const { id } = hosts[(i * 104_729) % hosts.length];
      await call('PATCH', `/api/containers/${id}/`, { upstream_url: i % 2 ? upstreams.a : upstreams.b });
      await new Promise((resolve) => setTimeout(resolve, 600));
    }
  })();
  const result = await autocannon({
    url: `https://127.0.0.1:${tlsPort}`,
    connections: 16,
    duration: 20,
    tlsOptions: { servername: BASE_DOMAIN, rejectUnauthorized: false },
    requests: [
      {
        method: 'GET',
        path: '/g/collect',
        setupRequest: (req) => ({
          ...req,
          headers: { ...req.headers, host: hosts[Math.floor(Math.random() * hosts.length)].host },
        }),
      },
    ],
  } as autocannon.Options);
  changing = false;
  await changes;
  return `${result.non2xx + result.errors} of ${result.requests.total}`;
}

export async function runFleetBench(): Promise<FleetRow[]> {
  const cluster = process.env.BENCH_DATABASE_URL ? null : await startPostgres();
  const clusterUrl = process.env.BENCH_DATABASE_URL ?? cluster!.url;
  try {
    const ca = await fleetCa();
    const rows: FleetRow[] = [];
    for (const size of SIZES) {
      const measured = await fleetSize(clusterUrl, size, ca);
      console.log(JSON.stringify({ fleet_size: measured }));
      rows.push(...measured);
    }
    return rows;
  } finally {
    await cluster?.stop();
  }
}

export function printFleetBench(rows: FleetRow[]) {
  console.log(`\nA gateway serving a fleet (PostgreSQL; ${CHANGES} changes; ${ROUNDS} rounds × ${DURATION} s)`);
  console.table(rows);
  console.log(JSON.stringify({ fleet: rows }));
}
