import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type { Config } from '../../src/config.js';
import { startTestApp, type TestApp } from './app.js';
import type { Backend } from './database.js';
import { startDns } from './dns.js';

/** A GTM container config (base64 of `id=…&env=…&auth=…`). */
export const CONFIG = Buffer.from('id=GTM-ABC1234&env=1&auth=AbCdEf123456').toString('base64');

/** A tagging server on loopback that echoes the path and remembers what it saw. */
async function startUpstream() {
  const seen: Array<{ path: string; host?: string; forwardedHost?: string }> = [];
  const server = http.createServer((req, res) => {
    seen.push({
      path: req.url ?? '',
      host: req.headers.host,
      forwardedHost: req.headers['x-forwarded-host'] as string,
    });
    if (req.url?.startsWith('/missing')) return void res.writeHead(404).end('no');
    res.writeHead(200, { 'content-type': 'text/plain', 'x-upstream': 'sgtm' }).end(`tagging server saw ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => server.close(resolve)) };
}

/**
 * A tagging server on loopback whose `/healthz` answers `healthStatus` (everything else 200), under `basePath` in its
 * URL, remembering the health probes it got.
 */
export async function startTaggingServer({ healthStatus = 200, basePath = '' } = {}) {
  const probes: string[] = [];
  const server = http.createServer((req, res) => {
    const probe = req.url?.endsWith('/healthz') ?? false;
    if (probe) probes.push(req.url ?? '');
    res.writeHead(probe ? healthStatus : 200).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    probes,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * Records each request the Node gateway's listener is handed (`host target`): behind the nginx engine, what nginx did
 * not proxy itself. `restore()` puts the gateway's own listener back.
 */
export function recordHandOffs(services: { gateway: unknown }): { handed: string[]; restore(): void } {
  const gateway = services.gateway as { requestListener: http.RequestListener };
  const handle = gateway.requestListener;
  const handed: string[] = [];
  gateway.requestListener = (req, res) => {
    handed.push(`${req.headers.host} ${req.url}`);
    handle(req, res);
  };
  const restore = () => {
    gateway.requestListener = handle;
  };
  return { handed, restore };
}

/** Gateway settings for tests: any free port, flushes only when asked, every request logged; `overrides` win. */
export function testGateway(overrides: Partial<Config['gateway']> = {}): Config['gateway'] {
  return {
    port: 0,
    baseDomain: 'containers.tagport.test',
    publicIps: [],
    flushMs: 60_000,
    logSampleRate: 1,
    upstreamTimeoutMs: 2000,
    ...overrides,
  };
}

/**
 * An app whose gateway listens on a free loopback port (flushes only when asked, every request logged).
 * `gateway` and the other overrides replace the defaults field by field.
 */
export async function startAppWithGateway(
  backend: Backend,
  { gateway, ...overrides }: Partial<Omit<Config, 'gateway'>> & { gateway?: Partial<Config['gateway']> } = {},
): Promise<{ t: TestApp; gatewayUrl: string }> {
  const t = await startTestApp(backend, {
    allowPrivateNetworks: true,
    containerTransitionDelayMs: 10,
    gateway: testGateway(gateway),
    ...overrides,
  });
  return { t, gatewayUrl: await t.app.services.gateway.listen(0, '127.0.0.1') };
}

/** Starts the app's gateway on its engine and gives its plain-HTTP base URL: nginx's port, or the Node listener's. */
export async function startGatewayOf(t: TestApp, engine: 'node' | 'nginx'): Promise<string> {
  return engine === 'nginx'
    ? (await t.app.services.nativeGateway!.start()).http
    : await t.app.services.gateway.listen(0, '127.0.0.1');
}

/** Built-in runtime settings that load Google's tags from, and forward hits to, a local stand-in at `origin`. */
export function testRuntime(origin: string): Config['runtime'] {
  return {
    googleTagOrigin: origin,
    ga4CollectOrigin: origin,
    forwardQueueSize: 100,
    forwardConcurrency: 4,
    forwardConnections: 2,
    forwardPipelining: 4,
    forwardTimeoutMs: 2000,
    forwardMaxAttempts: 3,
    forwardRetryBaseMs: 10,
    forwardDrainMs: 1000,
    outgoingLogDeliveredPerSecond: 1000,
  };
}

/** Creates a built-in container through the API (GTM config `CONFIG`) and waits until it runs. */
export async function createBuiltinContainer(t: TestApp, token: string, payload: Record<string, unknown> = {}) {
  const created = await t.inject({
    method: 'POST',
    url: '/api/containers/',
    token,
    payload: { name: 'Shop', region: 'eu-central', config: CONFIG, ...payload },
  });
  if (created.statusCode !== 201) throw new Error(`container not created: ${created.body}`);
  await t.app.services.containerWorker.idle();
  return created.json() as { id: string; default_hostname: string; settings: { loader_path: string } };
}

/** The app with its gateway listening on loopback, a tagging server upstream and a DNS server for custom domains. */
export async function startGatewayApp(backend: Backend) {
  const upstream = await startUpstream();
  const dns = await startDns();
  const { t, gatewayUrl } = await startAppWithGateway(backend, {
    containerTransitionDelayMs: 20,
    gateway: { publicIps: ['203.0.113.10'] },
    dns: { resolvers: [`127.0.0.1:${dns.port}`], timeoutMs: 5_000, recheckIntervalMs: 60_000 },
  });
  const tenant = await t.tenantWithKey('business');
  return {
    t,
    upstream,
    dns,
    gatewayUrl,
    tenant,
    api: (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
      t.inject({ method, url, token: tenant.token, payload }),
    /** Waits until the container worker has finished every pending transition. */
    settle: () => t.app.services.containerWorker.idle(),
    /** A request through the gateway with the given Host. */
    async through(host: string, path = '/g/collect?v=2') {
      const response = await request(`${gatewayUrl}${path}`, { headers: { host } });
      return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
    },
    async close() {
      await t.close();
      await upstream.close();
      dns.close();
    },
  };
}

export type GatewayApp = Awaited<ReturnType<typeof startGatewayApp>>;
