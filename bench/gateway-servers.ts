import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { selfSignedWildcard } from '../src/gateway/tls.js';
import { freePort, waitFor } from '../test/helpers/processes.js';
import { startProcess } from './api.js';

const run = promisify(execFile);
const NGINX = process.env.BENCH_NGINX ?? '/usr/sbin/nginx';
/** What a tagging server answers to a collect hit: a small body. */
const UPSTREAM_BODY = '{"ok":true}';
/** The gateway's base domain in the bench: the certificate is a wildcard for it, shared by nginx and the gateway. */
export const BENCH_BASE_DOMAIN = 'containers.bench.test';

export interface Certificate {
  certFile: string;
  keyFile: string;
  stop(): Promise<void>;
}

/** One self-signed `*.<BENCH_BASE_DOMAIN>` certificate (the gateway's development kind) in files, for both servers. */
export async function benchCertificate(): Promise<Certificate> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-bench-cert-'));
  const pair = await selfSignedWildcard(BENCH_BASE_DOMAIN);
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  fs.writeFileSync(certFile, pair.certificatePem);
  fs.writeFileSync(keyFile, pair.privateKeyPem, { mode: 0o600 });
  return { certFile, keyFile, stop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * nginx with one process (`master_process off`), its config, pid, logs and temp files in a temp directory.
 * `server` is the body of a server block listening on a plain port and, when `tls` is given, on a TLS port too.
 */
export async function startNginx(
  name: string,
  server: string,
  { extraHttp = '', tls }: { extraHttp?: string; tls?: Certificate } = {},
) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tagport-bench-${name}-`));
  const port = await freePort();
  const tlsPort = tls ? await freePort() : null;
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((kind) => `${kind}_temp_path ${dir}/${kind};`)
    .join(' ');
  const tlsServer = tls
    ? `server {
    listen 127.0.0.1:${tlsPort} ssl reuseport;
    ssl_certificate ${tls.certFile};
    ssl_certificate_key ${tls.keyFile};
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:SSL:1m;
    ${server}
  }`
    : '';
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
  ${tlsServer}
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
    tlsBase: tlsPort === null ? null : `https://127.0.0.1:${tlsPort}`,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fixed-response server: nginx answering every request itself, far faster than either proxy in front of it. */
export const startUpstream = () =>
  startNginx('upstream', `location / { default_type application/json; return 200 '${UPSTREAM_BODY}'; }`, {});

/**
 * nginx as the reference proxy: one worker, `proxy_pass` to an `upstream` block with keep-alive connections,
 * on plain http and terminating TLS with the gateway's certificate.
 */
export const startNginxProxy = (upstreamBase: string, tls: Certificate) =>
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
    { extraHttp: `upstream tagging { server ${new URL(upstreamBase).host}; keepalive 64; }`, tls },
  );

/** The 20-line undici proxy (bench/undici-proxy.mjs), on http and, with `tls`, on https with that certificate. */
export async function startFloor(upstreamBase: string, tls?: Certificate) {
  const tlsPort = tls ? await freePort() : null;
  const floor = await startProcess(
    ['bench/undici-proxy.mjs'],
    {
      UPSTREAM: upstreamBase,
      ...(tls ? { TLS_PORT: String(tlsPort), TLS_CERT: tls.certFile, TLS_KEY: tls.keyFile } : {}),
    },
    '/',
  );
  return { ...floor, tlsBase: tls ? `https://127.0.0.1:${tlsPort}` : null };
}

/**
 * A database for one gateway: PGlite in a temp directory for a single process (as a default install runs), or for
 * GATEWAY_WORKERS > 1 a fresh database on the PostgreSQL server BENCH_DATABASE_URL names, dropped afterwards.
 */
