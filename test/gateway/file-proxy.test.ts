import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { startTestApp } from '../helpers/app.js';
import { startDns, type TestDns } from '../helpers/dns.js';
import { CONFIG, createBuiltinContainer, testGateway, startGatewayOf } from '../helpers/gateway-app.js';
import { generateTestCertificates } from '../fixtures/scanner/certs.js';

const PIXEL = 'window.vendorPixel = true;\n';
const PIXEL_ETAG = '"pixel-v1"';
const PIXEL_MODIFIED = 'Wed, 01 Jul 2026 10:00:00 GMT';

/**
 * A vendor's CDN on 127.0.0.1 over https (a throw-away CA): `/pixel.js` with its type and validators (304 to a
 * matching If-None-Match), `/slow.js` after 300 ms, `/flaky.js` failing while `failing` is set, `/down.js` always
 * 500, `/huge.bin` over 5 MB. Counts every request per path and keeps the conditional headers it got.
 */
async function startVendor(hosts: string[]) {
  const certs = generateTestCertificates(hosts);
  const fetches = new Map<string, number>();
  const conditional: Array<string | undefined> = [];
  const state = { failing: false };
  const server = https.createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
    const path = req.url ?? '/';
    fetches.set(path, (fetches.get(path) ?? 0) + 1);
    if (path === '/pixel.js') {
      conditional.push(req.headers['if-none-match']);
      const validators = { etag: PIXEL_ETAG, 'last-modified': PIXEL_MODIFIED };
      if (req.headers['if-none-match'] === PIXEL_ETAG) return void res.writeHead(304, validators).end();
      return void res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', ...validators }).end(PIXEL);
    }
    if (path === '/slow.js') return void setTimeout(() => res.writeHead(200).end('slow'), 300);
    if (path === '/flaky.js' && !state.failing)
      return void res.writeHead(200, { 'content-type': 'image/gif' }).end('GIF89a-v1');
    if (path === '/huge.bin') return void res.writeHead(200).end(Buffer.alloc(5 * 1024 * 1024 + 1));
    res.writeHead(500).end('vendor down');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ca: certs.caPem,
    url: (path: string, host = '127.0.0.1') => `https://${host}:${port}${path}`,
    fetches: (path: string) => fetches.get(path) ?? 0,
    conditional,
    state,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A tagging server on loopback that counts what reaches it. */
async function startTaggingServer() {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('tagging server');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => server.close(resolve)) };
}

type Vendor = Awaited<ReturnType<typeof startVendor>>;
type Files = Array<{ path: string; url: string; cache_seconds: number }>;

