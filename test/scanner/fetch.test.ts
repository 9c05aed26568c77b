import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchPage, type FetchOptions } from '../../src/scanner/fetch.js';
import { parseHtml } from '../../src/scanner/parse.js';
import { SsrfGuard } from '../../src/scanner/ssrf.js';
import { startFixtureServer, type FixtureServer } from '../fixtures/scanner/server.js';

// Stage 1 on its own, against the HTTPS fixture server (trusted through the test CA, not by disabling verification).

let fixture: FixtureServer;
let options: FetchOptions;
beforeAll(async () => {
  fixture = await startFixtureServer({ bigPageBytes: 1 });
  const scannerOptions = fixture.scannerOptions();
  options = {
    guard: new SsrfGuard({ allowPrivateNetworks: true, resolveHost: scannerOptions.resolveHost }),
    maxPageBytes: 1_000_000,
    maxRedirects: 5,
    timeoutMs: 10_000,
    hopTimeoutMs: 5_000,
    extraCaCertificates: [fixture.certs.caPem],
    userAgent: 'tagport-test',
    acceptLanguage: 'en',
  };
});
afterAll(() => fixture?.close());

describe('fetchPage', () => {
  it('verifies TLS: without the test CA the fixture certificate is rejected', async () => {
    const outcome = await fetchPage(new URL(fixture.url('clean.example.test')), {
      ...options,
      extraCaCertificates: undefined,
    });
    expect(outcome.html).toBeNull();
    expect(outcome.error?.code).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|UNABLE_TO_GET_ISSUER_CERT/);
  });

  it('decompresses brotli and reads the page', async () => {
    const outcome = await fetchPage(new URL(fixture.url('clean.example.test', '/compressed')), options);
    expect(outcome.error).toBeNull();
    expect(parseHtml(outcome.html!, outcome.finalUrl).scripts[0].code).toContain('G-ZIPPED123');
  });

  it('applies the size cap to decompressed bytes (a compression bomb stops at the cap)', async () => {
    const outcome = await fetchPage(new URL(fixture.url('clean.example.test', '/bomb')), options);
    expect(outcome.truncated).toBe('size');
    expect(outcome.bytes).toBe(1_000_000);
    expect(outcome.html).toContain('GTM-BOMB001');
  });

  it('decodes the declared charset', async () => {
    const outcome = await fetchPage(new URL(fixture.url('clean.example.test', '/latin1')), options);
    expect(parseHtml(outcome.html!, outcome.finalUrl).title).toBe('Café Müller');
  });

  it('does not download non-HTML bodies', async () => {
    const outcome = await fetchPage(new URL(fixture.url('clean.example.test', '/file.pdf')), options);
    expect(outcome).toMatchObject({
      status: 200,
      html: null,
      bytes: 0,
      error: { code: 'not_html', message: 'The page is application/pdf, not HTML' },
    });
  });

  it('follows at most five redirects', async () => {
    const outcome = await fetchPage(new URL(fixture.url('redirect.example.test', '/loop/0')), options);
    expect(outcome.redirects).toEqual([0, 1, 2, 3, 4].map((n) => fixture.url('redirect.example.test', `/loop/${n}`)));
    expect(outcome.finalUrl).toBe(fixture.url('redirect.example.test', '/loop/5'));
    expect(outcome.error).toEqual({
      code: 'too_many_redirects',
      message: `Stopped after 5 redirects at ${fixture.url('redirect.example.test', '/loop/5')}`,
    });
  });
});