async function benchDatabase(
  workers: number,
  dedicated: boolean,
): Promise<{ env: NodeJS.ProcessEnv; drop(): Promise<void> }> {
  const serverUrl = process.env.BENCH_DATABASE_URL;
  if ((workers > 1 || dedicated) && !serverUrl)
    throw new Error('A gateway in other processes needs PostgreSQL: set BENCH_DATABASE_URL (a server URL).');
  if ((workers === 1 && !dedicated) || !serverUrl) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-bench-gateway-'));
    return {
      env: { PGLITE_DATA_DIR: dataDir, DATABASE_URL: '' },
      drop: async () => {
        fs.rmSync(dataDir, { recursive: true, force: true });
        fs.rmSync(`${dataDir}.cookie-secret`, { force: true });
      },
    };
  }
  const name = `tagport_bench_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { env: { DATABASE_URL: url.toString() }, drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/**
 * The real service from the CLI (metering and log sampling at their defaults), with one running container whose
 * upstream is the fixed-response server. With `tls`, the gateway's TLS listener serves the bench certificate (and
 * its plain port then redirects, so http and https are measured on two gateways). Private networks are allowed
 * so the loopback upstream passes the SSRF guard (bench only).
 */
export async function startTagportGateway(
  upstreamBase: string,
  {
    root = process.cwd(),
    nodeArgs = [],
    tls,
    workers = 1,
    dedicated = false,
    engine = 'node',
  }: {
    root?: string;
    nodeArgs?: string[];
    tls?: Certificate;
    workers?: number;
    /** The gateway in a process of its own (`TAGPORT_ROLES=gateway`) beside an API and worker process, on PostgreSQL. */
    dedicated?: boolean;
    /** GATEWAY_ENGINE: `nginx` serves the gateway's ports with nginx (src/gateway/native/). */
    engine?: 'node' | 'nginx';
  } = {},
) {
  const bin = path.join(root, 'bin/tagport.js');
  const database = await benchDatabase(engine === 'nginx' ? 1 : workers, dedicated);
  const env: NodeJS.ProcessEnv = {
    ...database.env,
    ALLOW_PRIVATE_NETWORKS: 'true',
    CONTAINER_TRANSITION_DELAY_MS: '0',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '100000000',
    GATEWAY_BASE_DOMAIN: BENCH_BASE_DOMAIN,
    COOKIE_SECRET: randomBytes(32).toString('base64url'),
  };
  const cli = async (...args: string[]) =>
    JSON.parse((await run(process.execPath, [bin, ...args], { env: { ...process.env, ...env } })).stdout);
  if (database.env.DATABASE_URL) await cli('migrate');
  const gatewayPort = await freePort();
  const tlsPort = tls ? await freePort() : null;
  const tenant = await cli('tenants', 'create', '--name', 'Bench gateway', '--plan', 'business');
  const key = await cli('keys', 'create', '--tenant', tenant.id, '--name', 'bench');
  const server = await startProcess(
    [...nodeArgs, bin, 'serve'],
    {
      ...env,
      GATEWAY_PORT: String(gatewayPort),
      ...gatewayOverrides(),
      GATEWAY_WORKERS: String(workers),
      GATEWAY_ENGINE: engine,
      ...(tls
        ? { GATEWAY_TLS_PORT: String(tlsPort), GATEWAY_TLS_CERT: tls.certFile, GATEWAY_TLS_KEY: tls.keyFile }
        : {}),
    },
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
  // The API answers first; with GATEWAY_WORKERS the gateway's listeners come up in the workers a little later.
  await waitFor(() => accepts(tlsPort ?? gatewayPort), 60_000, 'the gateway to listen');
  const gateway = dedicated ? await startDedicatedGateway(bin, env, nodeArgs, tls) : null;
  return {
    base: gateway?.base ?? (tls ? `https://127.0.0.1:${tlsPort}` : `http://127.0.0.1:${gatewayPort}`),
    pid: gateway?.pid ?? server.pid,
    host: container.default_hostname as string,
    api,
    containerId: container.id as string,
    stop: async () => {
      await gateway?.stop();
      await server.stop();
      await database.drop();
    },
  };
}

/** `tagport serve` with only the gateway role: how the data plane is deployed beside API and worker processes. */
async function startDedicatedGateway(bin: string, env: NodeJS.ProcessEnv, nodeArgs: string[], tls?: Certificate) {
  const port = await freePort();
  const tlsPort = tls ? await freePort() : null;
  const server = await startProcess(
    [...nodeArgs, bin, 'serve'],
    {
      ...env,
      TAGPORT_ROLES: 'gateway',
      GATEWAY_PORT: String(port),
      ...gatewayOverrides(),
      ...(tls
        ? { GATEWAY_TLS_PORT: String(tlsPort), GATEWAY_TLS_CERT: tls.certFile, GATEWAY_TLS_KEY: tls.keyFile }
        : {}),
    },
    '/readyz',
  );
  return { ...server, base: tls ? `https://127.0.0.1:${tlsPort}` : `http://127.0.0.1:${port}` };
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** GATEWAY_* variables given to the bench (e.g. GATEWAY_LOG_SAMPLE_RATE=0 to compare), passed to the service. */
function gatewayOverrides(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('GATEWAY_')));
}
