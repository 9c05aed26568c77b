import type { RuntimeEvent, Visitor } from '../../../../src/gateway/runtime/types.js';

/** A visitor as the runtime sees one, with no geo data, no bot flag and no cookies; `overrides` win. */
export function testVisitor(overrides: Partial<Visitor> = {}): Visitor {
  return {
    ip: '203.0.113.7',
    userAgent: 'Mozilla/5.0',
    cookies: {},
    country: null,
    region: null,
    city: null,
    botScore: null,
    bot: false,
    ...overrides,
  };
}

/** A GA4 event from a web page, with ids and no parameters, value or user data; `overrides` win. */
export function testEvent(overrides: Partial<RuntimeEvent> = {}): RuntimeEvent {
  return {
    name: 'page_view',
    measurementId: 'G-TEST123',
    clientId: '111.222',
    eventId: 'ev-1',
    time: Date.UTC(2026, 10, 28),
    pageUrl: 'https://shop.example.com/',
    referrer: null,
    pageTitle: 'Home',
    value: null,
    currency: null,
    params: {},
    items: [],
    userData: {},
    ...overrides,
  };
}
