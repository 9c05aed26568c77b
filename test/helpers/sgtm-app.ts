import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { InjectOptions } from 'fastify';
import { Agent, request } from 'undici';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import type { TaggingServersConfig } from '../../src/config/tagging-servers.js';
import { MINI_GTAG } from '../fixtures/runtime/shop.js';
import { generateTestCertificates } from '../fixtures/scanner/certs.js';
import { testConfig } from './app.js';
import { type Backend, createTestDatabase } from './database.js';
import { testGateway } from './gateway-app.js';
import { startGoogleFixture } from './google-fixture.js';
import { freePort, waitFor } from './processes.js';
import { alive, groupAlive, STANDIN_COMMAND } from './tagging-servers.js';

export const SGTM_BASE_DOMAIN = 'containers.tagport.test';
/** The GTM container id inside SGTM_CONFIG, and the config string GTM would give for it. */
export const SGTM_GTM_ID = 'GTM-SGTM42';
export const SGTM_AUTH = 'Qx7SgtmE2eAuthSecret';
export const SGTM_CONFIG = Buffer.from(`id=${SGTM_GTM_ID}&env=3&auth=${SGTM_AUTH}`).toString('base64');

/** Resolves every name to 127.0.0.1, as Node's lookup option wants it. */
const loopbackLookup = ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
  options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4)) as never;

export interface SgtmAppOptions {
  engine?: 'node' | 'nginx';
  /**
   * SGTM_COMMAND: by default the stand-in tagging server, told where the fake collector is and to connect to the
   * gateway's TLS port for the preview URL; null: `sgtm` is off; a function gets the default and returns another.
   */
  command?: null | ((standin: string) => string);
  taggingServers?: Partial<TaggingServersConfig>;
  /** Whether the gateway listens (plain and TLS); false for API-only tests. */
  gateway?: boolean;
  /** The gateway's plain HTTP port (Pebble validates HTTP-01 there); a free one by default. */
  gatewayPort?: number;
  /** More configuration (acme, dns, …). */
  config?: Partial<Config>;
}

/**
 * An app with the gateway role (so the process driver's supervisor exists and is started here), its gateway on
 * loopback over http and https (a test CA's wildcard certificate for the base domain, trusted by the replicas
 * through EXTRA_CA_CERTS), a fake Google collector, an agency tenant, and every log line kept.
 */
