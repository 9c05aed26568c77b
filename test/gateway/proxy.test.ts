import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containers } from '../../src/db/schema.js';
import { upstreamTarget } from '../../src/gateway/server.js';
import type { TestApp } from '../helpers/app.js';
import { startAppWithGateway } from '../helpers/gateway-app.js';

const CONFIG = Buffer.from('id=GTM-ABC1234&env=1&auth=AbCdEf123456').toString('base64');

/** An HTTP server on every loopback address (dual-stack ::) that records what reached it. */
async function startRecorder(name: string) {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`${name} saw ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  const { port } = server.address() as AddressInfo;
  return { port, seen, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Sends one request exactly as written (request target included) and returns status line and body. */
async function rawRequest(
  gatewayUrl: string,
  requestLine: string,
  host: string,
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(gatewayUrl);
  const socket = net.connect(Number(port), hostname);
  socket.write(`${requestLine}\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  return { status, body: text.slice(text.indexOf('\r\n\r\n') + 4) };
}

describe('upstreamTarget', () => {
  it.each([
    ['/g/collect?v=2', 'https://up.test/g/collect?v=2'],
    ['//evil.test/x', 'https://up.test//evil.test/x'],
    ['/a/../../../secret', 'https://up.test/secret'],
    ['/a/%2e%2e/%2E%2E/secret', 'https://up.test/secret'],
    ['/a\\..\\..\\secret', 'https://up.test/secret'],
    ['/x#frag', 'https://up.test/x%23frag'],
    ['/q?next=http://127.0.0.1/', 'https://up.test/q?next=http://127.0.0.1/'],
  ])('%s stays on the upstream origin: %s', (requestTarget, expected) => {
    expect(upstreamTarget('https://up.test', requestTarget)?.href).toBe(expected);
  });

  it('keeps the upstream path as a prefix that dot segments cannot leave', () => {
    expect(upstreamTarget('https://up.test:8443/base/', '/../../etc/passwd?x=1')?.href).toBe(
      'https://up.test:8443/base/etc/passwd?x=1',
    );
  });

  it.each([
    ['/b?y=1', 'https://up.test/base/b?y=1'],
    ['/a/../b?y=1', 'https://up.test/base/b?y=1'],
  ])('takes neither query nor fragment of the upstream itself: %s → %s', (requestTarget, expected) => {
    expect(upstreamTarget('https://up.test/base?x=1#h', requestTarget)?.href).toBe(expected);
  });

  it.each(['http://127.0.0.1:4350/secret', 'https://up.test/x', '127.0.0.1:4350', '*', ''])(
    'refuses the non-path target %j',
    (requestTarget) => {
      expect(upstreamTarget('https://up.test', requestTarget)).toBeNull();
    },
  );

  it('refuses upstreams that are not http(s)', () => {
    expect(upstreamTarget('file:///etc/passwd', '/x')).toBeNull();
  });
});

describe("the gateway only ever reaches the container's own upstream", () => {
  let t: TestApp;
  let gatewayUrl: string;
  let upstream: Awaited<ReturnType<typeof startRecorder>>;
  let secret: Awaited<ReturnType<typeof startRecorder>>;
  let host: string;

  beforeAll(async () => {
    upstream = await startRecorder('upstream');
    secret = await startRecorder('secret');
    ({ t, gatewayUrl } = await startAppWithGateway('pglite', { gateway: { logSampleRate: 0 } }));
    const tenant = await t.tenantWithKey('business');
    const created = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token: tenant.token,
      payload: {
        name: 'Proxy',
        region: 'eu-central',
        config: CONFIG,
        upstream_url: `http://127.0.0.1:${upstream.port}/sgtm`,
      },
    });
    host = created.json().default_hostname;
    await t.app.services.containerWorker.idle();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await upstream?.close();
    await secret?.close();
  });

  it.each([
    // An absolute-form target naming another host than the Host header (docs/gateway-routing.md).
    [`GET http://127.0.0.1:SECRET/secret HTTP/1.1`, 400, null, 'bad_request'],
    [`GET http://[::1]:SECRET/secret HTTP/1.1`, 400, null, 'bad_request'],
    [`GET //127.0.0.1:SECRET/secret HTTP/1.1`, 200, '/sgtm//127.0.0.1:SECRET/secret'],
    [`GET /a/../../secret HTTP/1.1`, 200, '/sgtm/secret'],
    [`GET /a/%2e%2e/%2E%2E/secret HTTP/1.1`, 200, '/sgtm/secret'],
    [`GET /a/..%2f..%2fsecret HTTP/1.1`, 200, '/sgtm/a/..%2f..%2fsecret'],
    [`OPTIONS * HTTP/1.1`, 400, null, 'invalid_request_target'],
  ])('%s', async (line, status, upstreamPath, code?: string) => {
    const before = upstream.seen.length;
    const response = await rawRequest(gatewayUrl, line.replace('SECRET', String(secret.port)), host);
    expect(response.status).toBe(status);
    if (status === 400) expect(JSON.parse(response.body).error.code).toBe(code);
    expect(upstream.seen.slice(before)).toEqual(
      upstreamPath ? [upstreamPath.replace('SECRET', String(secret.port))] : [],
    );
    expect(secret.seen).toEqual([]);
  });

  it('refuses CONNECT tunnels', async () => {
    const response = await rawRequest(gatewayUrl, `CONNECT 127.0.0.1:${secret.port} HTTP/1.1`, host).catch(() => ({
      status: 0,
      body: '',
    }));
    expect(response.status).not.toBe(200);
    expect(secret.seen).toEqual([]);
  });
});

