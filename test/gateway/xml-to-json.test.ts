import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { startTestApp } from '../helpers/app.js';
import { CONFIG, testGateway, startGatewayOf } from '../helpers/gateway-app.js';
import { waitFor } from '../helpers/processes.js';
import { proxiedByNginx, type SgtmApp, startSgtmApp } from '../helpers/sgtm-app.js';

/** Resolves every name to 127.0.0.1, as Node's lookup option wants it. */
const loopbackLookup = ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
  options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4)) as never;

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A tagging server on loopback that records every request as it arrived, body included. */
async function startTaggingServer() {
  const seen: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('tagging server got it');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => server.close(resolve)) };
}

const ORDER = `<?xml version="1.0" encoding="UTF-8"?>
<order id="A-0042" status="paid">
  <customer><email>jane@example.com</email><zip>01067</zip></customer>
  <item sku="SKU-1">2</item>
  <item sku="SKU-2">1</item>
  <note>fish &amp; chips</note>
</order>`;
const ORDER_JSON = {
  order: {
    '@_id': 'A-0042',
    '@_status': 'paid',
    customer: { email: 'jane@example.com', zip: '01067' },
    item: [
      { '#text': '2', '@_sku': 'SKU-1' },
      { '#text': '1', '@_sku': 'SKU-2' },
    ],
    note: 'fish & chips',
  },
};

describe.each(['node', 'nginx'] as const)('XML to JSON on an upstream container (%s engine)', (engine) => {
  let t: TestApp;
  let tagging: Awaited<ReturnType<typeof startTaggingServer>>;
  let base: string;
  let host: string;

  beforeAll(async () => {
    tagging = await startTaggingServer();
    t = await startTestApp('pglite', {
      allowPrivateNetworks: true,
      containerTransitionDelayMs: 10,
      gateway: testGateway({ engine, tlsPort: null }),
    });
    const { token } = await t.tenantWithKey('business');
    const created = await t.inject({
      method: 'POST',
      url: '/api/containers/',
      token,
      payload: {
        name: 'Webhooks',
        region: 'eu-central',
        config: CONFIG,
        upstream_url: `${tagging.url}/sgtm`,
        settings: { xml_to_json: { enabled: true, paths: ['/webhooks/crm', '/feeds/orders'] } },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    host = created.json().default_hostname;
    await t.app.services.containerWorker.idle();
    base = await startGatewayOf(t, engine);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await tagging?.close();
  });

  async function post(path: string, contentType: string, body: string | Buffer) {
    tagging.seen.length = 0;
    const response = await request(`${base}${path}`, {
      method: 'POST',
      headers: { host, 'content-type': contentType, 'x-shop': 'kept' },
      body,
    });
    const text = await response.body.text();
    return { status: response.statusCode, headers: response.headers, body: text };
  }

  it('sends the tagging server the body as JSON, with its type, length and the conversion marked', async () => {
    const response = await post('/webhooks/crm?source=erp', 'application/xml; charset=utf-8', ORDER);
    expect(response).toMatchObject({ status: 200, body: 'tagging server got it' });
    expect(tagging.seen).toHaveLength(1);
    const [seen] = tagging.seen;
    expect(seen.url).toBe('/sgtm/webhooks/crm?source=erp');
    expect(JSON.parse(seen.body)).toEqual(ORDER_JSON);
    expect(seen.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(seen.body)),
      'x-tagport-converted-from': 'xml',
      'x-shop': 'kept',
      'x-forwarded-host': host,
    });
  });

  it.each(['text/xml', 'application/soap+xml; charset=utf-8', 'application/atom+xml'])(
    'converts %s too',
    async (contentType) => {
      const response = await post('/feeds/orders', contentType, '<feed><entry>1</entry></feed>');
      expect(response.status).toBe(200);
      expect(tagging.seen[0].body).toBe('{"feed":{"entry":"1"}}');
      expect(tagging.seen[0].headers['content-type']).toBe('application/json');
    },
  );

  it.each([
    ['malformed XML', '<order><item>1</order>'],
    ['text that is not XML', 'order=42'],
    ['a DOCTYPE (entities, XXE)', '<!DOCTYPE order [<!ENTITY x SYSTEM "file:///etc/passwd">]><order>&x;</order>'],
  ])('answers 400 invalid_xml to %s and forwards nothing', async (_case, xml) => {
    const response = await post('/webhooks/crm', 'application/xml', xml);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).error).toEqual({ code: 'invalid_xml', message: expect.any(String) });
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(tagging.seen).toEqual([]);
  });

  it('answers 413 to an XML body over 1 MB and forwards nothing', async () => {
    const xml = `<big>${'x'.repeat(1024 * 1024)}</big>`;
    const response = await post('/webhooks/crm', 'application/xml', xml);
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body).error.code).toBe('body_too_large');
    expect(tagging.seen).toEqual([]);
  });

  it('leaves XML sent to a path not listed as it is', async () => {
    const response = await post('/webhooks/other', 'application/xml', ORDER);
    expect(response.status).toBe(200);
    expect(tagging.seen[0].body).toBe(ORDER);
    expect(tagging.seen[0].headers['content-type']).toBe('application/xml');
    expect(tagging.seen[0].headers['x-tagport-converted-from']).toBeUndefined();
  });

  it('leaves a listed path alone when the body is not XML', async () => {
    const response = await post('/webhooks/crm', 'application/json', '{"order":42}');
    expect(response.status).toBe(200);
    expect(tagging.seen[0].body).toBe('{"order":42}');
    expect(tagging.seen[0].headers['content-type']).toBe('application/json');
    expect(tagging.seen[0].headers['x-tagport-converted-from']).toBeUndefined();
  });
});