export async function startSgtmApp(backend: Backend, options: SgtmAppOptions = {}) {
  const engine = options.engine ?? 'node';
  const withGateway = options.gateway ?? true;
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-sgtm-e2e-'));
  const certs = generateTestCertificates([SGTM_BASE_DOMAIN, `*.${SGTM_BASE_DOMAIN}`]);
  const caFile = path.join(directory, 'ca.pem');
  const certFile = path.join(directory, 'cert.pem');
  const keyFile = path.join(directory, 'key.pem');
  fs.writeFileSync(caFile, certs.caPem);
  fs.writeFileSync(certFile, certs.certPem);
  fs.writeFileSync(keyFile, certs.keyPem);

  const google = await startGoogleFixture({ script: (kind) => (kind === 'gtag' ? MINI_GTAG : '/* google gtm */') });
  const gatewayPort = options.gatewayPort ?? (await freePort());
  const tlsPort = await freePort();
  const standin = `/usr/bin/env STANDIN_COLLECT_URL=${google.origin}/g/collect STANDIN_CONNECT_TO=127.0.0.1:${tlsPort} ${STANDIN_COMMAND}`;
  const command = options.command === null ? null : options.command ? options.command(standin) : standin;
  const logs: string[] = [];
  const testDatabase = await createTestDatabase(backend);
  const config: Config = {
    ...testConfig({
      roles: ['api', 'gateway', 'worker'],
      allowPrivateNetworks: true,
      containerTransitionDelayMs: 20,
      // The tests poll the API; the limit per token is not what they test.
      rateLimitPerMinute: 100_000,
      secretsKey: randomBytes(32),
      gateway: testGateway({
        port: gatewayPort,
        baseDomain: SGTM_BASE_DOMAIN,
        publicIps: ['127.0.0.1'],
        logSampleRate: 0,
        tlsPort,
        tlsCertFile: certFile,
        tlsKeyFile: keyFile,
        engine,
      }),
      taggingServers: {
        driver: 'process',
        command,
        version: 'stable',
        image: 'gcr.io/cloud-tagging-10302018/gtm-cloud-image',
        kubeNamespace: 'tagport-sgtm',
        kubeconfig: null,
        startTimeoutMs: 30_000,
        healthIntervalMs: 300,
        stopGraceMs: 2_000,
        extraCaFile: caFile,
        ...options.taggingServers,
      },
      ...options.config,
    }),
    logLevel: 'debug',
  };
  const app = await buildApp({
    config,
    database: testDatabase.database,
    logStream: { write: (line: string) => void logs.push(line) },
  });
  await app.ready();
  if (withGateway) {
    if (engine === 'nginx') await app.services.nativeGateway!.start();
    else {
      await app.services.gateway.listen(gatewayPort, '127.0.0.1');
      await app.services.gatewayTls!.listen(tlsPort, '127.0.0.1');
    }
  }
  await app.services.taggingSupervisor?.start();
  const tenant = await app.services.tenants.create({ name: 'Agency', plan: 'agency', parentId: null });
  const { token } = await app.services.apiKeys.create(tenant.id, { name: 'test key', role: 'owner' });
  const dispatcher = new Agent({ connect: { ca: certs.caPem, lookup: loopbackLookup }, connections: 16 });

  const api = (method: InjectOptions['method'], url: string, payload?: object) =>
    app.inject({ method, url, payload, headers: { authorization: `Bearer ${token}` } });
  const get = async (id: string) => (await api('GET', `/api/containers/${id}/`)).json();

  return {
    app,
    engine,
    google,
    logs,
    caFile,
    caPem: certs.caPem,
    leafSpki: certs.leafSpki,
    gatewayPort,
    tlsPort,
    tenantId: tenant.id,
    token,
    api,
    get,
    supervisor: app.services.taggingSupervisor,
    /** Creates an `sgtm` container (two replicas unless `settings` say otherwise); throws unless 201. */
    async createSgtm(payload: Record<string, unknown> = {}) {
      const created = await api('POST', '/api/containers/', {
        name: 'Shop sGTM',
        region: 'eu-central',
        config: SGTM_CONFIG,
        runtime: 'sgtm',
        settings: { tagging_server: { min_replicas: 2 } },
        ...payload,
      });
      if (created.statusCode !== 201) throw new Error(`container not created: ${created.body}`);
      return created.json() as { id: string; default_hostname: string; settings: { loader_path: string } };
    },
    /** Polls the API until the container is `status`; `unless` statuses end the wait at once with an error. */
    async until(id: string, status: string, { timeoutMs = 30_000, unless = [] as string[] } = {}) {
      let last: { status?: string; status_reason?: string } = {};
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        last = await get(id);
        if (last.status === status) return last as Record<string, any>;
        if (last.status && unless.includes(last.status))
          throw new Error(`container ${id} is ${last.status} (${last.status_reason}), not ${status}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`container ${id} never got ${status}: last ${JSON.stringify(last)}`);
    },
    /** The pids of the container's replicas this process supervises (tagging and preview), `ready` ones only if asked. */
    pids(containerId: string, role?: 'tagging' | 'preview', state?: 'ready'): number[] {
      return (app.services.taggingSupervisor?.processes(containerId) ?? [])
        .filter((replica) => (!role || replica.role === role) && (!state || replica.state === state))
        .map((replica) => replica.pid)
        .filter((pid): pid is number => pid !== null);
    },
    /** A request through the gateway over https to `host` (resolved to loopback, the test CA trusted). */
    async https(
      host: string,
      target: string,
      init: { method?: 'GET' | 'POST'; headers?: Record<string, string> } = {},
    ) {
      const response = await request(`https://${host}:${tlsPort}${target}`, {
        dispatcher,
        method: init.method ?? 'GET',
        headers: init.headers,
      });
      return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
    },
    /** Closes the app (and so the supervisor); returns the pids its replicas had. */
    async close() {
      const pids = (app.services.taggingSupervisor?.processes() ?? []).map((replica) => replica.pid);
      await app.close();
      await dispatcher.close();
      await testDatabase.drop();
      await google.close();
      fs.rmSync(directory, { recursive: true, force: true });
      return pids.filter((pid): pid is number => pid !== null);
    },
  };
}

export type SgtmApp = Awaited<ReturnType<typeof startSgtmApp>>;

/** Whether no process of these replicas (nor their groups) is left. */
export function noneAlive(pids: number[]): boolean {
  return pids.every((pid) => !alive(pid) && !groupAlive(pid));
}

/** Waits until none of `pids` runs. */
export function waitNoneAlive(pids: number[], timeoutMs = 10_000) {
  return waitFor(async () => noneAlive(pids), timeoutMs, `replicas ${pids.join(', ')} to exit`);
}

/** Whether the config the nginx engine runs proxies the container itself: its hostnames are in the routing map. */
export function proxiedByNginx(s: SgtmApp, containerId: string): boolean {
  const runDir = (s.app.services.nativeGateway as unknown as { runDir: string }).runDir;
  const config = fs.readFileSync(path.join(runDir, 'nginx.conf'), 'utf8');
  const start = config.indexOf('map $host $tagport_container {');
  if (start === -1) return false;
  const map = config.slice(start, config.indexOf('}', start));
  return map.split('\n').some((line) => line.trim().endsWith(` ${containerId};`));
}
