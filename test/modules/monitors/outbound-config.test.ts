import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { CONTAINER_TRANSITIONS } from '../../../src/modules/containers/worker.js';
import { MONITOR_CHECKS } from '../../../src/modules/monitors/checks.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { startDns, type TestDns } from '../../helpers/dns.js';
import { CONFIG } from '../../helpers/gateway-app.js';
import { startHttpsTarget } from '../../helpers/https-target.js';

const SHOP = 'shop.outbound.test';
const TAGGING = 'sgtm.outbound.test';

/**
 * DNS_RESOLVERS and EXTRA_CA_CERTS, as an operator sets them, serve every outbound request: a name only the configured
 * DNS server knows, served with a certificate of a CA only the configured file holds.
 */
describe('one outbound configuration: resolvers and CA certificates from the environment', () => {
  let dns: TestDns;
  let target: Awaited<ReturnType<typeof startHttpsTarget>>;
  let caDir: string;
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    dns = await startDns();
    for (const name of [SHOP, TAGGING]) dns.records.set(name, [{ type: 'A', value: '127.0.0.1' }]);
    target = await startHttpsTarget(() => ({ status: 200, body: '<h1>Shop</h1>' }), { hosts: [SHOP, TAGGING] });
    caDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-outbound-ca-'));
    fs.writeFileSync(path.join(caDir, 'ca.pem'), target.ca);
    const fromEnvironment = loadConfig({
      DNS_RESOLVERS: `127.0.0.1:${dns.port}`,
      EXTRA_CA_CERTS: path.join(caDir, 'ca.pem'),
    });
    t = await startTestApp('pglite', {
      allowPrivateNetworks: true,
      runWorkers: false,
      containerTransitionDelayMs: 0,
      dns: fromEnvironment.dns,
      outboundCaCertificates: fromEnvironment.outboundCaCertificates,
    });
    token = (await t.tenantWithKey('business')).token;
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await target?.close();
    dns?.close();
    if (caDir) fs.rmSync(caDir, { recursive: true, force: true });
  });

  const post = (url: string, payload: object) => t.inject({ method: 'POST', url, token, payload });

  it('a monitor of a domain that resolves only through DNS_RESOLVERS, with a certificate of an extra CA, is up', async () => {
    const created = await post('/api/monitors/', {
      name: 'Shop',
      target: { type: 'url', url: target.url('/', SHOP) },
      interval_seconds: 60,
    });
    expect(created.statusCode, created.body).toBe(201);
    const monitor = created.json();
    await t.database.db.execute(sql`update monitors set next_check_at = now() where id = ${monitor.id}`);
    await t.app.services.monitorChecks.dispatch();
    await t.app.services.jobs.runQueued(MONITOR_CHECKS);
    const read = await t.inject({ method: 'GET', url: `/api/monitors/${monitor.id}/`, token });
    expect(read.json().status, read.body).toBe('up');
    expect(target.received.some((request) => request.headers.host === `${SHOP}:${target.port}`)).toBe(true);
  });

  it("the gateway's health check reaches a tagging server on such a name: the container is healthy", async () => {
    const created = await post('/api/containers/', {
      name: 'Tagging',
      region: 'eu-central',
      config: CONFIG,
      upstream_url: target.url('', TAGGING),
    });
    expect(created.statusCode, created.body).toBe(201);
    await t.app.services.jobs.runQueued(CONTAINER_TRANSITIONS);
    const read = await t.inject({ method: 'GET', url: `/api/containers/${created.json().id}/`, token });
    expect(read.json()).toMatchObject({ status: 'running', health: { status: 'healthy' } });
  });
});