async function send(base: string, host: string, path: string, init: { method?: string; headers?: object } = {}) {
  const response = await request(`${base}${path}`, {
    method: (init.method ?? 'GET') as 'GET',
    headers: { host, ...init.headers },
  });
  return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(['node', 'nginx'] as const)('File Proxy (%s engine)', (engine) => {
  let t: TestApp;
  let vendor: Vendor;
  let tagging: Awaited<ReturnType<typeof startTaggingServer>>;
  let base: string;
  let token: string;
  let upstreamHost: string;

  const files = (): Files => [
    { path: '/lib/pixel.js', url: vendor.url('/pixel.js'), cache_seconds: 3600 },
    { path: '/lib/short.js', url: vendor.url('/pixel.js'), cache_seconds: 1 },
    { path: '/lib/slow.js', url: vendor.url('/slow.js'), cache_seconds: 3600 },
    { path: '/lib/flaky.gif', url: vendor.url('/flaky.js'), cache_seconds: 1 },
    { path: '/lib/down.js', url: vendor.url('/down.js'), cache_seconds: 60 },
    { path: '/lib/huge.bin', url: vendor.url('/huge.bin'), cache_seconds: 60 },
  ];

  beforeAll(async () => {
    vendor = await startVendor(['127.0.0.1']);
    tagging = await startTaggingServer();
    t = await startTestApp('pglite', {
      allowPrivateNetworks: true,
      containerTransitionDelayMs: 10,
      outboundCaCertificates: [vendor.ca],
      gateway: testGateway({ engine, tlsPort: null }),
    });
    token = (await t.tenantWithKey('business')).token;
    const created = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token,
      payload: {
        name: 'Shop',
        region: 'eu-central',
        config: CONFIG,
        upstream_url: tagging.url,
        settings: { file_proxy: { enabled: true, files: files() } },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    upstreamHost = created.json().default_hostname;
    await t.app.services.containerWorker.idle();
    base = await startGatewayOf(t, engine);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await vendor?.close();
    await tagging?.close();
  });

  it("serves the vendor's file at its path with the vendor's type, validators and our Cache-Control", async () => {
    const response = await send(base, upstreamHost, '/lib/pixel.js?v=3');
    expect(response.status).toBe(200);
    expect(response.body).toBe(PIXEL);
    expect(response.headers).toMatchObject({
      'content-type': 'text/javascript; charset=utf-8',
      'content-length': String(PIXEL.length),
      etag: PIXEL_ETAG,
      'last-modified': PIXEL_MODIFIED,
      'cache-control': 'public, max-age=3600',
    });
    const head = await send(base, upstreamHost, '/lib/pixel.js', { method: 'HEAD' });
    expect(head).toMatchObject({ status: 200, body: '' });
    expect(head.headers['content-length']).toBe(String(PIXEL.length));
    expect(tagging.seen).toEqual([]);
  });

  it('keeps the file: later requests are not fetched again', async () => {
    const before = vendor.fetches('/pixel.js');
    for (let i = 0; i < 3; i++) expect((await send(base, upstreamHost, '/lib/pixel.js')).status).toBe(200);
    expect(vendor.fetches('/pixel.js')).toBe(before);
  });

  it('fetches once for concurrent requests of a file not yet kept', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => send(base, upstreamHost, '/lib/slow.js')));
    expect(answers.map((answer) => answer.body)).toEqual(Array(5).fill('slow'));
    expect(vendor.fetches('/slow.js')).toBe(1);
  });

  it('asks the vendor again once cache_seconds have passed, with its validators', async () => {
    expect((await send(base, upstreamHost, '/lib/short.js')).headers['cache-control']).toBe('public, max-age=1');
    const before = vendor.fetches('/pixel.js');
    expect((await send(base, upstreamHost, '/lib/short.js')).status).toBe(200);
    expect(vendor.fetches('/pixel.js')).toBe(before);
    await sleep(1_100);
    const again = await send(base, upstreamHost, '/lib/short.js');
    expect(again).toMatchObject({ status: 200, body: PIXEL });
    expect(vendor.fetches('/pixel.js')).toBe(before + 1);
    expect(vendor.conditional.at(-1)).toBe(PIXEL_ETAG);
  });

  it('answers 304 to a conditional request the kept copy matches', async () => {
    const byTag = await send(base, upstreamHost, '/lib/pixel.js', {
      headers: { 'if-none-match': `"x", ${PIXEL_ETAG}` },
    });
    expect(byTag).toMatchObject({ status: 304, body: '' });
    expect(byTag.headers).toMatchObject({ etag: PIXEL_ETAG, 'cache-control': 'public, max-age=3600' });
    const byDate = await send(base, upstreamHost, '/lib/pixel.js', {
      headers: { 'if-modified-since': PIXEL_MODIFIED },
    });
    expect(byDate.status).toBe(304);
    const changed = await send(base, upstreamHost, '/lib/pixel.js', { headers: { 'if-none-match': '"other"' } });
    expect(changed).toMatchObject({ status: 200, body: PIXEL });
  });

  it('serves the copy it has while the vendor fails (stale-if-error)', async () => {
    vendor.state.failing = false;
    expect(await send(base, upstreamHost, '/lib/flaky.gif')).toMatchObject({ status: 200, body: 'GIF89a-v1' });
    vendor.state.failing = true;
    await sleep(1_100);
    const before = vendor.fetches('/flaky.js');
    const stale = await send(base, upstreamHost, '/lib/flaky.gif');
    expect(stale).toMatchObject({ status: 200, body: 'GIF89a-v1' });
    expect(stale.headers['content-type']).toBe('image/gif');
    expect(vendor.fetches('/flaky.js')).toBe(before + 1);
  });

  it.each([
    ['a vendor failing with no copy kept', '/lib/down.js'],
    ['a file over 5 MB', '/lib/huge.bin'],
  ])('answers 502 file_unavailable for %s', async (_case, path) => {
    const response = await send(base, upstreamHost, path);
    expect(response.status).toBe(502);
    const body = JSON.parse(response.body);
    expect(body.error).toEqual({ code: 'file_unavailable', message: expect.stringContaining(path) });
    expect(body.api_meta.request_id).toBe(response.headers['x-request-id']);
    expect(tagging.seen).toEqual([]);
  });

  it('answers 405 to other methods on a proxied path, and leaves other paths to the tagging server', async () => {
    const post = await send(base, upstreamHost, '/lib/pixel.js', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect(JSON.parse(post.body).error.code).toBe('method_not_allowed');
    expect(tagging.seen).toEqual([]);
    expect(await send(base, upstreamHost, '/lib/other.js')).toMatchObject({ status: 200, body: 'tagging server' });
    expect(tagging.seen).toEqual(['GET /lib/other.js']);
    tagging.seen.length = 0;
  });

  it('serves files on a built-in container too, before its own paths', async () => {
    const builtin = await createBuiltinContainer(t, token, {
      settings: {
        file_proxy: { enabled: true, files: [{ path: '/g/collect', url: vendor.url('/pixel.js'), cache_seconds: 60 }] },
      },
    });
    const response = await send(base, builtin.default_hostname, '/g/collect?v=2');
    expect(response).toMatchObject({ status: 200, body: PIXEL });
  });

  it('serves nothing once turned off', async () => {
    const container = await createBuiltinContainer(t, token, {
      settings: {
        file_proxy: { enabled: false, files: [{ path: '/x.js', url: vendor.url('/pixel.js'), cache_seconds: 60 }] },
      },
    });
    expect((await send(base, container.default_hostname, '/x.js')).status).toBe(404);
  });
});

