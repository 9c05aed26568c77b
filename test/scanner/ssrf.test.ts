import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPool, capturePage } from '../../src/scanner/browser.js';
import { fetchPage } from '../../src/scanner/fetch.js';
import { Scanner, ScanTargetRefusedError, blockedAddressReason } from '../../src/scanner/index.js';
import { SsrfGuard, type ResolvedHost } from '../../src/scanner/ssrf.js';
import { ALL_HOSTS, startFixtureServer, type FixtureServer } from '../fixtures/scanner/server.js';

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private (RFC 1918)'],
    ['172.31.255.255', 'private (RFC 1918)'],
    ['192.168.1.1', 'private (RFC 1918)'],
    ['169.254.169.254', 'link-local / cloud metadata'],
    ['100.100.100.200', 'carrier-grade NAT (RFC 6598)'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'reserved / broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1%eth0', 'link-local'],
    ['fd00:ec2::254', 'unique local (private)'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped 127.0.0.1: loopback'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped 169.254.169.254: link-local / cloud metadata'],
    ['64:ff9b::10.0.0.1', 'NAT64 10.0.0.1: private (RFC 1918)'],
    ['2002:a00:1::', '6to4 10.0.0.1: private (RFC 1918)'],
    // IPv4-translated (SIIT): refused whatever it embeds
    ['::ffff:0:7f00:1', 'IPv4-translated 127.0.0.1: loopback'],
    ['::ffff:0:0808:0808', 'IPv4-translated'],
    ['::ffff:0:10.0.0.1', 'IPv4-translated 10.0.0.1: private (RFC 1918)'],
    ['64:ff9b:1::808:808', 'local NAT64'],
    // the rest of IANA's special-purpose registries
    ['192.0.0.9', 'IETF protocol assignments'],
    ['192.31.196.1', 'AS112 anycast'],
    ['192.52.193.1', 'AMT anycast'],
    ['192.175.48.6', 'AS112 direct delegation'],
    ['198.19.255.1', 'benchmarking'],
    ['100:0:0:1::1', 'dummy prefix'],
    ['2001:1::1', 'PCP, TURN and DNS-SD anycast'],
    ['2001:2::1', 'benchmarking'],
    ['2001:3::1', 'AMT anycast'],
    ['2001:4:112::1', 'AS112 anycast'],
    ['2001:30::1', 'drone remote ID'],
    ['2001:100::1', 'IETF protocol assignments'],
    ['2001::1', 'Teredo'],
    ['2620:4f:8000::1', 'AS112 direct delegation'],
    ['3fff::1', 'documentation'],
    ['5f00::1', 'segment routing (SRv6 SIDs)'],
    ['fec0::1', 'site-local (deprecated)'],
  ])('%s is refused (%s)', (address, reason) => {
    expect(blockedAddressReason(address)).toBe(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '2a00:1450:4001:80b::200e',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:200::1',
    '2620:4f:8001::1',
  ])('%s is public', (address) => {
    expect(blockedAddressReason(address)).toBeNull();
  });
});

describe('Scanner refuses non-public targets', () => {
  const answers: Record<string, string[]> = {
    'internal.example.test': ['10.0.0.1'],
    'metadata.example.test': ['169.254.169.254'],
    'loopback.example.test': ['127.0.0.1'],
    'mixed.example.test': ['93.184.215.14', '10.0.0.1'],
    'v6.example.test': ['::1'],
  };
  const scanner = new Scanner({ allowPrivateNetworks: false, resolveHost: async (host) => answers[host] ?? [] });
  afterAll(() => scanner.close());
  const scan = (url: string) => scanner.scan({ url, aiSummary: false, pagespeed: false, language: 'en' });

  it.each([
    ['https://127.0.0.1/', '127.0.0.1'],
    ['https://10.0.0.1/', '10.0.0.1'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['https://[::1]/', '::1'],
    ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['https://internal.example.test/', '10.0.0.1'],
    ['https://metadata.example.test/', '169.254.169.254'],
    ['https://loopback.example.test:8443/', '127.0.0.1'],
    ['https://mixed.example.test/', '10.0.0.1'],
    ['https://v6.example.test/', '::1'],
  ])('%s', async (url, address) => {
    const error = await scan(url).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ScanTargetRefusedError);
    expect(error).toMatchObject({ code: 'private_address', address });
    expect((error as Error).message).toMatch(/^Refused /);
  });

  it.each([
    ['ftp://example.test/file', 'unsupported_scheme'],
    ['file:///etc/passwd', 'unsupported_scheme'],
    ['https://user:secret@example.test/', 'credentials_in_url'],
    ['not a url', 'invalid_url'],
  ])('%s is refused as %s', async (url, code) => {
    await expect(scan(url)).rejects.toMatchObject({ name: 'ScanTargetRefusedError', code });
  });

  it('never launched a browser for refused targets', () => {
    expect(scanner.browserStats).toEqual({ active: 0, waiting: 0 });
  });
});

