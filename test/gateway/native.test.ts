import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import net, { type AddressInfo } from 'node:net';
import tls from 'node:tls';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { startTestApp } from '../helpers/app.js';
import { CONFIG, recordHandOffs, testGateway } from '../helpers/gateway-app.js';
import { waitFor } from '../helpers/processes.js';
import { detectBot } from '../../src/gateway/runtime/powerups/bot-detection.js';
import { platformRequestToken } from '../../src/lib/secrets.js';

/** A tagging server on loopback that records each request's target and headers as they arrived. */
async function startTaggingServer() {
  const seen: Array<{ url: string; headers: http.IncomingHttpHeaders; rawNames: string[] }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers, rawNames: req.rawHeaders.filter((_, i) => i % 2 === 0) });
      res.writeHead(200, { 'content-type': 'text/plain', 'x-upstream': 'sgtm' }).end(`saw ${req.url} ${body}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { port, seen, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Sends one request exactly as written (over TLS for an https base) and returns its status and body. */
async function rawRequest(base: string, requestLine: string, host: string) {
  const { hostname, port, protocol } = new URL(base);
  const socket =
    protocol === 'https:'
      ? tls.connect({ port: Number(port), host: hostname, servername: host, rejectUnauthorized: false })
      : net.connect(Number(port), hostname);
  socket.write(`${requestLine}\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), body: text.slice(text.indexOf('\r\n\r\n') + 4) };
}

const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'accept-language': 'de-DE,de;q=0.9',
  'sec-fetch-mode': 'no-cors',
};

