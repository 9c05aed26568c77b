import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { outgoingLog, tenants } from '../../src/db/schema.js';
import { eq } from 'drizzle-orm';
import { newId } from '../../src/lib/ids.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { CONFIG, testGateway, testRuntime } from '../helpers/gateway-app.js';
import { type GoogleFixture, startGoogleFixture } from '../helpers/google-fixture.js';
import { type GraphApiFixture, graphErrors, startGraphApi } from '../helpers/graph-api.js';
import { recordOperationHits } from '../helpers/operation-hits.js';

const MEASUREMENT_ID = 'G-SHOP1234';
const PIXEL_ID = '1234567890123456';
const ACCESS_TOKEN = 'EAAtesttoken1234567890abcdSECRET';
const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const DAY_MS = 86_400_000;

interface Entry {
  id: string;
  vendor: string;
  destination: string;
  event_name: string;
  event_id: string | null;
  request: Record<string, unknown>;
  status: string;
  http_status: number | null;
  error: string | null;
  attempts: number;
  latency_ms: number | null;
  at: string;
}

/**
 * The outgoing log end to end on loopback: hits sent to the gateway, forwarded by the built-in runtime to a GA4
 * stand-in and a Graph API stand-in speaking the Conversions API, and read back through the API.
 */
describe('the outgoing log of a built-in container', () => {
  let app: FastifyInstance;
  let testDatabase: TestDatabase;
  let google: GoogleFixture;
  let graph: GraphApiFixture;
  let gatewayUrl: string;
  let token: string;
  let containerId: string;
  let hostname: string;
  const logLines: string[] = [];

  const api = (url: string, bearer = token) =>
    app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${bearer}` } });
  const list = async (query = '') => {
    const response = await api(`/api/containers/${containerId}/outgoing-log/${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { count: number; next: string | null; results: Entry[] };
  };

  async function createContainer(bearer: string, settings: Record<string, unknown>) {
    const created = await app.inject({
      method: 'POST',
      url: '/api/containers/',
      headers: { authorization: `Bearer ${bearer}` },
      payload: { name: 'Shop', region: 'eu-central', config: CONFIG, settings },
    });
    expect(created.statusCode, created.body).toBe(201);
    await app.services.containerWorker.idle();
    return created.json() as { id: string; default_hostname: string };
  }

  /** A purchase through `/g/collect`, as gtag sends it, then waits until its forwards are settled and written. */
  async function purchase(eventId: string) {
    const query = new URLSearchParams({
      v: '2',
      tid: MEASUREMENT_ID,
      cid: '1234567.7654321',
      en: 'purchase',
      dl: 'https://shop.test/checkout/thanks',
      cu: 'EUR',
      'epn.value': '42.5',
      'ep.transaction_id': 'T-1001',
      'ep.event_id': eventId,
    });
    const response = await request(`${gatewayUrl}/g/collect?${query}`, {
      method: 'POST',
      headers: { host: hostname, 'user-agent': BROWSER_UA },
    });
    await response.body.dump();
    expect(response.statusCode).toBe(204);
    await app.services.runtime.idle();
    await app.services.outgoingLog.flush();
  }

  beforeAll(async () => {
    google = await startGoogleFixture();
    graph = await startGraphApi();
    testDatabase = await createTestDatabase('pglite');
    app = await buildApp({
      config: testConfig({
        logLevel: 'debug',
        allowPrivateNetworks: true,
        containerTransitionDelayMs: 10,
        secretsKey: randomBytes(32),
        meta: {
          graphOrigin: graph.origin,
          graphVersion: 'v26.0',
          timeoutMs: 2000,
          deliveryRetentionDays: 30,
          batchWindowMs: 0,
        },
        gateway: testGateway(),
        runtime: testRuntime(google.origin),
      }),
      database: testDatabase.database,
      logStream: { write: (line) => void logLines.push(line) },
    });
    recordOperationHits(app);
    await app.ready();
    gatewayUrl = await app.services.gateway.listen(0, '127.0.0.1');
    const tenant = await app.services.tenants.create({ name: 'Shop', plan: 'business', parentId: null });
    token = (await app.services.apiKeys.create(tenant.id, { name: 'k', role: 'owner' })).token;
    const container = await createContainer(token, {
      ga4_measurement_ids: [MEASUREMENT_ID],
      anonymizer: { meta: { ip: 'truncate' } },
    });
    containerId = container.id;
    hostname = container.default_hostname;
    const pixel = await app.inject({
      method: 'POST',
      url: `/api/containers/${containerId}/meta-pixels/`,
      headers: { authorization: `Bearer ${token}` },
      payload: { pixel_id: PIXEL_ID, access_token: ACCESS_TOKEN },
    });
    expect(pixel.statusCode, pixel.body).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await testDatabase?.drop();
    await google?.close();
    await graph?.close();
  });

  it('shows a purchase forwarded to GA4 and Meta as two delivered rows, with what was sent', async () => {
    await purchase('order-1');
    const { results } = await list('?event_id=order-1');
    expect(results.map((entry) => [entry.vendor, entry.status]).sort()).toEqual([
      ['ga4', 'delivered'],
      ['meta', 'delivered'],
    ]);
    const ga4 = results.find((entry) => entry.vendor === 'ga4')!;
    expect(ga4).toMatchObject({
      destination: `ga4 ${MEASUREMENT_ID}`,
      event_name: 'purchase',
      http_status: 204,
      event_id: 'order-1',
      error: null,
      attempts: 1,
      request: {
        measurement_id: MEASUREMENT_ID,
        cid: '1234567.7654321',
        event_name: 'purchase',
        currency: 'EUR',
        params: { value: '42.5', transaction_id: 'T-1001', event_id: 'order-1' },
        ip: '127.0.0.1',
      },
    });
    expect(ga4.latency_ms).toEqual(expect.any(Number));
    const meta = results.find((entry) => entry.vendor === 'meta')!;
    expect(meta).toMatchObject({
      destination: `meta ${PIXEL_ID}`,
      event_name: 'Purchase',
      event_id: 'order-1',
      http_status: 200,
      error: null,
      request: {
        pixel_id: PIXEL_ID,
        custom_data: { value: 42.5, currency: 'EUR', order_id: 'T-1001' },
        access_token: 'EAAt…(masked)',
        // The container's anonymizer truncates the IP for Meta: the log shows what went, not the visitor's own.
        user_data: { client_ip_address: '127.0.0.0', client_user_agent: BROWSER_UA },
      },
    });
    expect(JSON.stringify(meta)).not.toContain('127.0.0.1');
  });

  it("shows a failed Meta forward with Meta's own message, the GA4 one beside it delivered", async () => {
    graph.answerNext(graphErrors.invalidParameter('Invalid parameter: event_time is too far in the past'));
    await purchase('order-2');
    const { results } = await list('?event_id=order-2&status=failed');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({
      vendor: 'meta',
      status: 'failed',
      http_status: 400,
      error: 'Invalid parameter: event_time is too far in the past',
      attempts: 1,
    });
    expect((await list('?event_id=order-2&status=delivered')).results.map((entry) => entry.vendor)).toEqual(['ga4']);
  });

  it("shows a GA4 hit Google refused with Google's status", async () => {
    google.state.collectStatuses.push(400);
    await purchase('order-3');
    const { results } = await list('?event_id=order-3&vendor=ga4');
    expect(results).toEqual([
      expect.objectContaining({ status: 'failed', http_status: 400, error: 'GA4 answered 400', attempts: 1 }),
    ]);
  });

  it('never shows the access token, in the API nor in the logs', async () => {
    // The token did go to Meta: it is there to leak.
    expect(graph.received.some((sent) => sent.params.access_token === ACCESS_TOKEN)).toBe(true);
    await app.services.gateway.flush();
    const everything = await api(`/api/containers/${containerId}/outgoing-log/?page_size=100`);
    expect(everything.json().count).toBe(6);
    expect(everything.body).not.toContain(ACCESS_TOKEN);
    expect(everything.body).not.toContain('SECRET');
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain(ACCESS_TOKEN);
  });

  it('filters by vendor, status, event name in any case and time, and pages by cursor', async () => {
    expect((await list('?vendor=meta')).results.every((entry) => entry.vendor === 'meta')).toBe(true);
    expect((await list('?vendor=meta')).count).toBe(3);
    expect((await list('?status=failed')).count).toBe(2);
    expect((await list('?event_name=PURCHASE')).count).toBe(6);
    expect((await list('?event_name=page_view')).count).toBe(0);
    expect((await list(`?since=${new Date(Date.now() + 60_000).toISOString()}`)).count).toBe(0);
    expect((await list(`?since=${new Date(Date.now() - 60_000).toISOString()}`)).count).toBe(6);
    const all = (await list('?page_size=100')).results.map((entry) => entry.id);
    const seen: string[] = [];
    let page = await list('?page_size=4');
    seen.push(...page.results.map((entry) => entry.id));
    while (page.next) {
      const next = new URL(page.next);
      page = await list(next.search);
      seen.push(...page.results.map((entry) => entry.id));
    }
    expect(seen).toEqual(all);
    const bad = await api(`/api/containers/${containerId}/outgoing-log/?status=lost`);
    expect(bad.statusCode).toBe(400);
  });

  it("gives another tenant a 404 for the container, and none of its rows in the tenant's own log", async () => {
    const other = await app.services.tenants.create({ name: 'Other', plan: 'business', parentId: null });
    const otherToken = (await app.services.apiKeys.create(other.id, { name: 'k', role: 'owner' })).token;
    const refused = await api(`/api/containers/${containerId}/outgoing-log/`, otherToken);
    expect(refused.statusCode).toBe(404);
    expect(refused.json().error.code).toBe('resource_missing');
    const own = await createContainer(otherToken, { ga4_measurement_ids: [MEASUREMENT_ID] });
    const ownLog = await api(`/api/containers/${own.id}/outgoing-log/?page_size=100`, otherToken);
    expect(ownLog.statusCode).toBe(200);
    expect(ownLog.json().results).toEqual([]);
    const cursor = (await list()).results[0].id;
    const foreignCursor = await api(`/api/containers/${own.id}/outgoing-log/?starting_after=${cursor}`, otherToken);
    expect(foreignCursor.statusCode).toBe(400);
  });

  it("removes rows older than the plan's retention days, per tenant", async () => {
    const free = await app.services.tenants.create({ name: 'Free', plan: 'free', parentId: null });
    const freeToken = (await app.services.apiKeys.create(free.id, { name: 'k', role: 'owner' })).token;
    const freeContainer = await createContainer(freeToken, { ga4_measurement_ids: ['G-FREE1234'] });
    const now = Date.now();
    const row = (container: string, ageDays: number) => {
      const at = new Date(now - ageDays * DAY_MS);
      return {
        id: newId('outgoingLog', at.getTime()),
        containerId: container,
        vendor: 'ga4' as const,
        destination: 'ga4 G-OLD',
        eventName: `aged_${ageDays}`,
        eventId: null,
        request: {},
        status: 'delivered' as const,
        attempts: 1,
        at,
      };
    };
    // business keeps 14 days, free 3.
    await testDatabase.database.db
      .insert(outgoingLog)
      .values([row(containerId, 13), row(containerId, 15), row(freeContainer.id, 2), row(freeContainer.id, 4)]);
    expect(await app.services.outgoingLog.prune()).toBe(2);
    const left = await testDatabase.database.db.select().from(outgoingLog);
    const aged = left.filter((entry) => entry.eventName.startsWith('aged_'));
    expect(aged.map((entry) => [entry.containerId, entry.eventName]).sort()).toEqual(
      [
        [containerId, 'aged_13'],
        [freeContainer.id, 'aged_2'],
      ].sort(),
    );
    // The rows of this run (seconds old) are kept.
    expect(left.length).toBe(aged.length + 6);
    // A tenant's override of the plan's days wins.
    await testDatabase.database.db
      .update(tenants)
      .set({ featureOverrides: { outgoing_log_retention_days: 1 } })
      .where(eq(tenants.id, free.id));
    expect(await app.services.outgoingLog.prune()).toBe(1);
  });
});
