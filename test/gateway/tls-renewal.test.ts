import { X509Certificate } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainCertificates, notificationDeliveries } from '../../src/db/schema.js';
import type { TestApp } from '../helpers/app.js';
import { type CertifiedGateway, startCertifiedGateway, stopCertifiedGateways } from '../helpers/certified-gateway.js';
import type { TestDns } from '../helpers/dns.js';
import { CONFIG, createBuiltinContainer } from '../helpers/gateway-app.js';
import { pebbleInstalled } from '../helpers/pebble.js';
import { waitFor } from '../helpers/processes.js';
import { presented } from '../helpers/tls-probe.js';

const BASE_DOMAIN = 'containers.tagport.test';
const UPSTREAM_HOSTNAME = 'renew.shop.test';
const BUILTIN_HOSTNAME = 'builtin.shop.test';
/**
 * Short enough that the certificate loop renews within the test (at two thirds, ~13 s) and warns before it
 * expires (halfway between renewal and expiry); long enough that a loaded machine still sees each certificate.
 */
const VALIDITY_SECONDS = 20;

describe.runIf(pebbleInstalled).each(['node', 'nginx'] as const)(
  'certificates through their life (%s engine): every hostname its own, renewals served, expiry alerted',
  (engine) => {
    let gateway: CertifiedGateway;
    let dns: TestDns;
    let t: TestApp;
    let token: string;
    let tlsPort: number;
    const upstream = http.createServer((_req, res) => res.writeHead(200).end('tagging server'));

    /** The certificate the database holds for a hostname, as the API would report it. */
    async function stored(hostname: string) {
      const [row] = await t.database.db
        .select()
        .from(domainCertificates)
        .where(eq(domainCertificates.hostname, hostname));
      return row;
    }

    async function addDomain(containerId: string, hostname: string) {
      const created = await t.inject({
        method: 'POST',
        url: '/api/domains/',
        token,
        payload: { hostname, container_id: containerId },
      });
      expect(created.statusCode, created.body).toBe(201);
      const domain = created.json();
      const txt = domain.dns_records.find((record: { type: string }) => record.type === 'TXT');
      dns.records.set(hostname, [{ type: 'A', value: '127.0.0.1' }]);
      dns.records.set(txt.name, [{ type: 'TXT', value: txt.value }]);
      const verified = await t.inject({ method: 'POST', url: `/api/domains/${domain.id}/verify/`, token });
      expect(verified.json().status, verified.body).toBe('active');
      await waitFor(
        async () => (await stored(hostname))?.status === 'issued',
        30_000,
        `the certificate loop to issue ${hostname}'s certificate`,
      );
      return domain.id as string;
    }

    /**
     * Polls until the TLS port presents the certificate the database holds for the hostname now; then, for nginx,
     * until its reload is done (while it lasts, a connection may still reach a worker of the config before).
     */
    async function untilServedAsStored(hostname: string, deadlineMs: number) {
      await waitFor(
        async () => {
          const pem = (await stored(hostname))?.certificatePem;
          if (!pem) return false;
          return (await presented(tlsPort, hostname)).fingerprint256 === new X509Certificate(pem).fingerprint256;
        },
        deadlineMs,
        `${hostname} to be served its stored certificate`,
      );
      await t.app.services.nativeGateway?.settled();
    }

    beforeAll(async () => {
      await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
      gateway = await startCertifiedGateway(engine, {
        validitySeconds: VALIDITY_SECONDS,
        renewAfterFraction: 2 / 3,
        pollMs: 100,
        baseDomain: BASE_DOMAIN,
      });
      ({ t, dns, tlsPort } = gateway);
      token = (await t.tenantWithKey('business')).token;
    }, 120_000);

    afterAll(async () => {
      await stopCertifiedGateways();
      upstream.close();
    });

    it("serves a built-in runtime container's custom domain its own certificate, not the wildcard", async () => {
      const container = await createBuiltinContainer(t, token, { name: 'Built-in' });
      await addDomain(container.id, BUILTIN_HOSTNAME);
      await untilServedAsStored(BUILTIN_HOSTNAME, 15_000);
      expect((await presented(tlsPort, BUILTIN_HOSTNAME)).checkHost(BUILTIN_HOSTNAME)).toBe(BUILTIN_HOSTNAME);
    }, 45_000);

    it('serves the renewed certificate once the loop renews it, before the old one expires', async () => {
      const created = await t.inject({
        method: 'POST',
        url: '/api/containers/',
        token,
        payload: {
          name: 'Upstream',
          region: 'eu-central',
          config: CONFIG,
          upstream_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/sgtm`,
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      await t.app.services.containerWorker.idle();
      await addDomain(created.json().id, UPSTREAM_HOSTNAME);
      await untilServedAsStored(UPSTREAM_HOSTNAME, 15_000);
      const first = await presented(tlsPort, UPSTREAM_HOSTNAME);
      await waitFor(
        async () => (await stored(UPSTREAM_HOSTNAME)).notBefore!.getTime() > new Date(first.validFrom).getTime(),
        30_000,
        'the certificate loop to renew the certificate',
      );
      await untilServedAsStored(UPSTREAM_HOSTNAME, Math.max(1000, new Date(first.validTo).getTime() - Date.now()));
      const storedAt = (await stored(UPSTREAM_HOSTNAME)).updatedAt.getTime();
      console.log(`[figures] ${engine} engine: renewed certificate stored → served: ≤ ${Date.now() - storedAt} ms`);
      const renewed = await presented(tlsPort, UPSTREAM_HOSTNAME);
      expect(renewed.fingerprint256).not.toBe(first.fingerprint256);
      expect(renewed.checkHost(UPSTREAM_HOSTNAME)).toBe(UPSTREAM_HOSTNAME);
    }, 120_000);

    it('alerts the notification channels and lists it on the overview when renewals fail near expiry', async () => {
      const channel = await t.inject({
        method: 'POST',
        url: '/api/notification-channels/',
        token,
        payload: { name: 'On-call', type: 'email', target: 'oncall@example.com' },
      });
      expect(channel.statusCode, channel.body).toBe(201);
      await gateway.stopPebble(); // every renewal from here on fails: the CA is gone
      const titles = async () =>
        (
          await t.inject({ method: 'GET', url: `/api/notification-channels/${channel.json().id}/deliveries/`, token })
        ).json().results as Array<{ event_type: string; title: string }>;
      // Polled in the database: the API's rate limit would refuse polling it this often.
      await waitFor(
        async () =>
          (
            await t.database.db
              .select()
              .from(notificationDeliveries)
              .where(eq(notificationDeliveries.channelId, channel.json().id))
          ).some((row) => (row.message as { title?: string }).title === `Certificate expiring: ${UPSTREAM_HOSTNAME}`),
        30_000,
        'the expiry alert to reach the channel',
      );
      const expiring = (await titles()).filter((delivery) => delivery.title.startsWith('Certificate expiring'));
      expect(expiring.filter((delivery) => delivery.title.endsWith(UPSTREAM_HOSTNAME))).toEqual([
        expect.objectContaining({
          event_type: 'certificate.failed',
          title: `Certificate expiring: ${UPSTREAM_HOSTNAME}`,
        }),
      ]);
      const overview = (await t.inject({ method: 'GET', url: '/api/overview/', token })).json();
      expect(overview.containers.needs_attention).toContainEqual(
        expect.objectContaining({ reason: 'certificate_expiring', hostname: UPSTREAM_HOSTNAME }),
      );
      const events = (
        await t.inject({ method: 'GET', url: '/api/events/?type=domain.certificate_expiring', token })
      ).json();
      expect(events.results.map((event: { data: { hostname: string } }) => event.data.hostname)).toContain(
        UPSTREAM_HOSTNAME,
      );
    }, 120_000);
  },
);
