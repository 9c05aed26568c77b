import { randomBytes, X509Certificate } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { domainCertificates } from '../../../src/db/schema.js';
import { testConfig } from '../../helpers/app.js';
import { backends, createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { startDns, type TestDns } from '../../helpers/dns.js';
import { pebbleInstalled, startPebble, type Pebble } from '../../helpers/pebble.js';
import { freePort } from '../../helpers/processes.js';
import { testGateway } from '../../helpers/gateway-app.js';

const CONFIG = Buffer.from('id=GTM-ABC1234&env=1&auth=AbCdEf123456').toString('base64');
/** Pebble issues for this long; the renewal threshold below makes a certificate due again after ~3 s. */
const VALIDITY_SECONDS = 600;
const RENEW_AFTER_FRACTION = 0.005;

describe.runIf(pebbleInstalled).each(backends)('ACME certificates for custom domains on %s (Pebble)', (backend) => {
  let dns: TestDns;
  let pebble: Pebble;
  let testDatabase: TestDatabase;
  let app: FastifyInstance;
  let token: string;
  let containerId: string;
  const logLines: string[] = [];
  const apiBodies: string[] = [];
  let hostCounter = 0;

  beforeAll(async () => {
    dns = await startDns();
    const gatewayPort = await freePort();
    pebble = await startPebble({ httpPort: gatewayPort, dnsPort: dns.port, validitySeconds: VALIDITY_SECONDS });
    testDatabase = await createTestDatabase(backend);
    const config = testConfig({
      logLevel: 'info',
      runWorkers: false,
      gateway: testGateway({ port: gatewayPort, publicIps: ['127.0.0.1'], logSampleRate: 0 }),
      dns: { resolvers: [`127.0.0.1:${dns.port}`], timeoutMs: 5_000, recheckIntervalMs: 60_000 },
      secretsKey: randomBytes(32),
      acme: {
        directoryUrl: pebble.directoryUrl,
        email: 'certs@shop.test',
        caCertificates: [pebble.directoryCa],
        renewAfterFraction: RENEW_AFTER_FRACTION,
        retryBaseMs: 60_000,
        retryMaxMs: 600_000,
        pollMs: 60_000,
      },
    });
    app = await buildApp({
      config,
      database: testDatabase.database,
      logStream: { write: (line) => logLines.push(line) },
    });
    await app.ready();
    await app.services.gateway.listen(gatewayPort, '127.0.0.1');
    const tenant = await app.services.tenants.create({ name: 'Shop', plan: 'business', parentId: null });
    token = (await app.services.apiKeys.create(tenant.id, { name: 'test key', role: 'owner' })).token;
    const container = await api('POST', '/api/containers/', { name: 'Shop', region: 'eu-central', config: CONFIG });
    containerId = container.id;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await testDatabase?.drop();
    await pebble?.stop();
    dns?.close();
  });

  async function api(method: 'GET' | 'POST', url: string, payload?: object) {
    const response = await app.inject({ method, url, payload, headers: { authorization: `Bearer ${token}` } });
    apiBodies.push(response.body);
    expect(response.statusCode, response.body).toBeLessThan(300);
    return response.json();
  }

  /** Adds a custom domain, points it at the gateway (127.0.0.1) with its TXT token, and verifies it. */
  async function activeDomain(): Promise<{ id: string; hostname: string }> {
    const hostname = `data${++hostCounter}.shop-${backend}.test`;
    const domain = await api('POST', '/api/domains/', { hostname, container_id: containerId });
    const txt = domain.dns_records.find((record: { type: string }) => record.type === 'TXT');
    dns.records.set(hostname, [{ type: 'A', value: '127.0.0.1' }]);
    dns.records.set(txt.name, [{ type: 'TXT', value: txt.value }]);
    expect((await api('POST', `/api/domains/${domain.id}/verify/`)).status).toBe('active');
    return { id: domain.id, hostname };
  }

  const certificateOf = async (id: string) => (await api('GET', `/api/domains/${id}/`)).certificate;
  const eventTypes = async (id: string) =>
    (await api('GET', `/api/events/?object_id=${id}`)).results.map((event: { type: string }) => event.type);
  const row = async (id: string) =>
    (await testDatabase.database.db.select().from(domainCertificates).where(eq(domainCertificates.domainId, id)))[0];

  let issued: { id: string; hostname: string };
  let firstNotBefore: string;

  it('issues a certificate through HTTP-01 answered by the gateway once the domain is active', async () => {
    issued = await activeDomain();
    expect(await certificateOf(issued.id)).toMatchObject({ status: 'pending', issuer: null, last_error: null });

    const started = performance.now();
    expect(await app.services.certificates.issueDue()).toBe(1);
    console.log(`[figures] ${backend}: certificate issued by Pebble in ${Math.round(performance.now() - started)} ms`);

    const certificate = await certificateOf(issued.id);
    expect(certificate).toMatchObject({ status: 'issued', last_error: null });
    expect(certificate.issuer).toMatch(/Pebble/);
    const lifetimeMs = Date.parse(certificate.not_after) - Date.parse(certificate.not_before);
    expect(Math.round(lifetimeMs / 1000)).toBeGreaterThan(VALIDITY_SECONDS - 5);
    expect(Math.round(lifetimeMs / 1000)).toBeLessThanOrEqual(VALIDITY_SECONDS);
    firstNotBefore = certificate.not_before;

    const stored = await row(issued.id);
    const leaf = new X509Certificate(stored.certificatePem!);
    expect(leaf.subjectAltName).toBe(`DNS:${issued.hostname}`);
    // What a gateway compares to know the certificate changed, without opening its key: its issue time.
    const versions = await app.services.certificates.servedVersions();
    expect(versions.get(issued.hostname)).toBe(new Date(certificate.not_before).toISOString());
    expect(await eventTypes(issued.id)).toContain('domain.certificate_issued');
  }, 60_000);

  it('keeps the private key encrypted in the database and out of API responses and logs', async () => {
    const stored = await row(issued.id);
    expect(stored.privateKeySealed).toMatch(/^v1\./);
    expect(stored.privateKeySealed).not.toMatch(/PRIVATE KEY/);

    const served = await app.services.certificates.served(issued.hostname);
    expect(served?.privateKeyPem).toMatch(/-----BEGIN PRIVATE KEY-----/);
    const keyBody = served!.privateKeyPem.replace(/-----[A-Z ]+-----|\s/g, '');
    expect(keyBody.length).toBeGreaterThan(40);
    for (const text of [JSON.stringify(stored), ...apiBodies, ...logLines]) {
      expect(text).not.toContain(keyBody);
      expect(text).not.toContain(keyBody.slice(0, 40));
      expect(text).not.toMatch(/PRIVATE KEY/);
    }
  });

  it('renews by the configured fraction of the lifetime, at a point spread over the time before it', async () => {
    // Renewals are spread over the tenth of the lifetime before the fraction, at least its second half (renewalAt).
    const lifetimeMs = VALIDITY_SECONDS * 1000;
    const latest = Date.parse(firstNotBefore) + lifetimeMs * RENEW_AFTER_FRACTION;
    const earliest = Date.parse(firstNotBefore) + lifetimeMs * (RENEW_AFTER_FRACTION / 2);
    const due = (await row(issued.id)).nextAttemptAt.getTime();
    expect(due).toBeGreaterThanOrEqual(earliest - 1000);
    expect(due).toBeLessThanOrEqual(latest + 1000);
    if (Date.now() < due - 250) expect(await app.services.certificates.issueDue()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now()) + 50));

    expect(await app.services.certificates.issueDue()).toBe(1);

    const renewed = await certificateOf(issued.id);
    expect(renewed.status).toBe('issued');
    expect(Date.parse(renewed.not_before)).toBeGreaterThan(Date.parse(firstNotBefore));
    expect((await app.services.certificates.servedVersions()).get(issued.hostname)).toBe(
      new Date(renewed.not_before).toISOString(),
    );
    expect((await eventTypes(issued.id)).filter((type: string) => type === 'domain.certificate_issued')).toHaveLength(
      2,
    );
  }, 60_000);

  it('keeps serving the current certificate while a renewal fails, saying renewing with the reason', async () => {
    const current = await certificateOf(issued.id);
    const due = Date.parse(current.not_before) + VALIDITY_SECONDS * 1000 * RENEW_AFTER_FRACTION;
    dns.records.set(issued.hostname, [{ type: 'A', value: '127.0.0.2' }]); // the CA can no longer reach the gateway
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now()) + 50));

    expect(await app.services.certificates.issueDue()).toBe(1);

    const renewing = await certificateOf(issued.id);
    expect(renewing).toMatchObject({ status: 'renewing', not_after: current.not_after, issuer: current.issuer });
    expect(renewing.last_error).toMatch(/127\.0\.0\.2|connection refused|connect/i);
    expect(await app.services.certificates.served(issued.hostname)).not.toBeNull();
    expect(await eventTypes(issued.id)).toContain('domain.certificate_failed');
    dns.records.set(issued.hostname, [{ type: 'A', value: '127.0.0.1' }]);
  }, 60_000);

  it('says failed with the reason when the CA cannot reach the challenge, and schedules a retry', async () => {
    const unreachable = await activeDomain();
    dns.records.set(unreachable.hostname, [{ type: 'A', value: '127.0.0.2' }]); // nothing listens there

    const before = Date.now();
    expect(await app.services.certificates.issueDue()).toBe(1);

    const certificate = await certificateOf(unreachable.id);
    expect(certificate).toMatchObject({ status: 'failed', issuer: null, not_after: null });
    expect(certificate.last_error).toMatch(/127\.0\.0\.2|connection refused|connect/i);
    expect(await eventTypes(unreachable.id)).toContain('domain.certificate_failed');
    const stored = await row(unreachable.id);
    expect(stored.attempts).toBe(1);
    expect(stored.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(before + 60_000);
    expect(await app.services.certificates.issueDue()).toBe(0);
  }, 60_000);
});
