import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { createBuiltinContainer, startAppWithGateway, testRuntime } from '../helpers/gateway-app.js';
import { type GoogleFixture, startGoogleFixture, until } from '../helpers/google-fixture.js';
import { type GraphApiFixture, graphErrors, startGraphApi } from '../helpers/graph-api.js';

const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
  'accept-language': 'en-GB,en;q=0.9',
};
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
/** Public addresses named in X-Forwarded-For by the (trusted, loopback) proxy; no traffic goes to them. */
const US_VISITOR = '8.8.8.8';
const PIXEL_ID = '1234567890123456';

/** A tagging server on loopback that remembers the headers of each request. */
async function startTaggingServer() {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe('the built-in runtime with power-ups and the Meta Conversions API', () => {
  let t: TestApp;
  let gatewayUrl: string;
  let google: GoogleFixture;
  let graph: GraphApiFixture;
  let tagging: Awaited<ReturnType<typeof startTaggingServer>>;
  let token: string;

  beforeAll(async () => {
    google = await startGoogleFixture();
    graph = await startGraphApi();
    tagging = await startTaggingServer();
    ({ t, gatewayUrl } = await startAppWithGateway('pglite', {
      trustProxy: ['127.0.0.1'],
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
    token = (await t.tenantWithKey('business')).token;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await google?.close();
    await graph?.close();
    await tagging?.close();
  });

  const container = (settings: object = {}, extra: object = {}) =>
    createBuiltinContainer(t, token, { settings: { ga4_measurement_ids: ['G-SHOP1234'], ...settings }, ...extra });

  async function withPixel(settings: object = {}) {
    const created = await container(settings);
    const pixel = await t.inject({
      method: 'POST',
      url: `/api/containers/${created.id}/meta-pixels/`,
      token,
      payload: { pixel_id: PIXEL_ID, access_token: 'EAAtesttoken1234567890abcd' },
    });
    expect(pixel.statusCode, pixel.body).toBe(201);
    return { ...created, pixel: pixel.json().id as string };
  }

  async function through(
    host: string,
    path: string,
    init: { method?: 'GET' | 'POST'; body?: string; headers?: Record<string, string> } = {},
  ) {
    const response = await request(`${gatewayUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: { host, ...BROWSER, ...init.headers },
      body: init.body,
    });
    return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
  }

  async function deliveries(containerId: string, pixel: string) {
    const listed = await t.inject({
      method: 'GET',
      url: `/api/containers/${containerId}/meta-pixels/${pixel}/deliveries/`,
      token,
    });
    expect(listed.statusCode, listed.body).toBe(200);
    return listed.json().results as Array<{ event_id: string; status: string; attempts: number; http_status: number }>;
  }

  async function runtimeUsage(containerId: string) {
    await t.app.services.runtime.idle();
    await t.app.services.gateway.flush();
    const usage = await t.inject({ method: 'GET', url: `/api/containers/${containerId}/usage/`, token });
    return usage.json().runtime.totals as Record<string, number>;
  }

  const sentTo = (eventId: string) =>
    graph.received.filter((sent) => (sent.params.data as Array<{ event_id: string }>)[0]?.event_id === eventId);

  describe('POST /events (direct JSON events)', () => {
    it('answers 202 and sends the event to every Meta pixel of the container, with the visitor', async () => {
      const { default_hostname: host, id, pixel } = await withPixel();
      const response = await through(host, '/events', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          cookie: '_fbp=fb.1.1700000000000.111; _fbc=fb.1.1700000000000.clickid',
          'x-forwarded-for': US_VISITOR,
        },
        body: JSON.stringify({
          event_name: 'purchase',
          event_id: 'order-1001',
          event_source_url: 'https://shop.example.com/thanks',
          value: 49.9,
          currency: 'EUR',
        }),
      });
      expect(response.status).toBe(202);
      await t.app.services.runtime.idle();
      const [sent] = sentTo('order-1001');
      expect(sent.pixelId).toBe(PIXEL_ID);
      expect(sent.params.data).toEqual([
        expect.objectContaining({
          event_name: 'Purchase',
          event_id: 'order-1001',
          action_source: 'website',
          event_source_url: 'https://shop.example.com/thanks',
          user_data: {
            client_ip_address: US_VISITOR,
            client_user_agent: BROWSER['user-agent'],
            fbp: 'fb.1.1700000000000.111',
            fbc: 'fb.1.1700000000000.clickid',
          },
          custom_data: { value: 49.9, currency: 'EUR' },
        }),
      ]);
      expect(await deliveries(id, pixel)).toEqual([
        expect.objectContaining({ event_id: 'order-1001', status: 'delivered', attempts: 1 }),
      ]);
      expect(await runtimeUsage(id)).toMatchObject({ hits_received: 1, meta_forwarded: 1 });
    });

    it.each([
      ['not JSON', '{"event_name":', 'invalid_json'],
      ['without event_id', JSON.stringify({ event_name: 'purchase' }), 'invalid_event'],
      [
        'with value but no currency',
        JSON.stringify({ event_name: 'purchase', event_id: 'x', value: 3 }),
        'invalid_event',
      ],
    ])('answers 400 in the gateway error format for a body %s', async (_, body, code) => {
      const { default_hostname: host } = await container();
      const response = await through(host, '/events', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body).error).toMatchObject({ code, message: expect.any(String) });
    });

    it('sends GA4 hits mapped to Meta events, with the anonymizer rules for Meta applied', async () => {
      const { default_hostname: host } = await withPixel({
        anonymizer: { meta: { ip: 'truncate', user_agent: 'drop' } },
      });
      await through(host, '/g/collect?v=2&tid=G-SHOP1234&cid=5.6&en=add_to_cart&ep.event_id=cart-77', {
        headers: { 'x-forwarded-for': US_VISITOR },
      });
      await t.app.services.runtime.idle();
      const [sent] = sentTo('cart-77');
      expect(sent.params.data).toEqual([
        expect.objectContaining({ event_name: 'AddToCart', user_data: { client_ip_address: '8.8.8.0' } }),
      ]);
    });
    it("adds the visitor's country from the geo power-up to the Meta event, hashed as Meta requires", async () => {
      const { default_hostname: host } = await withPixel({ geo_headers: { enabled: true } });
      await through(host, '/events', {
        method: 'POST',
        headers: { 'x-forwarded-for': US_VISITOR },
        body: JSON.stringify({ event_name: 'generate_lead', event_id: 'lead-geo' }),
      });
      await t.app.services.runtime.idle();
      const [sent] = sentTo('lead-geo');
      expect((sent.params.data as Array<{ user_data: object }>)[0].user_data).toMatchObject({
        country: [createHash('sha256').update('us').digest('hex')],
      });
    });
  });

  describe('Graph API failures', () => {
    it('retries an event Graph answers 500, once, and records it delivered', async () => {
      const { default_hostname: host, id, pixel } = await withPixel();
      graph.answerNext(graphErrors.serverError());
      await through(host, '/events', {
        method: 'POST',
        body: JSON.stringify({ event_name: 'generate_lead', event_id: 'lead-500' }),
      });
      await t.app.services.runtime.idle();
      expect(sentTo('lead-500')).toHaveLength(2);
      expect(await deliveries(id, pixel)).toEqual([
        expect.objectContaining({ event_id: 'lead-500', status: 'delivered', attempts: 2, http_status: 200 }),
      ]);
    });

    it('records an event Graph answers 400 as failed, and does not send it again', async () => {
      const { default_hostname: host, id, pixel } = await withPixel();
      graph.answerNext(graphErrors.invalidParameter());
      await through(host, '/events', {
        method: 'POST',
        body: JSON.stringify({ event_name: 'generate_lead', event_id: 'lead-400' }),
      });
      await t.app.services.runtime.idle();
      expect(sentTo('lead-400')).toHaveLength(1);
      expect(await deliveries(id, pixel)).toEqual([
        expect.objectContaining({ event_id: 'lead-400', status: 'failed', attempts: 1, http_status: 400 }),
      ]);
      expect(await runtimeUsage(id)).toMatchObject({ meta_forwarded: 0, forwards_failed: 1 });
    });
  });

  describe('the anonymizer of the user id and personal data, and the FPID cookie', () => {
    // A tenant of their own: the other tests here use up the plan's containers.
    let own: string;
    beforeAll(async () => {
      own = (await t.tenantWithKey('business')).token;
    });
    const ownContainer = (settings: object = {}) =>
      createBuiltinContainer(t, own, { settings: { ga4_measurement_ids: ['G-SHOP1234'], ...settings } });
    async function ownPixel(settings: object) {
      const created = await ownContainer(settings);
      const pixel = await t.inject({
        method: 'POST',
        url: `/api/containers/${created.id}/meta-pixels/`,
        token: own,
        payload: { pixel_id: PIXEL_ID, access_token: 'EAAtesttoken1234567890abcd' },
      });
      expect(pixel.statusCode, pixel.body).toBe(201);
      return created;
    }

    it("drops GA4's uid and user_id parameters only where the GA4 anonymizer says user_id: drop", async () => {
      const hit = '/g/collect?v=2&tid=G-SHOP1234&cid=1.2&en=login&uid=u-7&ep.user_id=u-7&up.user_id=u-7&ep.method=mail';
      const received = async (settings: object) => {
        const { default_hostname: host } = await ownContainer(settings);
        const before = google.hits.length;
        await through(host, hit);
        await until(() => google.hits.length > before);
        return Object.fromEntries(google.hits.at(-1)?.params ?? []);
      };
      const kept = await received({});
      expect(kept).toMatchObject({ uid: 'u-7', 'ep.user_id': 'u-7', 'up.user_id': 'u-7' });
      const dropped = await received({ anonymizer: { ga4: { user_id: 'drop' } } });
      expect(dropped).not.toHaveProperty('uid');
      expect(dropped).not.toHaveProperty('ep.user_id');
      expect(dropped).not.toHaveProperty('up.user_id');
      expect(dropped).toMatchObject({ cid: '1.2', en: 'login', 'ep.method': 'mail' });
    });

    it('sends GA4 no e-mail (parameters, user-provided data, page URL) with user_data: drop', async () => {
      const { default_hostname: host } = await ownContainer({ anonymizer: { ga4: { user_data: 'drop' } } });
      const page = encodeURIComponent('https://shop.example.com/welcome?email=jane%40example.com&utm_source=mail');
      const before = google.hits.length;
      await through(
        host,
        `/g/collect?v=2&tid=G-SHOP1234&cid=1.2&en=sign_up&dl=${page}&em=tv.1~em.abc&ep.user_email=jane%40example.com` +
          '&ep.user_data.phone_number=%2B49151&ep.method=mail',
      );
      await until(() => google.hits.length > before);
      const sent = google.hits.at(-1)?.params as URLSearchParams;
      expect(sent.toString()).not.toMatch(/jane|%40|em\.abc|49151/);
      expect(Object.fromEntries(sent)).toMatchObject({
        en: 'sign_up',
        dl: 'https://shop.example.com/welcome?utm_source=mail',
        'ep.method': 'mail',
      });
      expect([...sent.keys()]).not.toEqual(expect.arrayContaining(['em']));
    });

    it("keeps Google's FPID cookie and sends the same client id from it on every hit", async () => {
      const { default_hostname: host } = await ownContainer();
      const cookie = 'FPID=FPID2.2.2vwfEqQnm1fbTyLngcbupbCN7jTzwZsEQcaBdDulNzI%3D.1775537645';
      const before = google.hits.length;
      const answers = [
        await through(host, '/g/collect?v=2&tid=G-SHOP1234&cid=111.222&en=page_view', { headers: { cookie } }),
        await through(host, '/g/collect?v=2&tid=G-SHOP1234&cid=333.444&en=page_view', { headers: { cookie } }),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(204);
        expect([answer.headers['set-cookie'] ?? []].flat()).not.toEqual(
          expect.arrayContaining([expect.stringMatching(/^FPID=/)]),
        );
      }
      await until(() => google.hits.length >= before + 2);
      const clientIds = google.hits.slice(before).map((hit) => hit.params.get('cid'));
      expect(clientIds).toEqual(['1601903684.1775537645', '1601903684.1775537645']);
      // Without the cookie, the hit's own client id is kept in a new FPID of ours.
      const fresh = await through(host, '/g/collect?v=2&tid=G-SHOP1234&cid=111.222&en=page_view');
      expect([fresh.headers['set-cookie']].flat()).toEqual([expect.stringMatching(/^FPID=111\.222; /)]);
    });

    it("sends Meta no external_id (GA4's uid) with the Meta anonymizer's user_id: drop, and the e-mail still", async () => {
      const { default_hostname: host } = await ownPixel({ anonymizer: { meta: { user_id: 'drop' } } });
      const email = createHash('sha256').update('jane@example.com').digest('hex');
      await through(
        host,
        `/g/collect?v=2&tid=G-SHOP1234&cid=1.2&en=generate_lead&uid=u-7&ep.event_id=lead-uid&em=tv.1~em.${email}`,
      );
      await t.app.services.runtime.idle();
      const [sent] = sentTo('lead-uid');
      const [event] = sent.params.data as Array<{ user_data: object }>;
      expect(event.user_data).not.toHaveProperty('external_id');
      expect(event.user_data).toMatchObject({ em: [email] });
    });

    it("sends Meta no customer data and no e-mail in the page URL with the Meta anonymizer's user_data: drop", async () => {
      const { default_hostname: host } = await ownPixel({ anonymizer: { meta: { user_data: 'drop' } } });
      await through(host, '/events', {
        method: 'POST',
        body: JSON.stringify({
          event_name: 'generate_lead',
          event_id: 'lead-pii',
          event_source_url: 'https://shop.example.com/thanks?email=jane%40example.com&step=2',
          user_data: { em: 'jane@example.com', ph: '+49 151 2345678' },
        }),
      });
      await t.app.services.runtime.idle();
      const [sent] = sentTo('lead-pii');
      const [event] = sent.params.data as Array<{ user_data: object; event_source_url: string }>;
      expect(event.user_data).not.toHaveProperty('em');
      expect(event.user_data).not.toHaveProperty('ph');
      expect(event.event_source_url).toBe('https://shop.example.com/thanks?step=2');
    });
  });

  describe('power-ups on the built-in runtime', () => {
    it("truncates the visitor's IP in what GA4 receives when the GA4 anonymizer says so", async () => {
      const { default_hostname: host } = await container({ anonymizer: { ga4: { ip: 'truncate' } } });
      const before = google.hits.length;
      await through(host, '/g/collect?v=2&tid=G-SHOP1234&cid=1.2&en=page_view', {
        headers: { 'x-forwarded-for': US_VISITOR },
      });
      await until(() => google.hits.length > before);
      expect(google.hits.at(-1)?.params.get('_uip')).toBe('8.8.8.0');
    });

    it('drops and counts a bot hit when bot detection is set to drop', async () => {
      const { default_hostname: host, id } = await container({ bot_detection: { mode: 'drop' } });
      const before = google.hits.length;
      const response = await through(host, '/g/collect?v=2&tid=G-SHOP1234&cid=1.2&en=page_view', {
        headers: { 'user-agent': GOOGLEBOT },
      });
      expect(response.status).toBe(204);
      expect(await runtimeUsage(id)).toMatchObject({ hits_received: 1, ga4_forwarded: 0, bots_dropped: 1 });
      expect(google.hits.length).toBe(before);
    });

    it("marks a bot's hit for GA4 with its score when bot detection is set to mark; a browser's stays as it was", async () => {
      const { default_hostname: host } = await container({ bot_detection: { mode: 'mark' } });
      const hit = async (headers: Record<string, string>) => {
        const before = google.hits.length;
        await through(host, '/g/collect?v=2&tid=G-SHOP1234&cid=1.2&en=page_view', { headers });
        await until(() => google.hits.length > before);
        return google.hits.at(-1)!.params;
      };
      const bot = await hit({ 'user-agent': GOOGLEBOT });
      expect([bot.get('ep.device_bot'), bot.get('epn.device_bot_score')]).toEqual(['true', '100']);
      const browser = await hit({ 'sec-fetch-mode': 'no-cors' });
      expect([browser.get('ep.device_bot'), browser.get('epn.device_bot_score')]).toEqual([null, null]);
      const suspicious = await hit({});
      expect([suspicious.get('ep.device_bot'), suspicious.get('epn.device_bot_score')]).toEqual(['false', '60']);
    });

    it("adds the visitor's country, region and city to what GA4 receives when geo is on", async () => {
      const { default_hostname: host } = await container({ geo_headers: { enabled: true } });
      const before = google.hits.length;
      await through(host, '/g/collect?v=2&tid=G-SHOP1234&cid=1.2&en=page_view', {
        headers: { 'x-forwarded-for': US_VISITOR },
      });
      await until(() => google.hits.length > before);
      const params = google.hits.at(-1)!.params;
      expect([params.get('ep.geo_country'), params.get('ep.geo_region'), params.get('ep.geo_city')]).toEqual([
        'US',
        'California',
        'Mountain View',
      ]);
    });

    it('backs up the kept cookies and restores a lost one, counted in usage', async () => {
      const { default_hostname: host, id } = await container({ cookie_keeper: { enabled: true, cookies: ['_ga'] } });
      const hit = '/g/collect?v=2&tid=G-SHOP1234&cid=1.2&en=page_view';
      const first = await through(host, hit, { headers: { cookie: '_ga=GA1.1.111.222' } });
      expect(first.headers['set-cookie']).toEqual(
        expect.arrayContaining([expect.stringMatching(/^_tp_keep__ga=GA1\.1\.111\.222; .*HttpOnly/)]),
      );
      const second = await through(host, hit, { headers: { cookie: '_tp_keep__ga=GA1.1.111.222' } });
      const restored = (second.headers['set-cookie'] as string[]).find((cookie) => cookie.startsWith('_ga='));
      expect(restored).toMatch(/^_ga=GA1\.1\.111\.222; Max-Age=34560000; Path=\/; Secure; SameSite=Lax$/);
      expect(await runtimeUsage(id)).toMatchObject({ cookies_restored: 1 });
    });

    it('restores a lost cookie on the custom loader request, before the site scripts run', async () => {
      const { default_hostname: host, id } = await container({
        loader_path: 'keeper1',
        cookie_keeper: { enabled: true, cookies: ['_ga'] },
      });
      const loader = await through(host, '/keeper1.js?id=G-SHOP1234', {
        headers: { cookie: '_tp_keep__ga=GA1.1.333.444', referer: 'https://www.shop.example/' },
      });
      expect(loader.status).toBe(200);
      expect([loader.headers['set-cookie']].flat()).toEqual([expect.stringMatching(/^_ga=GA1\.1\.333\.444; /)]);
      expect(loader.headers['cache-control']).toMatch(/^private/);
      expect(await runtimeUsage(id)).toMatchObject({ cookies_restored: 1 });
    });

    it('keeps click ids of the landing page in first-party cookies', async () => {
      const { default_hostname: host } = await container({ click_id_restorer: { enabled: true } });
      const page = encodeURIComponent('https://shop.example.com/?gclid=Cj0abc&fbclid=IwAR123');
      const response = await through(host, `/g/collect?v=2&tid=G-SHOP1234&cid=1.2&en=page_view&dl=${page}`);
      const cookies = response.headers['set-cookie'] as string[];
      expect(cookies).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^_tp_gclid=Cj0abc; .*HttpOnly/),
          expect.stringMatching(/^_fbc=fb\.1\.\d+\.IwAR123; /),
        ]),
      );
    });
  });

  describe('power-ups on the upstream runtime (request headers to the tagging server)', () => {
    it("adds the geo headers for the visitor named by a trusted proxy, and Stape's bot headers with a score", async () => {
      const { default_hostname: host } = await container(
        { geo_headers: { enabled: true } },
        { upstream_url: tagging.url, runtime: 'upstream' },
      );
      await through(host, '/g/collect?v=2', {
        headers: {
          'x-forwarded-for': US_VISITOR,
          'x-tagport-bot': '1',
          'x-device-bot': 'true',
          'sec-fetch-mode': 'cors',
        },
      });
      expect(tagging.seen.at(-1)).toMatchObject({
        'x-geo-country': 'US',
        'x-geo-region': 'California',
        'x-geo-city': 'Mountain%20View',
        'x-gclb-country': 'US',
        'x-device-bot': 'false',
        'x-device-bot-score': '0',
      });
      expect(tagging.seen.at(-1)).not.toHaveProperty('x-tagport-bot');
      await through(host, '/g/collect?v=2', {
        headers: { 'user-agent': GOOGLEBOT, 'x-geo-country': 'FR', 'x-geo-city': 'Paris', 'x-device-bot-score': '0' },
      });
      expect(tagging.seen.at(-1)).toMatchObject({
        'x-tagport-bot': '1',
        'x-device-bot': 'true',
        'x-device-bot-score': '100',
      });
      for (const name of ['x-geo-country', 'x-geo-region', 'x-geo-city', 'x-gclb-country'])
        expect(tagging.seen.at(-1)).not.toHaveProperty(name);
    });

    it('sends no bot headers when bot detection is off', async () => {
      const { default_hostname: host } = await container(
        { bot_detection: { mode: 'off' } },
        { upstream_url: tagging.url, runtime: 'upstream' },
      );
      await through(host, '/g/collect?v=2', { headers: { 'user-agent': GOOGLEBOT, 'x-device-bot': 'false' } });
      for (const name of ['x-device-bot', 'x-device-bot-score', 'x-tagport-bot'])
        expect(tagging.seen.at(-1)).not.toHaveProperty(name);
    });
  });
});
