import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { Scanner } from '../../src/scanner/index.js';
import { startGuardProxy } from '../../src/scanner/proxy.js';
import { SsrfGuard } from '../../src/scanner/ssrf.js';
import { scannerOptionsFromConfig } from '../../src/services.js';
import { startFixtureServer, type FixtureServer } from '../fixtures/scanner/server.js';

// Issue 15, item 16: SCANNER_EXTRA_CA_CERTS makes the fetch stage, Chromium and Lighthouse trust a private CA, and
// SCANNER_HOST_RESOLVER_RULES mappings reach the guard proxy's own lookups.

let fixture: FixtureServer;
let dir: string;
let caFile: string;

beforeAll(async () => {
  fixture = await startFixtureServer({ bigPageBytes: 10_000 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'i15b-extra-ca-'));
  caFile = path.join(dir, 'ca.pem');
  fs.writeFileSync(caFile, fixture.certs.caPem);
});
afterAll(async () => {
  await fixture?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** A scanner built from the environment as the service builds it; only DNS is the fixture's stand-in. */
function scannerFrom(env: Record<string, string>): Scanner {
  const config = loadConfig({
    ALLOW_PRIVATE_NETWORKS: 'true',
    SCANNER_HOST_RESOLVER_RULES: fixture.hostResolverRules,
    SCANNER_CONCURRENCY: '1',
    ...env,
  });
  const { resolveHost } = fixture.scannerOptions();
  return new Scanner({ ...scannerOptionsFromConfig(config), resolveHost, observationCapMs: 2_000 });
}

describe('SCANNER_EXTRA_CA_CERTS', () => {
  it('reads every certificate of the PEM file with its SPKI hash', () => {
    const config = loadConfig({ SCANNER_EXTRA_CA_CERTS: caFile });
    const spki = new crypto.X509Certificate(fixture.certs.caPem).publicKey.export({ type: 'spki', format: 'der' });
    expect(config.scanner.extraCaCertificates).toEqual({
      pems: [fixture.certs.caPem.trim()],
      spkiSha256: [crypto.createHash('sha256').update(spki).digest('base64')],
    });
    expect(loadConfig({}).scanner.extraCaCertificates).toBeNull();
  });

  it('refuses a missing file or one without certificates, naming the variable', () => {
    expect(() => loadConfig({ SCANNER_EXTRA_CA_CERTS: path.join(dir, 'missing.pem') })).toThrow(ConfigError);
    const empty = path.join(dir, 'empty.pem');
    fs.writeFileSync(empty, 'not a certificate\n');
    expect(() => loadConfig({ SCANNER_EXTRA_CA_CERTS: empty })).toThrow(/SCANNER_EXTRA_CA_CERTS: .*no PEM certificate/);
  });

  it('lets the fetch stage, the browser and Lighthouse load a site whose certificate the private CA issued', async () => {
    const scanner = scannerFrom({ SCANNER_EXTRA_CA_CERTS: caFile });
    try {
      const result = await scanner.scan({
        url: fixture.url('shop.example.test', '/'),
        aiSummary: false,
        pagespeed: true,
        language: 'en',
      });
      expect(result.stages.fetch.status).toBe('ok');
      expect(result.stages.browser.status).toBe('ok');
      expect(result.warnings.filter((warning) => /certificate|CERT_/i.test(warning.message))).toEqual([]);
      expect(result.trackers.map((tracker) => tracker.key)).toContain('google_analytics_4');
      expect(result.pagespeed?.score).toEqual(expect.any(Number));
    } finally {
      await scanner.close();
    }
  });

  it('without it, the scan fails on the certificate', async () => {
    const scanner = scannerFrom({});
    try {
      const error = await scanner
        .scan({ url: fixture.url('shop.example.test', '/'), aiSummary: false, pagespeed: false, language: 'en' })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'target_unreachable' });
      expect((error as Error).message).toMatch(/certificate/i);
      expect((error as Error).message).toMatch(/ERR_CERT_AUTHORITY_INVALID/);
    } finally {
      await scanner.close();
    }
  });
});

describe('SCANNER_HOST_RESOLVER_RULES in the guard proxy', () => {
  it('sends a mapped host that system DNS does not know to its MAP target', async () => {
    const site = http.createServer((req, res) => res.end(`hello from ${req.headers.host}`));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const sitePort = (site.address() as net.AddressInfo).port;
    const guard = new SsrfGuard({
      allowPrivateNetworks: false,
      resolveHost: async (host) => {
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
    });
    const proxy = await startGuardProxy({ guard, hostRules: `MAP vendor.i15b-mapped.test 127.0.0.1:${sitePort}` });
    const get = (host: string) =>
      new Promise<string>((resolve, reject) => {
        const proxyUrl = new URL(proxy.server);
        const request = http.request(
          { host: proxyUrl.hostname, port: proxyUrl.port, path: `http://${host}/pixel`, headers: { host } },
          (response) => {
            let body = '';
            response.on('data', (chunk) => (body += chunk));
            response.on('end', () => resolve(`${response.statusCode} ${body}`));
          },
        );
        request.on('error', reject);
        request.end();
      });
    try {
      expect(await get('vendor.i15b-mapped.test')).toBe('200 hello from vendor.i15b-mapped.test');
      await expect(get('unmapped.i15b-mapped.test')).rejects.toThrow(); // not mapped, not in DNS: still unreachable
    } finally {
      await proxy.close();
      await new Promise<void>((resolve) => site.close(() => resolve()));
    }
  });
});