describe('File Proxy settings', () => {
  let t: TestApp;
  let token: string;
  let container: { id: string; settings: { loader_path: string } };

  beforeAll(async () => {
    t = await startTestApp('pglite', { allowPrivateNetworks: true, containerTransitionDelayMs: 10 });
    token = (await t.tenantWithKey('business')).token;
    container = await createBuiltinContainer(t, token);
  }, 60_000);
  afterAll(async () => t?.close());

  const patch = (files: Files, extra: object = {}) =>
    t.inject({
      method: 'PATCH',
      url: `/api/containers/${container.id}/`,
      token,
      payload: { settings: { file_proxy: { enabled: true, files }, ...extra } },
    });
  const file = (path: string) => ({ path, url: 'https://cdn.vendor.example/pixel.js', cache_seconds: 60 });

  it("keeps files at free paths (Request Delay's too while it is off)", async () => {
    const response = await patch([file('/lib/a.js'), file('/b.gif'), file('/delay/5/c.js')]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().settings.file_proxy.files).toHaveLength(3);
  });

  it.each([
    ['/healthz', [file('/healthz')], 'settings.file_proxy.files[0].path'],
    ['the custom loader', [file('/lib/a.js'), file('/LOADER.js')], 'settings.file_proxy.files[1].path'],
    ['ACME challenges', [file('/.well-known/acme-challenge/x')], 'settings.file_proxy.files[0].path'],
    ['a path listed twice', [file('/a.js'), file('/b.js'), file('/a.js')], 'settings.file_proxy.files[2].path'],
    ["Request Delay's paths while it is on", [file('/stape/delay/5/x.js')], 'settings.file_proxy.files[0].path'],
  ])('refuses %s with 400 invalid_file_path naming the field', async (_case, files, param) => {
    const loader = `/${container.settings.loader_path}.js`;
    const paths = files.map((entry) => ({ ...entry, path: entry.path.replace('/LOADER.js', loader) }));
    const response = await patch(paths, { request_delay: { enabled: true } });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'invalid_file_path', param });
  });

  it('refuses a loader path that a proxied file already takes', async () => {
    expect((await patch([file('/shop-lib.js')])).statusCode).toBe(200);
    const response = await t.inject({
      method: 'PATCH',
      url: `/api/containers/${container.id}/`,
      token,
      payload: { settings: { loader_path: 'shop-lib' } },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'invalid_file_path',
      param: 'settings.file_proxy.files[0].path',
    });
  });

  it('refuses a URL that is not https', async () => {
    const response = await patch([{ ...file('/a.js'), url: 'http://cdn.vendor.example/pixel.js' }]);
    expect(response.statusCode).toBe(400);
    expect(JSON.stringify(response.json().error)).toContain('url');
  });
});

describe('File Proxy and the SSRF guard (private networks not allowed, as in production)', () => {
  let t: TestApp;
  let vendor: Vendor;
  let dns: TestDns;
  let base: string;

  beforeAll(async () => {
    vendor = await startVendor(['cdn.vendor.test', '127.0.0.1']);
    dns = await startDns();
    dns.records.set('cdn.vendor.test', [{ type: 'A', value: '127.0.0.1' }]);
    dns.records.set('metadata.vendor.test', [{ type: 'A', value: '169.254.169.254' }]);
    t = await startTestApp('pglite', {
      allowPrivateNetworks: false,
      containerTransitionDelayMs: 10,
      outboundCaCertificates: [vendor.ca],
      dns: { resolvers: [`127.0.0.1:${dns.port}`], timeoutMs: 5_000, recheckIntervalMs: 60_000 },
      gateway: testGateway({ logSampleRate: 0 }),
    });
    base = await t.app.services.gateway.listen(0, '127.0.0.1');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await vendor?.close();
    dns?.close();
  });

  it('never connects to a file URL whose name resolves to a private address: 502', async () => {
    const { token } = await t.tenantWithKey('business');
    const files = [
      { path: '/a.js', url: vendor.url('/pixel.js', 'cdn.vendor.test'), cache_seconds: 60 },
      { path: '/b.js', url: vendor.url('/pixel.js'), cache_seconds: 60 },
      { path: '/c.js', url: 'https://metadata.vendor.test/latest/meta-data/', cache_seconds: 60 },
    ];
    const container = await createBuiltinContainer(t, token, { settings: { file_proxy: { enabled: true, files } } });
    for (const { path } of files) {
      const response = await send(base, container.default_hostname, path);
      expect(response.status, path).toBe(502);
      expect(JSON.parse(response.body).error.code).toBe('file_unavailable');
    }
    expect(vendor.fetches('/pixel.js')).toBe(0);
  });
});
