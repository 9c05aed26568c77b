import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { postgresBinDir, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';
import { waitFor } from '../helpers/processes.js';
import { testGateway } from '../helpers/gateway-app.js';

const CONFIG = Buffer.from('id=GTM-ABC1234&env=1&auth=AbCdEf123456').toString('base64');
// Long enough that only an invalidation, never expiry, can drop a cached credential during the test.
const ONE_HOUR_MS = 3_600_000;

async function statusOf(base: string, token: string): Promise<{ status: number; code?: string; names: string[] }> {
  const response = await request(`${base}/api/tenants/`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await response.body.json()) as { results?: Array<{ name: string }>; error?: { code: string } };
  return {
    status: response.statusCode,
    code: body.error?.code,
    names: (body.results ?? []).map((tenant) => tenant.name),
  };
}

async function startUpstream() {
  const server = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/plain' }).end('tagging server'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Runs SQL over the cluster's Unix socket: a writer the app instances cannot hear from, like a missed NOTIFY. */
async function sqlOverSocket(cluster: PostgresCluster, text: string, values: unknown[]): Promise<void> {
  const client = new pg.Client(cluster.socket);
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

describe.runIf(postgresBinDir)(
  'cache invalidation across a PostgreSQL restart (two instances, private cluster)',
  () => {
    let cluster: PostgresCluster;
    let upstream: Awaited<ReturnType<typeof startUpstream>>;
    let databaseB: Database;
    let a: TestApp;
    let b: TestApp;
    let baseA: string;
    let baseB: string;
    let gatewayB: string;

    beforeAll(async () => {
      cluster = await startPostgresCluster('listen-reconnect');
      upstream = await startUpstream();
      const databaseA = await openDatabase({ databaseUrl: cluster.url, pgliteDataDir: '', poolSize: 5 });
      await databaseA.migrate();
      // Each instance has its own pool and LISTEN connection, as two processes would.
      databaseB = await openDatabase({ databaseUrl: cluster.url, pgliteDataDir: '', poolSize: 5 });
      const overrides = {
        authCacheTtlMs: ONE_HOUR_MS,
        allowPrivateNetworks: true,
        containerTransitionDelayMs: 0,
        gateway: testGateway({ logSampleRate: 0 }),
      };
      a = await startTestApp('postgres', overrides, {
        database: databaseA,
        url: cluster.url,
        drop: () => databaseA.close(),
      });
      b = await startTestApp('postgres', overrides, {
        database: databaseB,
        url: cluster.url,
        drop: () => databaseB.close(),
      });
      baseA = await a.app.listen({ host: '127.0.0.1', port: 0 });
      baseB = await b.app.listen({ host: '127.0.0.1', port: 0 });
      gatewayB = await b.app.services.gateway.listen(0, '127.0.0.1');
    }, 60_000);

    afterAll(async () => {
      await a?.close();
      await b?.close();
      await a?.testDatabase.drop();
      await b?.testDatabase.drop();
      await upstream?.close();
      await cluster?.destroy();
    }, 60_000);

    it('after `pg_ctl restart`, a key revoked on instance A is refused by instance B within seconds', async () => {
      const tenant = await a.tenantWithKey();
      expect((await statusOf(baseB, tenant.token)).status).toBe(200);

      await cluster.restart();
      // The pools reconnect on their own; the revocation goes through instance A's API as a user would.
      await waitFor(
        async () => {
          const revoke = await request(`${baseA}/api/api-keys/${tenant.keyId}/`, {
            method: 'DELETE',
            headers: { authorization: `Bearer ${tenant.token}` },
          });
          await revoke.body.dump();
          return revoke.statusCode === 200;
        },
        10_000,
        'the revocation on instance A',
      );

      await waitFor(
        async () => (await statusOf(baseB, tenant.token)).status === 401,
        10_000,
        'instance B to refuse the revoked key',
      );
      expect(await statusOf(baseB, tenant.token)).toMatchObject({ status: 401, code: 'api_key_revoked' });
    }, 60_000);

    it('drops every cached key, tenant list and gateway route when the LISTEN connection comes back, since notifications sent meanwhile were lost', async () => {
      const agency = await a.tenantWithKey('agency');
      const client = await a.tenantWithKey('business', agency.tenantId);
      const created = await a.inject({
        method: 'POST',
        url: '/api/containers/',
        token: client.token,
        payload: { name: 'Shop sGTM', region: 'eu-central', config: CONFIG, upstream_url: upstream.url },
      });
      expect(created.statusCode, created.body).toBe(201);
      const container = created.json() as { id: string; default_hostname: string };
      const throughGateway = async () => {
        const response = await request(`${gatewayB}/g/collect`, { headers: { host: container.default_hostname } });
        await response.body.dump();
        return response.statusCode;
      };
      const running = async () =>
        (await a.inject({ method: 'GET', url: `/api/containers/${container.id}/`, token: client.token })).json()
          .status === 'running';
      await waitFor(running, 10_000, 'the container to run');

      // Instance B caches the key, the agency's tenant list and the gateway route.
      expect(await throughGateway()).toBe(200);
      expect(await statusOf(baseB, client.token)).toMatchObject({ status: 200 });
      expect((await statusOf(baseB, agency.token)).names).toHaveLength(2);

      // While only the Unix socket is open, the app instances cannot reconnect: these writes' NOTIFYs reach no one.
      await cluster.restartSocketOnly();
      await sqlOverSocket(cluster, 'update api_keys set revoked_at = now() where id = $1', [client.keyId]);
      await sqlOverSocket(cluster, "update tenants set name = 'Renamed while unheard' where id = $1", [
        client.tenantId,
      ]);
      await sqlOverSocket(cluster, "update containers set status = 'stopped' where id = $1", [container.id]);
      await cluster.restart();

      await waitFor(
        async () => (await statusOf(baseB, client.token)).status === 401,
        15_000,
        'instance B to drop the key revoked while it could not listen',
      );
      expect(await statusOf(baseB, client.token)).toMatchObject({ status: 401, code: 'api_key_revoked' });
      expect((await statusOf(baseB, agency.token)).names).toContain('Renamed while unheard');
      expect(await throughGateway()).toBe(503);
    }, 60_000);
  },
);
