import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toMetaEvent } from '../../../src/gateway/runtime/meta/events.js';
import { MetaConversionsSender, type MetaPixelTarget } from '../../../src/gateway/runtime/meta/sender.js';
import type { RuntimeEvent, Visitor } from '../../../src/gateway/runtime/types.js';
import { OutboundClient } from '../../../src/lib/outbound.js';
import { graphErrors, startGraphApi, type GraphApiFixture } from '../../helpers/graph-api.js';

const PIXEL: MetaPixelTarget = {
  pixelId: '1234567890123456',
  accessToken: 'EAAB-test-token-0001',
  testEventCode: null,
};
const CLICKED_AT = Date.UTC(2026, 10, 23, 12, 0, 0);
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

function purchase(overrides: Partial<RuntimeEvent> = {}): RuntimeEvent {
  return {
    name: 'purchase',
    measurementId: 'G-TEST123',
    clientId: '1234.5678',
    eventId: 'order-1001',
    time: CLICKED_AT + 1500,
    pageUrl: 'https://shop.example.com/thanks?fbclid=IwAR0abc_DEF-123',
    referrer: 'https://shop.example.com/checkout',
    pageTitle: 'Thanks',
    value: 49.9,
    currency: 'EUR',
    params: { transaction_id: 'T-1001' },
    items: [{ id: 'SKU-1', nm: 'Mug', pr: 19.95, qt: 2 }],
    userData: { email: '  Jane.Doe@Example.com ', phone: '+49 (151) 234-5678' },
    ...overrides,
  };
}

const visitor: Visitor = {
  ip: '203.0.113.7',
  userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 Safari/605.1.15',
  cookies: { _fbp: 'fb.1.1700000000000.987654321' },
  country: 'DE',
  region: null,
  city: null,
  botScore: null,
  bot: false,
};

describe('Meta Conversions API sender against a fixture Graph API', () => {
  let graph: GraphApiFixture;
  let outbound: OutboundClient;
  let sender: MetaConversionsSender;

  beforeAll(async () => {
    graph = await startGraphApi({ tokens: { [PIXEL.pixelId]: PIXEL.accessToken } });
    outbound = new OutboundClient({ allowPrivateNetworks: true });
    sender = new MetaConversionsSender(
      { http: outbound },
      { graphOrigin: graph.origin, graphVersion: 'v26.0', timeoutMs: 5_000 },
    );
  });
  afterAll(async () => {
    await outbound?.close();
    await graph?.close();
  });
  beforeEach(() => {
    graph.received.length = 0;
  });

  it('posts a purchase in Meta’s format, field by field, and reports it delivered', async () => {
    const event = toMetaEvent(purchase(), visitor)!;
    const result = await sender.send(PIXEL, [event]);

    expect(result).toMatchObject({ verdict: 'delivered', httpStatus: 200, eventsReceived: 1 });
    expect(graph.received).toHaveLength(1);
    const request = graph.received[0];
    expect(request.method).toBe('POST');
    expect(request.path).toBe(`/v26.0/${PIXEL.pixelId}/events`);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.params.access_token).toBe(PIXEL.accessToken);
    expect(request.params).not.toHaveProperty('test_event_code');
    const [sent] = request.params.data as Array<Record<string, unknown>>;
    expect(sent.event_name).toBe('Purchase');
    expect(sent.event_time).toBe(Math.floor((CLICKED_AT + 1500) / 1000));
    expect(sent.event_id).toBe('order-1001');
    expect(sent.action_source).toBe('website');
    expect(sent.event_source_url).toBe('https://shop.example.com/thanks?fbclid=IwAR0abc_DEF-123');
    expect(sent.referrer_url).toBe('https://shop.example.com/checkout');
    expect(sent.user_data).toEqual({
      client_ip_address: '203.0.113.7',
      client_user_agent: visitor.userAgent,
      fbp: 'fb.1.1700000000000.987654321',
      fbc: `fb.1.${CLICKED_AT + 1500}.IwAR0abc_DEF-123`,
      em: [sha256('jane.doe@example.com')],
      ph: [sha256('491512345678')],
      country: [sha256('de')],
    });
    expect(sent.custom_data).toEqual({
      value: 49.9,
      currency: 'EUR',
      contents: [{ id: 'SKU-1', quantity: 2, item_price: 19.95 }],
      content_ids: ['SKU-1'],
      content_type: 'product',
      num_items: 2,
      order_id: 'T-1001',
    });
  });

  it('keeps the access token out of the URL and sends test_event_code when the pixel has one', async () => {
    const result = await sender.send({ ...PIXEL, testEventCode: 'TEST4711' }, [
      toMetaEvent(purchase({ name: 'page_view', value: null, currency: null, items: [] }), visitor)!,
    ]);
    expect(result.verdict).toBe('delivered');
    expect(graph.received[0].path).not.toContain(PIXEL.accessToken);
    expect(graph.received[0].params.test_event_code).toBe('TEST4711');
  });

  it('answers retry on a 500 and delivered when the same events are sent again and Graph answers 200', async () => {
    graph.answerNext(graphErrors.serverError());
    const events = [toMetaEvent(purchase(), visitor)!];

    const first = await sender.send(PIXEL, events);
    expect(first).toMatchObject({ verdict: 'retry', httpStatus: 500, error: { code: 2, type: 'OAuthException' } });
    const second = await sender.send(PIXEL, events);
    expect(second).toMatchObject({ verdict: 'delivered', httpStatus: 200, eventsReceived: 1 });
    expect(graph.received).toHaveLength(2);
    expect(graph.received[1].rawBody).toBe(graph.received[0].rawBody);
  });

  it('answers rejected on a 400 and keeps Graph’s error: message, type, code, subcode and fbtrace_id', async () => {
    graph.answerNext(graphErrors.invalidParameter('Invalid parameter: event_time is too far in the past'));
    const result = await sender.send(PIXEL, [toMetaEvent(purchase(), visitor)!]);
    expect(result.verdict).toBe('rejected');
    if (result.verdict !== 'rejected') return;
    expect(result.httpStatus).toBe(400);
    expect(result.error).toEqual({
      message: 'Invalid parameter: event_time is too far in the past',
      type: 'OAuthException',
      code: 100,
      error_subcode: 2804003,
      fbtrace_id: expect.stringMatching(/^[\w-]{6,}$/),
    });
  });

  it('answers rejected with code 190 for a wrong access token', async () => {
    const result = await sender.send({ ...PIXEL, accessToken: 'EAAB-wrong' }, [toMetaEvent(purchase(), visitor)!]);
    expect(result).toMatchObject({ verdict: 'rejected', httpStatus: 400, error: { code: 190 } });
  });

  it('answers retry on a 429 and on a 400 that Graph marks transient (rate limit, code 17)', async () => {
    graph.answerNext(
      { kind: 'error', status: 429, error: { message: 'Too many calls', type: 'OAuthException', code: 80004 } },
      {
        kind: 'error',
        status: 400,
        error: { message: 'User request limit reached', type: 'OAuthException', code: 17, is_transient: true },
      },
    );
    const events = [toMetaEvent(purchase(), visitor)!];
    expect((await sender.send(PIXEL, events)).verdict).toBe('retry');
    expect((await sender.send(PIXEL, events)).verdict).toBe('retry');
  });

  it('answers retry when the connection drops', async () => {
    graph.answerNext({ kind: 'drop' });
    const result = await sender.send(PIXEL, [toMetaEvent(purchase(), visitor)!]);
    expect(result).toMatchObject({ verdict: 'retry', httpStatus: null });
  });
});
