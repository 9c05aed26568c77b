import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { domainCertificates } from '../../../src/db/schema.js';
import { testConfig } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { startDns, type TestDns } from '../../helpers/dns.js';
import { testGateway } from '../../helpers/gateway-app.js';

const CONFIG = Buffer.from('id=GTM-ABC1234&env=1&auth=AbCdEf123456').toString('base64');

/**
 * An ACME directory (RFC 8555) as far as an order's first step: nonces, the account, and new orders, which it
 * answers the way a CA at its rate limits does (429, `rateLimited`, Retry-After) or refuses as unauthorized. It does
 * not check signatures: what is under test is what Tagport does with the answer.
 */
function startRateLimitingCa(answer: (hostname: string) => { status: number; detail: string; retryAfter?: string }) {
  const orders: string[] = [];
  const server = http.createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    res.setHeader('replay-nonce', randomBytes(12).toString('base64url'));
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/dir')
        return void res.end(
          JSON.stringify({ newNonce: `${base}/nonce`, newAccount: `${base}/account`, newOrder: `${base}/order` }),
        );
      if (req.url === '/nonce') return void res.writeHead(200).end();
      if (req.url === '/account')
        return void res.writeHead(200, { location: `${base}/account/1` }).end('{"status":"valid"}');
      if (req.url === '/order') {
        const jws = JSON.parse(Buffer.concat(chunks).toString()) as { payload: string };
        const payload = JSON.parse(Buffer.from(jws.payload, 'base64url').toString()) as {
          identifiers: Array<{ value: string }>;
        };
        const hostname = payload.identifiers[0].value;
        orders.push(hostname);
        const { status, detail, retryAfter } = answer(hostname);
        const type = status === 429 ? 'rateLimited' : 'unauthorized';
        res.writeHead(status, {
          'content-type': 'application/problem+json',
          ...(retryAfter ? { 'retry-after': retryAfter } : {}),
        });
        return void res.end(JSON.stringify({ type: `urn:ietf:params:acme:error:${type}`, detail }));
      }
      res.writeHead(404).end();
    });
  });
  return new Promise<{ url: string; orders: string[]; close: () => void }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/dir`,
        orders,
        close: () => server.close(),
      }),
    ),
  );
}

describe("certificate orders at the CA's rate limits", () => {
  let dns: TestDns;
  let ca: Awaited<ReturnType<typeof startRateLimitingCa>>;
  let testDatabase: TestDatabase;
  let app: FastifyInstance;
  let token: string;
  let containerId: string;
  let accountLimited = false;

  beforeAll(async () => {
    dns = await startDns();
    ca = await startRateLimitingCa((hostname) => {
      if (accountLimited)
        return {
          status: 429,
          detail: 'too many new orders (300) from this account in the last 3h0m0s',
          retryAfter: '7200',
        };
      if (hostname.endsWith('.busy-shop.test'))
        return {
          status: 429,
          detail: 'too many certificates (50) already issued for "busy-shop.test" in the last 168h0m0s',
          retryAfter: '3600',
        };
      return { status: 403, detail: 'the CA refused this identifier' };
    });
    testDatabase = await createTestDatabase('pglite');
    app = await buildApp({
      config: testConfig({
        runWorkers: false,
        gateway: testGateway({ publicIps: ['127.0.0.1'], logSampleRate: 0 }),
        dns: { resolvers: [`127.0.0.1:${dns.port}`], timeoutMs: 5_000, recheckIntervalMs: 60_000 },
        secretsKey: randomBytes(32),
        acme: {
          directoryUrl: ca.url,
          email: null,
          caCertificates: [],
          renewAfterFraction: 2 / 3,
          retryBaseMs: 60_000,
          retryMaxMs: 600_000,
          pollMs: 60_000,
        },
      }),
      database: testDatabase.database,
    });
    await app.ready();
    const tenant = await app.services.tenants.create({ name: 'Agency', plan: 'business', parentId: null });
    token = (await app.services.apiKeys.create(tenant.id, { name: 'test key', role: 'owner' })).token;
    containerId = (await api('POST', '/api/containers/', { name: 'Shop', region: 'eu-central', config: CONFIG })).id;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await testDatabase?.drop();
    ca?.close();
    dns?.close();
  });

  async function api(method: 'GET' | 'POST', url: string, payload?: object) {
    const response = await app.inject({ method, url, payload, headers: { authorization: `Bearer ${token}` } });
    expect(response.statusCode, response.body).toBeLessThan(300);
    return response.json();
  }

  async function activeDomain(hostname: string): Promise<string> {
    const domain = await api('POST', '/api/domains/', { hostname, container_id: containerId });
    const txt = domain.dns_records.find((record: { type: string }) => record.type === 'TXT');
    dns.records.set(hostname, [{ type: 'A', value: '127.0.0.1' }]);
    dns.records.set(txt.name, [{ type: 'TXT', value: txt.value }]);
    expect((await api('POST', `/api/domains/${domain.id}/verify/`)).status).toBe('active');
    return domain.id;
  }

  const nextAttempt = async (id: string) =>
    (
      await testDatabase.database.db.select().from(domainCertificates).where(eq(domainCertificates.domainId, id))
    )[0].nextAttemptAt.getTime();

  it("holds back the registered domain's other orders until the CA's Retry-After, and orders the others", async () => {
    const first = await activeDomain('a.busy-shop.test');
    const second = await activeDomain('b.busy-shop.test');
    const other = await activeDomain('data.calm-shop.test');
    const before = Date.now();

    await app.services.certificates.issueDue(10);
    expect(ca.orders.filter((hostname) => hostname.endsWith('.busy-shop.test'))).toHaveLength(1);

    // The batch stops at the refusal; the next round orders the calm shop, never the busy one's other domain.
    await app.services.certificates.issueDue(10);
    expect(ca.orders.filter((hostname) => hostname.endsWith('.busy-shop.test'))).toHaveLength(1);
    expect(ca.orders).toContain('data.calm-shop.test');

    for (const id of [first, second]) {
      expect(await nextAttempt(id)).toBeGreaterThanOrEqual(before + 3_600_000 - 1000);
      expect(await nextAttempt(id)).toBeLessThan(Date.now() + 3_600_000 + 1000);
    }
    const limited = ca.orders.includes('a.busy-shop.test') ? first : second;
    const certificate = (await api('GET', `/api/domains/${limited}/`)).certificate;
    expect(certificate.last_error).toMatch(/^Rate limited by the CA until .*too many certificates \(50\)/);
    const waiting = (await api('GET', `/api/domains/${limited === first ? second : first}/`)).certificate;
    expect(waiting).toMatchObject({ status: 'pending', last_error: null });
    expect(await nextAttempt(other)).toBeLessThan(Date.now() + 600_000 + 1000);
  }, 60_000);

  it("holds back every order when the limit is the account's", async () => {
    accountLimited = true;
    const ids = [await activeDomain('one.quiet-shop.test'), await activeDomain('two.other-shop.test')];
    const ordered = ca.orders.length;
    await app.services.certificates.issueDue(10);
    expect(ca.orders.length).toBe(ordered + 1);
    await app.services.certificates.issueDue(10);
    expect(ca.orders.length).toBe(ordered + 1);
    for (const id of ids) expect(await nextAttempt(id)).toBeGreaterThan(Date.now() + 7_000_000);
  }, 60_000);
});