/** A strict guard that treats the fixture hosts as public (they resolve to the test server), everything else as usual. */
class FixtureGuard extends SsrfGuard {
  constructor(resolve: Record<string, string[]>) {
    super({ allowPrivateNetworks: false, resolveHost: async (host) => resolve[host] ?? [] });
  }
  override checkHost(host: string): Promise<ResolvedHost> {
    return ALL_HOSTS.includes(host) ? Promise.resolve({ host, addresses: ['127.0.0.1'] }) : super.checkHost(host);
  }
}

describe('redirect hops and browser requests go through the guard', () => {
  let fixture: FixtureServer;
  let pool: BrowserPool;
  beforeAll(async () => {
    fixture = await startFixtureServer({ bigPageBytes: 1 });
    pool = new BrowserPool({
      chromiumPath: '/usr/lib/chromium/chromium',
      concurrency: 1,
      hostResolverRules: fixture.hostResolverRules,
      ignoreCertSpkiList: [fixture.certs.leafSpki],
    });
  });
  afterAll(async () => {
    await pool?.close();
    await fixture?.close();
  });

  it('stage 1 refuses a redirect to the metadata address', async () => {
    const guard = new FixtureGuard({});
    const error = await fetchPage(new URL(fixture.url('redirect.example.test', '/to-metadata')), {
      guard,
      maxPageBytes: 1_000_000,
      maxRedirects: 5,
      timeoutMs: 5_000,
      hopTimeoutMs: 5_000,
      extraCaCertificates: [fixture.certs.caPem],
      userAgent: 'test',
      acceptLanguage: 'en',
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ScanTargetRefusedError);
    expect(error).toMatchObject({ code: 'private_address', address: '169.254.169.254' });
    expect(fixture.log).toContain(`redirect.example.test /to-metadata`);
  });

  it('the browser aborts requests (and WebSockets) to non-public addresses and reports them', async () => {
    // metadata.internal.test is a name that resolves to the metadata address (and a host rule would let it connect).
    const guard = new FixtureGuard({
      'metadata.internal.test': ['169.254.169.254'],
      'socket.internal.test': ['10.0.0.7'],
    });
    const hostRules = `MAP metadata.internal.test 127.0.0.1:${fixture.port} , MAP socket.internal.test 127.0.0.1:${fixture.port} , ${fixture.hostResolverRules}`;
    const { browser, release } = await pool.acquire(Date.now() + 10_000);
    try {
      const findings = await capturePage(browser, fixture.url('clean.example.test', '/leaky'), {
        guard,
        hostRules,
        deadline: Date.now() + 15_000,
        observationCapMs: 1_500,
        longLivedMs: 1_500,
        quietMs: 300,
        locale: 'en-US',
      });
      expect(findings.refused.map((item) => item.url).sort()).toEqual([
        `http://127.0.0.1:${fixture.port}/admin`,
        'metadata.internal.test:443',
        'socket.internal.test:443',
      ]);
      expect(findings.refused.find((item) => item.url.startsWith('metadata'))?.reason).toBe(
        'Refused metadata.internal.test: it resolves to 169.254.169.254, a link-local / cloud metadata address.',
      );
      expect(findings.refused.find((item) => item.url.startsWith('http:'))?.reason).toBe(
        'Refused 127.0.0.1: loopback address.',
      );
      const failed = findings.requests.filter((request) => request.failure);
      expect(failed.map((request) => request.url).sort()).toEqual([
        `http://127.0.0.1:${fixture.port}/admin`,
        'https://metadata.internal.test/latest/meta-data/',
      ]);
      expect(
        fixture.log.filter((line) => /^(metadata|socket)\.internal\.test/.test(line) || line.endsWith(' /admin')),
      ).toEqual([]);
    } finally {
      release();
    }
  });

  it('the browser refuses a page that redirects to the metadata address', async () => {
    const guard = new FixtureGuard({});
    const { browser, release } = await pool.acquire(Date.now() + 10_000);
    try {
      const error = await capturePage(browser, fixture.url('redirect.example.test', '/to-metadata'), {
        guard,
        hostRules: fixture.hostResolverRules,
        deadline: Date.now() + 15_000,
        observationCapMs: 1_000,
        longLivedMs: 1_500,
        quietMs: 300,
        locale: 'en-US',
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ScanTargetRefusedError);
      expect(error).toMatchObject({ code: 'private_address', address: '169.254.169.254' });
    } finally {
      release();
    }
  });
});
