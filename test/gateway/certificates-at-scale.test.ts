import { X509Certificate } from 'node:crypto';
import http from 'node:http';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainCertificates } from '../../src/db/schema.js';
import type { TestApp } from '../helpers/app.js';
import { type CertifiedGateway, startCertifiedGateway, stopCertifiedGateways } from '../helpers/certified-gateway.js';
import type { TestDns } from '../helpers/dns.js';
import { CONFIG } from '../helpers/gateway-app.js';
import { pebbleInstalled } from '../helpers/pebble.js';
import { waitFor } from '../helpers/processes.js';
import { presented } from '../helpers/tls-probe.js';

/**
 * Enough custom domains that certificates issued together show a spread, few enough that a loaded CI machine orders
 * each renewal long before expiry (a real window is days long; here a certificate lives two minutes).
 */
const DOMAINS = 30;
/** Renewed at 40–50 % of 120 s (48–60 s after issue): the whole renewal window passes within the test. */
const VALIDITY_SECONDS = 120;
const RENEW_AFTER_FRACTION = 0.5;

describe.runIf(pebbleInstalled).each(['node', 'nginx'] as const)(
  '%d custom domains through a renewal (%s engine, Pebble)'.replace('%d', String(DOMAINS)),
  (engine) => {
    let gateway: CertifiedGateway;
    let dns: TestDns;
    let t: TestApp;
    let tlsPort: number;
    const hostnames = Array.from({ length: DOMAINS }, (_, i) => `d${i}.fleet-${engine}.test`);
    const upstream = http.createServer((_req, res) => res.writeHead(200).end('tagging server'));

    const rows = async () => t.database.db.select().from(domainCertificates);

    beforeAll(async () => {
      await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
      gateway = await startCertifiedGateway(engine, {
        validitySeconds: VALIDITY_SECONDS,
        renewAfterFraction: RENEW_AFTER_FRACTION,
        pollMs: 200,
      });
      ({ t, dns, tlsPort } = gateway);
      const { token, tenantId } = await t.tenantWithKey('business');
      const created = await t.inject({
        method: 'POST',
        url: '/api/containers/',
        token,
        payload: {
          name: 'Fleet',
          region: 'eu-central',
          config: CONFIG,
          upstream_url: `http://127.0.0.1:${(upstream.address() as { port: number }).port}/`,
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      // Through the service: the API's rate limit would refuse 200 requests a minute from one key.
      const domains = t.app.services.domains;
      for (const hostname of hostnames) {
        const domain = await domains.create(tenantId, { hostname, container_id: created.json().id });
        const txt = domain.dns_records.find((record) => record.type === 'TXT')!;
        dns.records.set(hostname, [{ type: 'A', value: '127.0.0.1' }]);
        dns.records.set(txt.name, [{ type: 'TXT', value: txt.value }]);
        expect((await domains.verify(tenantId, domain.id)).status).toBe('active');
      }
    }, 120_000);

    afterAll(async () => {
      await stopCertifiedGateways();
      upstream.close();
    });

    it('issues every certificate and schedules their renewals spread over the window, not at one instant', async () => {
      await waitFor(
        async () => (await rows()).filter((row) => row.status === 'issued').length === DOMAINS,
        150_000,
        `the certificate loop to issue ${DOMAINS} certificates`,
      );
      const fractions = (await rows()).map((row) => {
        const lifetime = row.notAfter!.getTime() - row.notBefore!.getTime();
        return (row.nextAttemptAt.getTime() - row.notBefore!.getTime()) / lifetime;
      });
      for (const fraction of fractions) {
        expect(fraction).toBeGreaterThanOrEqual(RENEW_AFTER_FRACTION - 0.1 - 0.001);
        expect(fraction).toBeLessThanOrEqual(RENEW_AFTER_FRACTION + 0.001);
      }
      // 30 uniform draws over a tenth of the lifetime span less than 0.05 of it with negligible chance (~3e-8).
      expect(Math.max(...fractions) - Math.min(...fractions)).toBeGreaterThan(0.05);
    }, 180_000);

    it('renews every one, and never serves a hostname a certificate past its expiry or not its own', async () => {
      // Issued is not yet served: nginx takes a new hostname's certificate with its next reload.
      for (const hostname of hostnames)
        await waitFor(
          async () => (await presented(tlsPort, hostname)).checkHost(hostname) === hostname,
          15_000,
          `${hostname} to be served its first certificate`,
        );
      const first = new Map((await rows()).map((row) => [row.hostname, row.notBefore!.getTime()]));
      const problems: string[] = [];
      const renewedAt = new Map<string, number>();
      const renewed = async () => {
        for (const hostname of hostnames) {
          const certificate = await presented(tlsPort, hostname);
          if (Date.parse(certificate.validTo) <= Date.now()) problems.push(`${hostname}: expired`);
          if (certificate.checkHost(hostname) !== hostname) problems.push(`${hostname}: ${certificate.subjectAltName}`);
        }
        const current = await rows();
        for (const row of current)
          if (row.notBefore!.getTime() > first.get(row.hostname)! && !renewedAt.has(row.hostname))
            renewedAt.set(row.hostname, row.updatedAt.getTime());
        return current.every((row) => row.notBefore!.getTime() > first.get(row.hostname)!);
      };
      await waitFor(renewed, 150_000, 'every certificate to be renewed');
      await t.app.services.nativeGateway?.settled();
      // Each hostname ends served the certificate stored for it (read again: one may be renewed a second time meanwhile).
      for (const hostname of hostnames) {
        const storedSerial = async () => {
          const [row] = await t.database.db
            .select()
            .from(domainCertificates)
            .where(eq(domainCertificates.hostname, hostname));
          return new X509Certificate(row.certificatePem!).serialNumber;
        };
        await waitFor(
          async () => (await presented(tlsPort, hostname)).serialNumber === (await storedSerial()),
          15_000,
          `${hostname} to be served its stored certificate`,
        );
      }
      expect(problems).toEqual([]);
      // Renewals came over several seconds, as scheduled, not in one burst at the CA.
      const times = [...renewedAt.values()];
      expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(3_000);
    }, 180_000);
  },
);