describe('the SSRF guard applies to every upstream connection, IP literal or name', () => {
  let t: TestApp;
  let gatewayUrl: string;
  let internal: Awaited<ReturnType<typeof startRecorder>>;
  let token: string;
  const errors: unknown[] = [];

  beforeAll(async () => {
    internal = await startRecorder('internal');
    ({ t, gatewayUrl } = await startAppWithGateway('pglite', {
      allowPrivateNetworks: false,
      gateway: { logSampleRate: 0 },
    }));
    token = (await t.tenantWithKey('business')).token;
    t.app.log.error = ((...args: unknown[]) => void errors.push(args)) as typeof t.app.log.error;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await internal?.close();
  });

  /** A running container whose upstream was written straight into the database, past the API's checks. */
  async function containerWithUpstream(upstreamUrl: string): Promise<string> {
    const created = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token,
      payload: { name: 'Raw upstream', region: 'eu-central', config: CONFIG },
    });
    expect(created.statusCode).toBe(201);
    await t.app.services.containerWorker.idle();
    await t.database.db
      .update(containers)
      .set({ upstreamUrl, runtime: 'upstream' })
      .where(eq(containers.id, created.json().id));
    return created.json().default_hostname;
  }

  it.each([
    'http://127.0.0.1:PORT/x',
    'http://127.1:PORT/x',
    'http://2130706433:PORT/x',
    'http://0x7f.0.0.1:PORT/x',
    'http://0.0.0.0:PORT/x',
    'http://[::1]:PORT/x',
    'http://[::ffff:127.0.0.1]:PORT/x',
    'http://[::ffff:7f00:1]:PORT/x',
    'http://[::ffff:0:7f00:1]:PORT/x',
    'http://[64:ff9b::7f00:1]:PORT/x',
    'http://[::127.0.0.1]:PORT/x',
    'http://localhost:PORT/x',
    'http://10.0.0.1:PORT/x',
    'http://169.254.169.254/latest/meta-data/',
  ])('%s is refused with upstream_unreachable and never connected to', async (template) => {
    const hostname = await containerWithUpstream(template.replace('PORT', String(internal.port)));
    const response = await request(`${gatewayUrl}/g/collect`, { headers: { host: hostname } });
    const body = (await response.body.json()) as { error: object; api_meta: { request_id: string } };
    expect(response.statusCode, JSON.stringify(body)).toBe(502);
    expect(body.error).toEqual({ code: 'upstream_unreachable', message: expect.any(String) });
    expect(body.api_meta.request_id).toBe(response.headers['x-request-id']);
    expect(JSON.stringify(body)).not.toMatch(/127\.|::|10\.0|169\.254|localhost|refused|ECONN|private|loopback/i);
    expect(internal.seen).toEqual([]);
  });

  it('answers a closed port and a refused address alike, so the gateway cannot scan ports', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const answers = [];
    for (const upstreamUrl of [
      `http://127.0.0.1:${internal.port}/`,
      `http://127.0.0.1:${closedPort}/`,
      'http://upstream.invalid/',
    ]) {
      const hostname = await containerWithUpstream(upstreamUrl);
      const response = await request(`${gatewayUrl}/x`, { headers: { host: hostname } });
      answers.push({ status: response.statusCode, error: ((await response.body.json()) as { error: object }).error });
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it('logs the detail with the request id', async () => {
    const hostname = await containerWithUpstream(`http://127.0.0.1:${internal.port}/`);
    errors.length = 0;
    const response = await request(`${gatewayUrl}/x`, { headers: { host: hostname } });
    await response.body.dump();
    const requestId = response.headers['x-request-id'] as string;
    expect(requestId).toMatch(/^req_/);
    expect(JSON.stringify(errors.map((args) => String((args as [{ err: Error }])[0].err.message)))).toContain(
      requestId,
    );
  });
});
