import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createBuiltinContainer, startAppWithGateway, testRuntime } from '../helpers/gateway-app.js';
import { type GoogleFixture, startGoogleFixture } from '../helpers/google-fixture.js';
import { type GraphApiFixture, startGraphApi } from '../helpers/graph-api.js';

const MEASUREMENT_ID = 'G-BATCH123';
const PIXEL_ID = '1234567890123456';
const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

interface LoggedForward {
  event_id: string | null;
  status: string;
  http_status: number | null;
  error: string | null;
}

/**
 * The Conversions API takes many events per request: events of one container's pixel forwarded close together go to
 * Graph in one request, and each is still delivered, logged and counted on its own.
 */
describe('Meta events forwarded in batches by the built-in runtime', () => {
  let t: TestApp;
  let google: GoogleFixture;
  let graph: GraphApiFixture;
  let gatewayUrl: string;
  let token: string;
  let containerId: string;
  let hostname: string;

  beforeAll(async () => {
    google = await startGoogleFixture();
    // Like Graph: one event with an invalid currency makes the whole request fail.
    graph = await startGraphApi({
      invalidEvent: (event) => {
        const currency = (event.custom_data as { currency?: string } | undefined)?.currency;
        return currency && !/^[A-Z]{3}$/.test(currency) ? `(#100) Invalid currency code: ${currency}` : null;
      },
    });
    ({ t, gatewayUrl } = await startAppWithGateway('pglite', {
      secretsKey: randomBytes(32),
      meta: {
        graphOrigin: graph.origin,
        graphVersion: 'v26.0',
        timeoutMs: 2000,
        deliveryRetentionDays: 30,
        batchWindowMs: 50,
      },
      // A batch holds its events' forward slots while it waits: more slots than events per page.
      runtime: { ...testRuntime(google.origin), forwardConcurrency: 16 },
    }));
    ({ token } = await t.tenantWithKey('business'));
    const container = await createBuiltinContainer(t, token, { settings: { ga4_measurement_ids: [MEASUREMENT_ID] } });
    containerId = container.id;
    hostname = container.default_hostname;
    const pixel = await t.inject({
      method: 'POST',
      url: `/api/containers/${containerId}/meta-pixels/`,
      token,
      payload: { pixel_id: PIXEL_ID, access_token: 'EAAtesttoken1234567890abcd' },
    });
    expect(pixel.statusCode, pixel.body).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await google?.close();
    await graph?.close();
  });

  /** One `/g/collect` POST batching purchases, one per line, as gtag batches a page's events. */
  async function purchases(orders: Array<{ id: string; currency: string }>) {
    const shared = new URLSearchParams({ v: '2', tid: MEASUREMENT_ID, cid: '555.777', dl: 'https://shop.test/thanks' });
    const lines = orders.map(({ id, currency }) =>
      new URLSearchParams({ en: 'purchase', cu: currency, 'epn.value': '10', 'ep.event_id': id }).toString(),
    );
    const response = await request(`${gatewayUrl}/g/collect?${shared}`, {
      method: 'POST',
      headers: { host: hostname, 'user-agent': BROWSER_UA, 'content-type': 'text/plain' },
      body: lines.join('\n'),
    });
    await response.body.dump();
    expect(response.statusCode).toBe(204);
    await t.app.services.runtime.idle();
    await t.app.services.outgoingLog.flush();
  }

  async function metaLog(prefix: string): Promise<LoggedForward[]> {
    const response = await t.inject({
      method: 'GET',
      url: `/api/containers/${containerId}/outgoing-log/?vendor=meta`,
      token,
    });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { results: LoggedForward[] }).results.filter((entry) =>
      entry.event_id?.startsWith(prefix),
    );
  }

  const eventIdsOf = (data: unknown) => (data as Array<{ event_id: string }>).map((event) => event.event_id).sort();

  it('sends the events of one page to the pixel in one request, and logs each as delivered', async () => {
    const before = graph.received.length;
    const orders = ['a1', 'a2', 'a3', 'a4', 'a5'].map((id) => ({ id, currency: 'EUR' }));
    await purchases(orders);
    const sent = graph.received.slice(before);
    expect(sent).toHaveLength(1);
    expect(eventIdsOf(sent[0].params.data)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
    const logged = await metaLog('a');
    expect(logged.map((entry) => [entry.event_id, entry.status]).sort()).toEqual(
      orders.map(({ id }) => [id, 'delivered']),
    );
  });

  it('sends a refused batch again one event at a time, so only the invalid event fails', async () => {
    const before = graph.received.length;
    await purchases([
      { id: 'b1', currency: 'EUR' },
      { id: 'b2', currency: 'EURO' },
      { id: 'b3', currency: 'USD' },
    ]);
    const sent = graph.received.slice(before);
    expect(sent.map((request) => eventIdsOf(request.params.data))).toEqual(
      expect.arrayContaining([['b1', 'b2', 'b3'], ['b1'], ['b2'], ['b3']]),
    );
    expect(sent).toHaveLength(4);
    const logged = await metaLog('b');
    expect(logged.map((entry) => [entry.event_id, entry.status, entry.http_status]).sort()).toEqual([
      ['b1', 'delivered', 200],
      ['b2', 'failed', 400],
      ['b3', 'delivered', 200],
    ]);
    expect(logged.find((entry) => entry.event_id === 'b2')?.error).toBe('(#100) Invalid currency code: EURO');
  });
});
