import { createHash } from 'node:crypto';
import { chromium } from 'playwright-core';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startShop } from '../fixtures/runtime/shop.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../helpers/browser.js';
import { startDns, type TestDns } from '../helpers/dns.js';
import { until } from '../helpers/google-fixture.js';
import { type Pebble, pebbleInstalled, startPebble } from '../helpers/pebble.js';
import { freePort, waitFor } from '../helpers/processes.js';
import { SGTM_GTM_ID, type SgtmApp, startSgtmApp } from '../helpers/sgtm-app.js';
import { loopbackLookup, presented } from '../helpers/tls-probe.js';

const HOSTNAME = 'data.shop.test';

// A shop loads its server-side GTM container from its own subdomain over https: the custom domain is verified by
// DNS, its certificate issued by Pebble (ACME), and the gateway (both engines) relays to the stand-in replicas.
describe.runIf(pebbleInstalled).each(['node', 'nginx'] as const)(
  'runtime sgtm on a custom domain with an ACME certificate (%s gateway)',
  (engine) => {
    let dns: TestDns;
    let pebble: Pebble;
    let s: SgtmApp;
    let loaderPath: string;
    let root: string;

    beforeAll(async () => {
      dns = await startDns();
      const gatewayPort = await freePort();
      pebble = await startPebble({ httpPort: gatewayPort, dnsPort: dns.port });
      s = await startSgtmApp('pglite', {
        engine,
        gatewayPort,
        config: {
          dns: { resolvers: [`127.0.0.1:${dns.port}`], timeoutMs: 5_000, recheckIntervalMs: 60_000 },
          acme: {
            directoryUrl: pebble.directoryUrl,
            email: null,
            caCertificates: [pebble.directoryCa],
            renewAfterFraction: 2 / 3,
            retryBaseMs: 60_000,
            retryMaxMs: 600_000,
            pollMs: 100,
          },
        },
      });
      const container = await s.createSgtm();
      loaderPath = container.settings.loader_path;
      await s.until(container.id, 'running', { unless: ['failed'] });
      const domain = (await s.api('POST', '/api/domains/', { hostname: HOSTNAME, container_id: container.id })).json();
      const txt = domain.dns_records.find((record: { type: string }) => record.type === 'TXT');
      dns.records.set(HOSTNAME, [{ type: 'A', value: '127.0.0.1' }]);
      dns.records.set(txt.name, [{ type: 'TXT', value: txt.value }]);
      await s.api('POST', `/api/domains/${domain.id}/verify/`);
      await waitFor(
        async () => (await s.api('GET', `/api/domains/${domain.id}/`)).json().certificate.status === 'issued',
        30_000,
        'the certificate to be issued',
      );
      await s.app.services.nativeGateway?.settled();
      await waitFor(
        async () => (await presented(s.tlsPort, HOSTNAME)).checkHost(HOSTNAME) === HOSTNAME,
        10_000,
        'the gateway to present the issued certificate',
      );
      root = await pebble.issuingRoot();
    }, 90_000);
    afterAll(async () => {
      await s?.close();
      await pebble?.stop();
      dns?.close();
    });

    it("relays a hit to the stand-in over the domain's ACME certificate (verified against Pebble's root)", async () => {
      const dispatcher = new Agent({ connect: { ca: root, lookup: loopbackLookup } });
      try {
        const answer = await request(`https://${HOSTNAME}:${s.tlsPort}/g/collect?v=2&tid=G-DOMAIN1&_m=acme-${engine}`, {
          dispatcher,
        });
        await answer.body.text();
        expect(answer.statusCode).toBe(204);
        await until(() => s.google.hits.some((hit) => hit.params.get('_m') === `acme-${engine}`), 5_000);
      } finally {
        await dispatcher.close();
      }
    });

    it('loads GTM from the custom domain in headless Chromium, and the page hit reaches the collector', async () => {
      const origin = `https://${HOSTNAME}:${s.tlsPort}`;
      const marker = `domain-chromium-${engine}`;
      const shop = await startShop(
        () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script src="${origin}/${loaderPath}.js?id=${SGTM_GTM_ID}"></script>
<script>
  fetch('${origin}/g/collect?v=2&tid=G-SHOP1&en=purchase&_m=${marker}&dl=' + encodeURIComponent(location.href),
    { mode: 'no-cors', credentials: 'include' }).then(() => { window.hitSent = true; });
</script></head><body><h1>Shop</h1></body></html>`,
      );
      const leaf = await presented(s.tlsPort, HOSTNAME);
      const spki = createHash('sha256')
        .update(leaf.publicKey.export({ type: 'spki', format: 'der' }))
        .digest('base64');
      const browser = await chromium.launch({
        executablePath: CHROMIUM_PATH,
        headless: true,
        args: [
          ...CHROMIUM_ARGS.filter((arg) => !arg.startsWith('--host-resolver-rules')),
          `--host-resolver-rules=MAP www.shop.test 127.0.0.1:${shop.port}, MAP ${HOSTNAME} 127.0.0.1, MAP * ~NOTFOUND`,
          `--ignore-certificate-errors-spki-list=${spki}`,
        ],
      });
      try {
        const page = await browser.newPage();
        await page.goto('http://www.shop.test/');
        await page.waitForFunction(() => (window as unknown as { hitSent?: boolean }).hitSent === true);
        expect(await page.evaluate(() => (window as unknown as { standinContainer?: string }).standinContainer)).toBe(
          SGTM_GTM_ID,
        );
        await until(() => s.google.hits.some((hit) => hit.params.get('_m') === marker), 5_000);
        const hit = s.google.hits.find((candidate) => candidate.params.get('_m') === marker)!;
        expect(hit.params.get('dl')).toBe('http://www.shop.test/');
        expect(hit.userAgent).toContain('Chrome');
      } finally {
        await browser.close();
        await shop.close();
      }
    }, 60_000);

    it('hands a preview request on the custom domain to the preview server', async () => {
      const dispatcher = new Agent({ connect: { ca: root, lookup: loopbackLookup } });
      try {
        const answer = await request(`https://${HOSTNAME}:${s.tlsPort}/g/collect?v=2&_m=p`, {
          dispatcher,
          headers: { 'x-gtm-server-preview': 'ZW52LTM=' },
        });
        expect(answer.statusCode).toBe(200);
        expect(await answer.body.json()).toEqual({
          preview: true,
          container: SGTM_GTM_ID,
          path: '/g/collect?v=2&_m=p',
        });
      } finally {
        await dispatcher.close();
      }
    });
  },
);
