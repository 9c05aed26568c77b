import { createHash, X509Certificate } from 'node:crypto';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { loadConfig } from '../../src/config.js';
import type { InvalidationBus } from '../../src/db/invalidation.js';
import { domainCertificates } from '../../src/db/schema.js';
import { TlsGateway } from '../../src/gateway/tls.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../helpers/browser.js';
import { startDns, type TestDns } from '../helpers/dns.js';
import { pebbleInstalled, selfSignedLoopbackCertificate, startPebble, type Pebble } from '../helpers/pebble.js';
import { freePort, waitFor } from '../helpers/processes.js';
import { testGateway } from '../helpers/gateway-app.js';
import { loopbackLookup, presentedWithProtocol } from '../helpers/tls-probe.js';

const CONFIG = Buffer.from('id=GTM-ABC1234&env=1&auth=AbCdEf123456').toString('base64');
const BASE_DOMAIN = 'containers.tagport.test';
const HOSTNAME = 'data.shop.test';

/** The tagging server behind the container: answers with what reached it. */
async function startUpstream() {
  const seen: Array<{ url: string; proto: string | undefined; host: string | undefined }> = [];
  const server = http.createServer(async (req, res) => {
    seen.push({
      url: req.url ?? '',
      proto: req.headers['x-forwarded-proto'] as string,
      host: req.headers['x-forwarded-host'] as string,
    });
    let body = '';
    for await (const chunk of req) body += chunk;
    const saw = `upstream saw ${req.url}${body ? ` with ${body}` : ''}`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<p id="seen">${saw}</p>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe.runIf(pebbleInstalled).each(['node', 'nginx'] as const)(
  'the gateway over TLS (%s engine): ACME certificates by SNI, HTTP/2, and the redirect from plain HTTP',
  (engine) => {
    let dns: TestDns;
    let pebble: Pebble;
    let upstream: Awaited<ReturnType<typeof startUpstream>>;
    let t: TestApp;
    let token: string;
    let gatewayPort: number;
    let tlsPort: number;
    let root: string;
    let domainId: string;
    let defaultHostname: string;
    /** The Node listener serves a change at once; nginx once its reload is done. */
    const settled = () => t.app.services.nativeGateway?.settled();

    beforeAll(async () => {
      dns = await startDns();
      upstream = await startUpstream();
      gatewayPort = await freePort();
      pebble = await startPebble({ httpPort: gatewayPort, dnsPort: dns.port });
      t = await startTestApp('pglite', {
        allowPrivateNetworks: true,
        containerTransitionDelayMs: 10,
        gateway: testGateway({
          port: gatewayPort,
          baseDomain: BASE_DOMAIN,
          publicIps: ['127.0.0.1'],
          logSampleRate: 0,
          tlsPort: 0,
          engine,
        }),
        dns: { resolvers: [`127.0.0.1:${dns.port}`], timeoutMs: 5_000, recheckIntervalMs: 60_000 },
        secretsKey: randomBytes(32),
        acme: {
          directoryUrl: pebble.directoryUrl,
          email: null,
          caCertificates: [pebble.directoryCa],
          renewAfterFraction: 2 / 3,
          retryBaseMs: 60_000,
          retryMaxMs: 600_000,
          pollMs: 100, // the background loop orders the certificate, as in production
        },
      });
      if (engine === 'nginx') tlsPort = Number(new URL((await t.app.services.nativeGateway!.start()).https!).port);
      else {
        await t.app.services.gateway.listen(gatewayPort, '127.0.0.1');
        tlsPort = Number(new URL(await t.app.services.gatewayTls!.listen(0, '127.0.0.1')).port);
      }
      token = (await t.tenantWithKey('business')).token;
      const container = await t.inject({
        method: 'POST',
        url: '/api/containers/',
        token,
        payload: {
          name: 'Shop',
          region: 'eu-central',
          config: CONFIG,
          upstream_url: `http://127.0.0.1:${upstream.port}/sgtm`,
        },
      });
      defaultHostname = container.json().default_hostname;
      await t.app.services.containerWorker.idle();
      const domain = (
        await t.inject({
          method: 'POST',
          url: '/api/domains/',
          token,
          payload: { hostname: HOSTNAME, container_id: container.json().id },
        })
      ).json();
      domainId = domain.id;
      const txt = domain.dns_records.find((record: { type: string }) => record.type === 'TXT');
      dns.records.set(HOSTNAME, [{ type: 'A', value: '127.0.0.1' }]);
      dns.records.set(txt.name, [{ type: 'TXT', value: txt.value }]);
      await t.inject({ method: 'POST', url: `/api/domains/${domainId}/verify/`, token });
      const started = performance.now();
      await waitFor(
        async () =>
          (await t.inject({ method: 'GET', url: `/api/domains/${domainId}/`, token })).json().certificate.status ===
          'issued',
        30_000,
        'the certificate loop to issue the certificate',
      );
      await settled(); // nginx takes a new certificate on its next reload, a fraction of a second later
      console.log(
        `[figures] ${engine} engine: active domain → certificate served: ${Math.round(performance.now() - started)} ms`,
      );
      root = await pebble.issuingRoot();
    }, 60_000);

    afterAll(async () => {
      await t?.close();
      await pebble?.stop();
      await upstream?.close();
      dns?.close();
    });

    it("serves the custom domain's ACME certificate to a verifying client (undici, Pebble's root) and reaches the upstream", async () => {
      const dispatcher = new Agent({
        connect: {
          ca: root,
          lookup: loopbackLookup,
        },
      });
      try {
        const response = await request(`https://${HOSTNAME}:${tlsPort}/g/collect?v=2`, { dispatcher });
        expect(response.statusCode).toBe(200);
        expect(await response.body.text()).toContain('upstream saw /sgtm/g/collect?v=2');
        expect(upstream.seen.at(-1)).toMatchObject({ proto: 'https', host: HOSTNAME });
      } finally {
        await dispatcher.close();
      }
    });

    it('speaks HTTP/2 when the client offers it (ALPN h2)', async () => {
      expect((await presentedWithProtocol(tlsPort, HOSTNAME, ['h2', 'http/1.1'])).protocol).toBe('h2');
      const session = http2.connect(`https://${HOSTNAME}:${tlsPort}`, {
        ca: root,
        lookup: loopbackLookup,
      });
      try {
        const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
          const stream = session.request({ ':path': '/h2/path?x=1' });
          let status = 0;
          let body = '';
          stream.on('response', (headers) => (status = Number(headers[':status'])));
          stream.setEncoding('utf8');
          stream.on('data', (chunk) => (body += chunk));
          stream.on('end', () => resolve({ status, body }));
          stream.on('error', reject);
        });
        expect(status).toBe(200);
        expect(body).toContain('upstream saw /sgtm/h2/path?x=1');
      } finally {
        session.close();
      }
    });

    it('relays an HTTP/2 request body sent without a length', async () => {
      const session = http2.connect(`https://${HOSTNAME}:${tlsPort}`, { ca: root, lookup: loopbackLookup });
      try {
        const body = await new Promise<string>((resolve, reject) => {
          const stream = session.request({ ':method': 'POST', ':path': '/g/collect?v=2' });
          let text = '';
          stream.setEncoding('utf8');
          stream.on('data', (chunk) => (text += chunk));
          stream.on('end', () => resolve(text));
          stream.on('error', reject);
          stream.write('en=page');
          setTimeout(() => stream.end('_view'), 20);
        });
        expect(body).toContain('upstream saw /sgtm/g/collect?v=2 with en=page_view');
      } finally {
        session.close();
      }
    });

    it('serves default hostnames with the wildcard certificate (self-signed at start in development)', async () => {
      const { certificate } = await presentedWithProtocol(tlsPort, defaultHostname);
      expect(certificate.subjectAltName).toContain(`DNS:*.${BASE_DOMAIN}`);
      expect(certificate.checkHost(defaultHostname)).toBe(`*.${BASE_DOMAIN}`);
    });

    it('redirects plain HTTP to https with 308, except ACME challenges and /healthz', async () => {
      const plain = (path: string) =>
        request(`http://127.0.0.1:${gatewayPort}${path}`, { headers: { host: HOSTNAME } }).then(async (response) => ({
          status: response.statusCode,
          location: response.headers.location,
          body: await response.body.text(),
        }));
      expect(await plain('/g/collect?v=2')).toMatchObject({
        status: 308,
        location: `https://${HOSTNAME}:${tlsPort}/g/collect?v=2`,
      });
      expect(await plain('/healthz')).toMatchObject({ status: 200 });
      expect(await plain('/.well-known/acme-challenge/unknown-token')).toMatchObject({ status: 404 });
    });

    it('loads https://data.shop.test/… in headless Chromium over HTTP/2, trusting only the issued leaf key', async () => {
      const leaf = (await presentedWithProtocol(tlsPort, HOSTNAME)).certificate;
      const spki = createHash('sha256')
        .update(leaf.publicKey.export({ type: 'spki', format: 'der' }))
        .digest('base64');
      const browser = await chromium.launch({
        executablePath: CHROMIUM_PATH,
        headless: true,
        args: [
          ...CHROMIUM_ARGS.filter((arg) => !arg.startsWith('--host-resolver-rules')),
          `--host-resolver-rules=MAP ${HOSTNAME} 127.0.0.1, MAP * ~NOTFOUND`,
          `--ignore-certificate-errors-spki-list=${spki}`,
        ],
      });
      try {
        const page = await browser.newPage();
        const response = await page.goto(`https://${HOSTNAME}:${tlsPort}/from-chromium?x=1`);
        expect(response?.status()).toBe(200);
        expect(await page.textContent('#seen')).toBe('upstream saw /sgtm/from-chromium?x=1');
        expect(
          await page.evaluate(
            () => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).nextHopProtocol,
          ),
        ).toBe('h2');
      } finally {
        await browser.close();
      }
    }, 60_000);

    it('stops serving the certificate once the domain is deleted', async () => {
      expect((await presentedWithProtocol(tlsPort, HOSTNAME)).certificate.checkHost(HOSTNAME)).toBe(HOSTNAME);
      await t.inject({ method: 'DELETE', url: `/api/domains/${domainId}/`, token });
      await settled();
      const { certificate } = await presentedWithProtocol(tlsPort, HOSTNAME);
      expect(certificate.checkHost(HOSTNAME)).toBeUndefined();
      expect(certificate.subjectAltName).toContain(`DNS:*.${BASE_DOMAIN}`);
    });

    it("forgets a deleted domain's certificate and key on the next certificate run", async () => {
      await t.app.services.certificates.issueDue();
      const rows = await t.database.db
        .select()
        .from(domainCertificates)
        .where(eq(domainCertificates.domainId, domainId));
      expect(rows).toEqual([]);
    });
  },
);