describe.each([
  ['http', false],
  ['https', true],
] as const)('the nginx engine over %s', (_protocol, withTls) => {
  let t: TestApp;
  let upstream: Awaited<ReturnType<typeof startTaggingServer>>;
  let secret: Awaited<ReturnType<typeof startTaggingServer>>;
  let base: string;
  let plainBase: string;
  let token: string;
  let container: { id: string; default_hostname: string };
  /** Requests the Node gateway was handed by nginx (everything nginx did not proxy itself). */
  let handedToNode: string[] = [];
  const client = new Agent({ connect: { rejectUnauthorized: false } });

  const send = (host: string, path: string, init: { method?: string; body?: string } = {}) =>
    request(`${base}${path}`, {
      method: (init.method ?? 'GET') as 'GET',
      body: init.body,
      headers: { host },
      dispatcher: client,
      ...(withTls ? {} : {}),
    }).then(async (response) => ({
      status: response.statusCode,
      headers: response.headers,
      body: await response.body.text(),
    }));

  beforeAll(async () => {
    upstream = await startTaggingServer();
    secret = await startTaggingServer();
    t = await startTestApp('pglite', {
      allowPrivateNetworks: true,
      containerTransitionDelayMs: 10,
      gateway: testGateway({ engine: 'nginx', tlsPort: withTls ? 0 : null, logSampleRate: 1 }),
    });
    token = (await t.tenantWithKey('business')).token;
    const created = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token,
      payload: {
        name: 'Native',
        region: 'eu-central',
        config: CONFIG,
        upstream_url: `http://127.0.0.1:${upstream.port}/sgtm`,
      },
    });
    container = created.json();
    await t.app.services.containerWorker.idle();
    handedToNode = recordHandOffs(t.app.services).handed;
    const started = await t.app.services.nativeGateway!.start();
    base = started.https ?? started.http;
    plainBase = started.http;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await client.close();
    await upstream?.close();
    await secret?.close();
  });

  it('proxies a running container itself, under the upstream path, with the forwarding headers', async () => {
    handedToNode.length = 0;
    const response = await send(container.default_hostname, '/g/collect?v=2&tid=G-1', {
      method: 'POST',
      body: 'en=page_view',
    });
    expect(response).toMatchObject({ status: 200, body: 'saw /sgtm/g/collect?v=2&tid=G-1 en=page_view' });
    expect(response.headers['x-upstream']).toBe('sgtm');
    expect(handedToNode).toEqual([]);
    const seen = upstream.seen.at(-1)!;
    expect(seen.headers).toMatchObject({
      host: `127.0.0.1:${upstream.port}`,
      'x-forwarded-host': container.default_hostname,
      'x-forwarded-proto': 'https',
      'x-forwarded-for': '127.0.0.1',
    });
  });

  it('drops power-up headers a client sends itself, and passes on what nginx does not use', async () => {
    await request(`${base}/x`, {
      headers: {
        ...BROWSER,
        host: container.default_hostname,
        'x-tagport-bot': '0',
        'x-device-bot': 'false',
        'x-device-bot-score': '0',
        'x-geo-country': 'XX',
        'x-geo-city': 'Nowhere',
        'x-gclb-country': 'XX',
        'x-tagport-front': 'guess',
      },
      dispatcher: client,
    }).then((response) => response.body.text());
    const { headers } = upstream.seen.at(-1)!;
    expect(headers['x-tagport-bot']).toBeUndefined();
    // BROWSER is a browser, so nginx's own verdict replaces the client's.
    expect(headers['x-device-bot']).toBe('false');
    expect(headers['x-device-bot-score']).toBe(String(detectBot(BROWSER).score));
    for (const name of ['x-geo-country', 'x-geo-city', 'x-gclb-country']) expect(headers[name]).toBeUndefined();
    expect(headers['x-tagport-front']).toBe('guess');
  });

  it("passes a platform request's X-Tagport-Schedule on, never its token, and drops a visitor's", async () => {
    const through = async (extra: Record<string, string>) => {
      await request(`${base}/scheduled`, {
        headers: { ...BROWSER, host: container.default_hostname, 'x-tagport-schedule': 'nightly', ...extra },
        dispatcher: client,
      }).then((response) => response.body.text());
      return upstream.seen.at(-1)!.headers;
    };
    const platform = await through({ 'x-tagport-platform': platformRequestToken(t.app.config) });
    expect(platform['x-tagport-schedule']).toBe('nightly');
    expect(platform).not.toHaveProperty('x-tagport-platform');
    const forgeries: Array<Record<string, string>> = [{}, { 'x-tagport-platform': 'guess' }];
    for (const forged of forgeries) {
      const visitor = await through(forged);
      expect(visitor).not.toHaveProperty('x-tagport-schedule');
      expect(visitor).not.toHaveProperty('x-tagport-platform');
    }
  });

  it.each([
    ['a browser', BROWSER, false],
    ['Googlebot', { ...BROWSER, 'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' }, true],
    ['curl', { ...BROWSER, 'user-agent': 'curl/8.5.0' }, true],
    [
      'headless Chrome',
      { ...BROWSER, 'user-agent': BROWSER['user-agent'].replace('Chrome/', 'HeadlessChrome/') },
      true,
    ],
    ['a browser without Accept-Language', { 'user-agent': BROWSER['user-agent'] }, true],
    ['a browser driven by Selenium', { ...BROWSER, 'x-selenium': '1' }, true],
    [
      'Firefox',
      { ...BROWSER, 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0' },
      false,
    ],
    [
      "Googlebot's smartphone crawler, a browser's user agent with its name after it",
      {
        ...BROWSER,
        'user-agent': `${BROWSER['user-agent']} (compatible; Googlebot/2.1; +http://www.google.com/bot.html)`,
      },
      true,
    ],
    [
      'a browser without fetch metadata (suspicious)',
      { 'user-agent': BROWSER['user-agent'], 'accept-language': 'en' },
      false,
    ],
  ])(
    'marks bots and scores requests as the Node gateway does (bot detection on by default): %s',
    async (_name, headers, bot) => {
      const verdict = detectBot(headers);
      expect(verdict.bot).toBe(bot);
      await request(`${base}/bot`, {
        headers: { ...headers, host: container.default_hostname },
        dispatcher: client,
      }).then((response) => response.body.text());
      const seen = upstream.seen.at(-1)!.headers;
      expect(seen['x-tagport-bot']).toBe(bot ? '1' : undefined);
      expect(seen['x-device-bot']).toBe(String(bot));
      expect(seen['x-device-bot-score']).toBe(String(verdict.score));
    },
  );

  it('hands unknown hosts, /healthz and the custom loader to the Node gateway', async () => {
    handedToNode.length = 0;
    const unknown = await send('nobody.containers.tagport.test', '/g/collect');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body).error.code).toBe('unknown_host');
    const health = await send(container.default_hostname, '/healthz');
    expect(health.status).toBe(200);
    const loaderPath = (container as unknown as { settings: { loader_path: string } }).settings.loader_path;
    await send(container.default_hostname, `/${loaderPath}.js?id=GTM-ABC1234`);
    await send(container.default_hostname, '/.well-known/acme-challenge/token-1');
    expect(handedToNode).toEqual([
      'nobody.containers.tagport.test /g/collect',
      `${container.default_hostname} /healthz`,
      `${container.default_hostname} /${loaderPath}.js?id=GTM-ABC1234`,
      `${container.default_hostname} /.well-known/acme-challenge/token-1`,
    ]);
    // Only those exact paths: their neighbours go to the tagging server.
    for (const path of ['/healthz/more', '/HEALTHZ', `/${loaderPath}.json`, `/x/${loaderPath}.js`])
      expect((await send(container.default_hostname, path)).body).toBe(`saw /sgtm${path} `);
    expect(handedToNode).toHaveLength(4);
  });

  it.each(['/a%20b/c%2Fd?q=%41', '/x//y?z'])(
    'proxies %s itself, under the upstream path exactly as it came, as the Node gateway would',
    async (target) => {
      const before = upstream.seen.length;
      handedToNode.length = 0;
      const response = await rawRequest(base, `GET ${target} HTTP/1.1`, container.default_hostname);
      expect(response.status).toBe(200);
      expect(upstream.seen.slice(before).map(({ url }) => url)).toEqual([`/sgtm${target}`]);
      expect(handedToNode).toEqual([]);
    },
  );

  it('hands a target with dot segments to the Node gateway, which keeps it under the upstream path', async () => {
    const before = upstream.seen.length;
    handedToNode.length = 0;
    const response = await rawRequest(base, 'GET /a/./b/../c?x=1 HTTP/1.1', container.default_hostname);
    expect(response.status).toBe(200);
    expect(upstream.seen.slice(before).map(({ url }) => url)).toEqual(['/sgtm/a/c?x=1']);
    expect(handedToNode).toEqual([`${container.default_hostname} /a/./b/../c?x=1`]);
  });

  it.each(['/a/../../secret', '/a/%2e%2e/%2E%2E/secret', '/a/..%2f..%2fsecret'])(
    'never lets %s leave the upstream path: refused in the error format, or kept under it',
    async (target) => {
      const before = upstream.seen.length;
      const response = await rawRequest(base, `GET ${target} HTTP/1.1`, container.default_hostname);
      if (response.status === 400) expect(JSON.parse(response.body).error.code).toBe('bad_request');
      else expect(response.status).toBe(200);
      for (const { url } of upstream.seen.slice(before)) expect(url.startsWith('/sgtm/')).toBe(true);
      expect(secret.seen).toEqual([]);
    },
  );

  it.runIf(!withTls)('never connects where an absolute-form target points', async () => {
    const response = await rawRequest(
      base,
      `GET http://127.0.0.1:${secret.port}/secret HTTP/1.1`,
      container.default_hostname,
    );
    expect(response.status).toBeLessThan(500);
    expect(secret.seen).toEqual([]);
  });

  it('answers in the gateway error format when the upstream cannot be reached', async () => {
    const dead = net.createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const deadPort = (dead.address() as AddressInfo).port;
    await new Promise((resolve) => dead.close(resolve));
    const created = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token,
      payload: { name: 'Dead', region: 'eu-central', config: CONFIG, upstream_url: `http://127.0.0.1:${deadPort}` },
    });
    await t.app.services.containerWorker.idle();
    const host = created.json().default_hostname;
    await t.app.services.nativeGateway!.settled();
    handedToNode.length = 0;
    const response = await send(host, '/g/collect');
    expect(response.status).toBe(502);
    expect(handedToNode).toEqual([]); // nginx's own answer
    expect(response.headers['content-type']).toContain('application/json');
    const body = JSON.parse(response.body);
    expect(body.error.code).toBe('upstream_unreachable');
    expect(response.headers['x-request-id']).toBe(body.api_meta.request_id);
  });

  it('meters what nginx proxied: usage and sampled request logs through the API', async () => {
    await t.app.services.gateway.flush();
    const usageBefore = (await t.inject({ method: 'GET', url: `/api/containers/${container.id}/usage/`, token })).json()
      .total_requests as number;
    for (let i = 0; i < 5; i++)
      await send(container.default_hostname, `/metered/${i}`, { method: 'POST', body: 'abc' });
    await waitFor(
      async () => {
        await t.app.services.gateway.flush();
        const usage = (await t.inject({ method: 'GET', url: `/api/containers/${container.id}/usage/`, token })).json();
        return usage.total_requests >= usageBefore + 5;
      },
      10_000,
      'the meter log to be read',
    );
    const usage = (await t.inject({ method: 'GET', url: `/api/containers/${container.id}/usage/`, token })).json();
    expect(usage.total_requests).toBe(usageBefore + 5);
    const logs = (
      await t.inject({ method: 'GET', url: `/api/containers/${container.id}/logs/?limit=100`, token })
    ).json().results as Array<{ path: string; status_code: number; upstream: string; method: string }>;
    expect(logs.find((log) => log.path === '/metered/4')).toMatchObject({
      status_code: 200,
      method: 'POST',
      upstream: `http://127.0.0.1:${upstream.port}`,
    });
  });

  it.runIf(!withTls)(
    'keeps serving the running config when nginx refuses a new one on reload, and says why',
    async () => {
      const engine = t.app.services.nativeGateway!;
      // A fault from outside: the CA bundle that https upstreams are verified with is gone, so nginx cannot load a
      // config that names it (the first container with an https upstream).
      const runDir = (engine as unknown as { runDir: string }).runDir;
      const caFile = path.join(runDir, 'upstream-ca.pem');
      const bundle = await fs.readFile(caFile);
      const configBefore = await fs.readFile(path.join(runDir, 'nginx.conf'), 'utf8');
      await fs.rm(caFile);
      const secure = await t.inject({
        method: 'POST',
        url: '/api/containers/',
        token,
        payload: { name: 'Secure', region: 'eu-central', config: CONFIG, upstream_url: 'https://127.0.0.1:9/' },
      });
      expect(secure.statusCode).toBe(201);
      await t.app.services.containerWorker.idle();
      await engine.settled();
      await expect(engine.refresh()).rejects.toThrow(
        /^nginx refused the generated config: .*\[emerg\].*upstream-ca\.pem/,
      );
      // The running config still serves, and is the one on disk for a restart.
      handedToNode.length = 0;
      expect((await send(container.default_hostname, '/g/collect?v=2')).body).toBe('saw /sgtm/g/collect?v=2 ');
      expect(handedToNode).toEqual([]);
      expect(await fs.readFile(path.join(runDir, 'nginx.conf'), 'utf8')).toBe(configBefore);

      await fs.writeFile(caFile, bundle);
      await engine.refresh();
      expect(await fs.readFile(path.join(runDir, 'nginx.conf'), 'utf8')).toContain(secure.json().default_hostname);
      await t.inject({ method: 'DELETE', url: `/api/containers/${secure.json().id}/`, token });
      await t.app.services.containerWorker.idle();
    },
    30_000,
  );

  it('stops serving a stopped container at once: the Node gateway says why', async () => {
    await t.inject({ method: 'POST', url: `/api/containers/${container.id}/stop/`, token });
    await t.app.services.containerWorker.idle();
    await t.app.services.nativeGateway!.settled();
    const response = await send(container.default_hostname, '/g/collect');
    expect(response.status).toBe(503);
    expect(JSON.parse(response.body).error.code).toBe('container_not_running');
  });

  it.runIf(withTls)('redirects plain http to https, except ACME challenges and /healthz', async () => {
    const response = await request(`${plainBase}/g/collect?v=2`, {
      headers: { host: container.default_hostname },
      dispatcher: client,
    });
    await response.body.text();
    expect(response.statusCode).toBe(308);
    expect(response.headers.location).toBe(`${base.replace('127.0.0.1', container.default_hostname)}/g/collect?v=2`);
  });

  it.runIf(withTls)('offers HTTP/2 and the default certificate for container hostnames', async () => {
    const { port } = new URL(base);
    const socket = tls.connect({
      port: Number(port),
      host: '127.0.0.1',
      servername: container.default_hostname,
      ALPNProtocols: ['h2', 'http/1.1'],
      rejectUnauthorized: false,
    });
    await new Promise((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    expect(socket.alpnProtocol).toBe('h2');
    expect(socket.getPeerCertificate().subjectaltname).toContain('*.containers.tagport.test');
    socket.destroy();
  });
});
