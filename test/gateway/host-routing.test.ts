import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { CONFIG, testGateway } from '../helpers/gateway-app.js';

/**
 * The routing contract of docs/gateway-routing.md, one table of raw requests sent to both engines: a request is
 * routed by its one, valid Host; an absolute-form target must name the same host; plain HTTP is redirected to
 * https only for hostnames the gateway serves, to a location built from the validated hostname.
 */

/** A tagging server that answers with its own name and the target it saw. */
async function startTaggingServer(name: string) {
  const server = http.createServer((req, res) => res.writeHead(200).end(`${name} saw ${req.url}`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/sgtm`, close: () => new Promise((resolve) => server.close(resolve)) };
}

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

/** Writes `head` exactly as given (CRLF line ends, then an empty line) and reads the whole answer. */
async function send(port: number, head: string[], servername: string | null): Promise<RawAnswer> {
  const socket =
    servername === null
      ? net.connect(port, '127.0.0.1')
      : tls.connect({ port, host: '127.0.0.1', servername, rejectUnauthorized: false });
  socket.write(`${[...head, 'Connection: close'].join('\r\n')}\r\n\r\n`);
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  // An interim 100 Continue may come first: the final answer is what the row is about.
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/^(?:HTTP\/1\.[01] 1\d\d[^\r\n]*\r\n(?:[^\r\n]+\r\n)*\r\n)+/, '');
  const split = text.indexOf('\r\n\r\n');
  return {
    status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0),
    headers: text.slice(0, split).toLowerCase(),
    body: text.slice(split + 4),
  };
}

/** `{a}` and `{b}` stand for the two containers' hostnames, `{tls}` for the https port. */
interface Row {
  name: string;
  over: 'https' | 'http';
  head: string[];
  status: number;
  /** The body says this (a tagging server's answer), or the error code it carries. */
  body?: string;
  code?: string;
  location?: string;
}

const TABLE: Row[] = [
  {
    name: 'origin-form, one Host',
    over: 'https',
    head: ['GET /g/c HTTP/1.1', 'Host: {a}'],
    status: 200,
    body: 'A saw /sgtm/g/c',
  },
  {
    // The gateway answers the 100 itself (or has nothing to wait for) and relays the request.
    name: 'a POST expecting 100-continue',
    over: 'https',
    head: ['POST /g/c HTTP/1.1', 'Host: {a}', 'Expect: 100-continue', 'Content-Length: 0'],
    status: 200,
    body: 'A saw /sgtm/g/c',
  },
  {
    name: 'Host in capitals with a port',
    over: 'https',
    head: ['GET /g/c HTTP/1.1', 'Host: {A}:443'],
    status: 200,
    body: 'A saw /sgtm/g/c',
  },
  {
    name: 'absolute-form naming the Host',
    over: 'https',
    head: ['GET http://{a}/g/c HTTP/1.1', 'Host: {a}'],
    status: 200,
    body: 'A saw /sgtm/g/c',
  },
  {
    name: 'absolute-form naming another container',
    over: 'https',
    head: ['GET http://{b}/g/c HTTP/1.1', 'Host: {a}'],
    status: 400,
    code: 'bad_request',
  },
  {
    name: 'absolute-form naming an unknown host',
    over: 'https',
    head: ['GET http://elsewhere.test/g/c HTTP/1.1', 'Host: {a}'],
    status: 400,
    code: 'bad_request',
  },
  {
    name: 'two Host headers, different',
    over: 'https',
    head: ['GET /g/c HTTP/1.1', 'Host: {a}', 'Host: {b}'],
    status: 400,
    code: 'bad_request',
  },
  {
    name: 'two Host headers, the same',
    over: 'https',
    head: ['GET /g/c HTTP/1.1', 'Host: {a}', 'Host: {a}'],
    status: 400,
    code: 'bad_request',
  },
  {
    name: 'a Host with userinfo',
    over: 'https',
    head: ['GET /g/c HTTP/1.1', 'Host: x@{a}'],
    status: 400,
    code: 'bad_request',
  },
  {
    name: 'a Host with a port that is not a number',
    over: 'https',
    head: ['GET /g/c HTTP/1.1', 'Host: {a}:abc'],
    status: 400,
    code: 'bad_request',
  },
  { name: 'an empty Host', over: 'https', head: ['GET /g/c HTTP/1.1', 'Host: '], status: 400 },
  {
    name: 'no Host in HTTP/1.0: the gateway itself',
    over: 'https',
    head: ['GET /healthz HTTP/1.0'],
    status: 200,
    body: '{"status":"ok"}',
  },
  {
    name: 'plain HTTP, no Host in HTTP/1.0: the gateway itself',
    over: 'http',
    head: ['GET /healthz HTTP/1.0'],
    status: 200,
    body: '{"status":"ok"}',
  },
  { name: 'no Host in HTTP/1.1', over: 'https', head: ['GET /g/c HTTP/1.1'], status: 400 },
  {
    name: 'plain HTTP for a container: redirected',
    over: 'http',
    head: ['GET /g/c?v=2 HTTP/1.1', 'Host: {a}'],
    status: 308,
    location: 'https://{a}:{tls}/g/c?v=2',
  },
  {
    name: 'plain HTTP, Host in capitals with a port',
    over: 'http',
    head: ['GET / HTTP/1.1', 'Host: {A}:80'],
    status: 308,
    location: 'https://{a}:{tls}/',
  },
  {
    name: 'plain HTTP for a host no container serves',
    over: 'http',
    head: ['GET / HTTP/1.1', 'Host: evil.test'],
    status: 404,
    code: 'unknown_host',
  },
  {
    name: 'plain HTTP, a Host with userinfo',
    over: 'http',
    head: ['GET / HTTP/1.1', 'Host: x@evil.test'],
    status: 400,
    code: 'bad_request',
  },
  {
    name: 'plain HTTP, absolute-form naming another host',
    over: 'http',
    head: ['GET http://evil.test/ HTTP/1.1', 'Host: {a}'],
    status: 400,
    code: 'bad_request',
  },
  {
    name: 'plain HTTP, two Host headers',
    over: 'http',
    head: ['GET / HTTP/1.1', 'Host: {a}', 'Host: evil.test'],
    status: 400,
    code: 'bad_request',
  },
];

describe.each(['node', 'nginx'] as const)('Host routing on the %s engine: one table of raw requests', (engine) => {
  let t: TestApp;
  const servers: Array<Awaited<ReturnType<typeof startTaggingServer>>> = [];
  let ports: { http: number; https: number };
  const names = { a: '', b: '' };

  const fill = (text: string) =>
    text
      .replaceAll('{a}', names.a)
      .replaceAll('{A}', names.a.toUpperCase())
      .replaceAll('{b}', names.b)
      .replaceAll('{tls}', String(ports.https));

  beforeAll(async () => {
    servers.push(await startTaggingServer('A'), await startTaggingServer('B'));
    t = await startTestApp('pglite', {
      allowPrivateNetworks: true,
      containerTransitionDelayMs: 10,
      gateway: testGateway({ engine, tlsPort: 0 }),
    });
    const { token } = await t.tenantWithKey('business');
    for (const [index, key] of (['a', 'b'] as const).entries()) {
      const created = await t.inject({
        method: 'POST',
        url: '/api/containers/',
        token,
        payload: { name: key, region: 'eu-central', config: CONFIG, upstream_url: servers[index].url },
      });
      names[key] = created.json().default_hostname;
    }
    await t.app.services.containerWorker.idle();
    if (engine === 'nginx') {
      const started = await t.app.services.nativeGateway!.start();
      ports = { http: Number(new URL(started.http).port), https: Number(new URL(started.https!).port) };
    } else {
      const plain = await t.app.services.gateway.listen(0, '127.0.0.1');
      const secure = await t.app.services.gatewayTls!.listen(0, '127.0.0.1');
      ports = { http: Number(new URL(plain).port), https: Number(new URL(secure).port) };
    }
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    for (const server of servers) await server.close();
  });

  it.each(TABLE)('$name → $status', async (row) => {
    const head = row.head.map(fill);
    const answer = await send(
      row.over === 'https' ? ports.https : ports.http,
      head,
      row.over === 'https' ? names.a : null,
    );
    expect({ status: answer.status, body: answer.body.slice(0, 300) }).toMatchObject({ status: row.status });
    if (row.body) expect(answer.body).toContain(row.body);
    if (row.code) expect(JSON.parse(answer.body).error.code).toBe(row.code);
    if (row.location) expect(answer.headers.split('\r\n')).toContain(`location: ${fill(row.location)}`);
  });
});