describe('the TLS listener with GATEWAY_TLS_CERT and GATEWAY_TLS_KEY', () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-tls-'));
  const files = selfSignedLoopbackCertificate(directory);
  const listener = new TlsGateway(
    {
      certificates: null,
      invalidations: { subscribe: () => {} } as unknown as InvalidationBus,
      handler: (_req, res) => res.writeHead(204).end(),
    },
    { baseDomain: BASE_DOMAIN, certFile: files.certFile, keyFile: files.keyFile, onError: () => {} },
  );
  afterAll(async () => {
    await listener.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('presents the configured certificate', async () => {
    const port = Number(new URL(await listener.listen(0, '127.0.0.1')).port);
    const { certificate } = await presentedWithProtocol(port, `abc.${BASE_DOMAIN}`);
    expect(certificate.fingerprint256).toBe(new X509Certificate(files.cert).fingerprint256);
  });

  it('needs both files or neither', () => {
    expect(() => loadConfig({ GATEWAY_TLS_CERT: '/tmp/cert.pem' })).toThrow(/GATEWAY_TLS_CERT and GATEWAY_TLS_KEY/);
    expect(loadConfig({ GATEWAY_TLS_PORT: '8443' }).gateway.tlsPort).toBe(8443);
    expect(loadConfig({}).gateway.tlsPort).toBeNull();
  });
});
