import { createHash, randomBytes } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createBuiltinContainer, startAppWithGateway, testRuntime } from '../helpers/gateway-app.js';
import { type GoogleFixture, startGoogleFixture, until } from '../helpers/google-fixture.js';
import { type GraphApiFixture, startGraphApi } from '../helpers/graph-api.js';

const MEASUREMENT_ID = 'G-SHOP1234';
const PIXEL_ID = '1234567890123456';
const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const hex = (value: string) => createHash('sha256').update(value).digest('hex');
/** How gtag.js encodes a hash in `em`: SHA-256, base64url without padding. */
const gtagHash = (value: string) => createHash('sha256').update(value).digest('base64url');

/**
 * A GA4 purchase carrying user-provided data, as a page with gtag.js sends it to the container (`/g/collect`, the
 * shared parameters in the URL, the event in the body), goes through the gateway to the fixture Graph API: the
 * customer data reaches Meta hashed as Meta requires, and GA4 gets the hit with its `em` as the browser sent it.
 */
describe('user-provided data on GA4 hits, forwarded to the Meta Conversions API', () => {
  let t: TestApp;
  let gatewayUrl: string;
  let google: GoogleFixture;
  let graph: GraphApiFixture;
  let host: string;

  beforeAll(async () => {
    google = await startGoogleFixture();
    graph = await startGraphApi();
    ({ t, gatewayUrl } = await startAppWithGateway('pglite', {
      secretsKey: randomBytes(32),
      meta: {
        graphOrigin: graph.origin,
        graphVersion: 'v26.0',
        timeoutMs: 2000,
        deliveryRetentionDays: 30,
        batchWindowMs: 0,
      },
      runtime: testRuntime(google.origin),
    }));
    const { token } = await t.tenantWithKey('business');
    const created = await createBuiltinContainer(t, token, { settings: { ga4_measurement_ids: [MEASUREMENT_ID] } });
    host = created.default_hostname;
    const pixel = await t.inject({
      method: 'POST',
      url: `/api/containers/${created.id}/meta-pixels/`,
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

  async function collect(query: URLSearchParams, body: URLSearchParams) {
    const response = await request(`${gatewayUrl}/g/collect?${query}`, {
      method: 'POST',
      headers: { host, 'user-agent': BROWSER_UA, 'content-type': 'text/plain;charset=UTF-8' },
      body: body.toString(),
    });
    await response.body.dump();
    return response.statusCode;
  }

  const sentToMeta = (eventId: string) =>
    graph.received
      .flatMap((sent) => sent.params.data as Array<{ event_id: string; user_data: Record<string, unknown> }>)
      .find((event) => event.event_id === eventId);

  it('sends em, ph, fn, ct, country and external_id as SHA-256 of the normalised values', async () => {
    const em = [
      'tv.1',
      `em.${gtagHash('jane.doe@example.com')}`,
      // gtag's phone hash (of +E.164) cannot match at Meta: the clear phone below is the one sent.
      `pn.${gtagHash('+491512345678')}`,
      `fn0.${gtagHash('jane')}`,
      'ct0.Bad%20Wenigstadt',
      'co0.DE',
    ].join('~');
    const query = new URLSearchParams({
      v: '2',
      tid: MEASUREMENT_ID,
      cid: '1234.5678',
      uid: 'customer-42',
      dl: 'https://www.shop.example/checkout/thanks',
    });
    const event = new URLSearchParams({
      en: 'purchase',
      cu: 'EUR',
      'epn.value': '42.5',
      'ep.transaction_id': 'T-2001',
      'ep.event_id': 'purchase-ud-1',
      em,
      'ep.user_data.phone_number': '+49 (151) 234-5678',
    });
    const googleBefore = google.hits.length;
    expect(await collect(query, event)).toBe(204);
    await t.app.services.runtime.idle();

    const sent = sentToMeta('purchase-ud-1');
    expect(sent).toMatchObject({ event_name: 'Purchase', custom_data: { value: 42.5, currency: 'EUR' } });
    expect(sent?.user_data).toEqual({
      client_ip_address: '127.0.0.1',
      client_user_agent: BROWSER_UA,
      em: [hex('jane.doe@example.com')],
      ph: [hex('491512345678')],
      fn: [hex('jane')],
      ct: [hex('badwenigstadt')],
      country: [hex('de')],
      external_id: [hex('customer-42')],
    });
    await until(() => google.hits.length > googleBefore);
    expect(google.hits.at(-1)?.params.get('em')).toBe(em);
  });

  it('sends clear user_data parameters normalised and hashed, and leaves out what cannot be customer data', async () => {
    const query = new URLSearchParams({ v: '2', tid: MEASUREMENT_ID, cid: '1234.5678' });
    const event = new URLSearchParams({
      en: 'generate_lead',
      'ep.event_id': 'lead-ud-2',
      'ep.user_data.email': '  Jane.Doe@Example.COM ',
      'ep.user_data.address.last_name': "O'Neill",
      'ep.user_data.address.region': 'BY',
      'ep.user_data.address.postal_code': '80331',
      'ep.user_data.address.country': 'Germany',
      'ep.user_data.phone_number': 'n/a',
    });
    expect(await collect(query, event)).toBe(204);
    await t.app.services.runtime.idle();

    expect(sentToMeta('lead-ud-2')?.user_data).toEqual({
      client_ip_address: '127.0.0.1',
      client_user_agent: BROWSER_UA,
      em: [hex('jane.doe@example.com')],
      ln: [hex('oneill')],
      st: [hex('by')],
      zp: [hex('80331')],
    });
  });
});