const ECHO_SERVER = fileURLToPath(new URL('../fixtures/sgtm/echo-server.mjs', import.meta.url));

describe.each(['node', 'nginx'] as const)('XML to JSON on an sgtm container (%s engine)', (engine) => {
  let s: SgtmApp;
  let host: string;
  let client: Agent;

  beforeAll(async () => {
    s = await startSgtmApp('pglite', {
      engine,
      command: () => `${JSON.stringify(process.execPath)} ${JSON.stringify(ECHO_SERVER)}`,
    });
    const created = await s.createSgtm({
      settings: { tagging_server: { min_replicas: 1 }, xml_to_json: { enabled: true, paths: ['/webhooks/crm'] } },
    });
    host = created.default_hostname;
    client = new Agent({ connect: { ca: s.caPem, lookup: loopbackLookup } });
    await s.until(created.id, 'running', { unless: ['failed'] });
    if (engine !== 'nginx') return;
    // A container without the power-up that nginx proxies itself: once its config names that one, it has seen both.
    const plain = await s.createSgtm({ settings: { tagging_server: { min_replicas: 1 } } });
    await s.until(plain.id, 'running', { unless: ['failed'] });
    await waitFor(async () => proxiedByNginx(s, plain.id), 10_000, 'nginx to proxy the plain container');
    expect(proxiedByNginx(s, created.id)).toBe(false);
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await client?.close();
  });

  async function post(path: string, contentType: string, body: string) {
    const response = await request(`https://${host}:${s.tlsPort}${path}`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
      dispatcher: client,
    });
    return { status: response.statusCode, body: await response.body.text() };
  }

  it('sends the replica the body as JSON, with its type, length and the conversion marked', async () => {
    const response = await post('/webhooks/crm?source=erp', 'text/xml', ORDER);
    expect(response.status).toBe(200);
    const seen = JSON.parse(response.body);
    expect(seen.url).toBe('/webhooks/crm?source=erp');
    expect(JSON.parse(seen.body)).toEqual(ORDER_JSON);
    expect(seen.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(seen.body)),
      'x-tagport-converted-from': 'xml',
    });
  });

  it('answers 400 invalid_xml to malformed XML, and leaves other paths as they are', async () => {
    const malformed = await post('/webhooks/crm', 'application/xml', '<order>');
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body).error.code).toBe('invalid_xml');
    const other = JSON.parse((await post('/webhooks/other', 'application/xml', ORDER)).body);
    expect(other).toMatchObject({ body: ORDER, headers: { 'content-type': 'application/xml' } });
  });
});
