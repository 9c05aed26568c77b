import { describe, expect, it } from 'vitest';
import { forwardedHit, parseCollect } from '../../../src/gateway/runtime/ga4.js';
import { ga4Outgoing } from '../../../src/gateway/runtime/outgoing.js';
import { anonymize } from '../../../src/gateway/runtime/powerups/index.js';
import { testVisitor } from './runtime/fixtures.js';

describe('parseCollect (GA4 /g/collect)', () => {
  it('reads a GET hit into a RuntimeEvent', () => {
    const [hit] = parseCollect(
      'v=2&tid=G-SHOP1234&cid=1.2&en=purchase&dl=https%3A%2F%2Fshop.test%2F&dt=Shop&dr=https%3A%2F%2Fref.test%2F&cu=EUR&epn.value=42.5&ep.transaction_id=T1&ep.event_id=e-1&pr1=idSKU1~nmShirt~pr19.99~qt2',
      '',
      1000,
    );
    expect(hit.event).toEqual({
      name: 'purchase',
      measurementId: 'G-SHOP1234',
      clientId: '1.2',
      eventId: 'e-1',
      time: 1000,
      pageUrl: 'https://shop.test/',
      referrer: 'https://ref.test/',
      pageTitle: 'Shop',
      value: 42.5,
      currency: 'EUR',
      params: { value: 42.5, transaction_id: 'T1', event_id: 'e-1' },
      items: [{ id: 'SKU1', nm: 'Shirt', pr: 19.99, qt: 2 }],
      userData: {},
    });
  });

  it('makes one hit per body line, the line over the URL, and skips lines without an event name', () => {
    const hits = parseCollect(
      'v=2&tid=G-A1234&cid=1.2&en=ignored',
      'en=page_view\n\nen=scroll&tid=G-B1234\n_et=5&en=',
      0,
    );
    expect(hits.map((hit) => [hit.event.name, hit.event.measurementId])).toEqual([
      ['page_view', 'G-A1234'],
      ['scroll', 'G-B1234'],
    ]);
  });

  it('forwards with the kept client id and the visitor IP in _uip', () => {
    const [hit] = parseCollect('v=2&tid=G-A1234&cid=1.2&en=page_view', '');
    const params = forwardedHit(hit, testVisitor({ userAgent: 'UA' }), '9.9');
    expect(params.toString()).toBe('v=2&tid=G-A1234&cid=9.9&en=page_view&_uip=203.0.113.7');
  });

  it('forwards what the GA4 anonymizer left: no IP, no click ids in the page URL, referrer or parameters', () => {
    const page = encodeURIComponent('https://shop.test/?gclid=abc&x=1');
    const [hit] = parseCollect(`v=2&tid=G-A1234&cid=1.2&en=page_view&dl=${page}&ep.gclid=abc&ep.kept=yes`, '');
    const visitor = testVisitor({ userAgent: 'UA' });
    const ga4 = anonymize(hit.event, visitor, { ip: 'drop', user_agent: 'keep', click_ids: 'drop' });
    const params = forwardedHit(hit, ga4.visitor, '1.2', ga4.event);
    expect(Object.fromEntries(params)).toEqual({
      v: '2',
      tid: 'G-A1234',
      cid: '1.2',
      en: 'page_view',
      dl: 'https://shop.test/?x=1',
      'ep.kept': 'yes',
    });
  });
});

describe('ga4Outgoing (the outgoing log summary of a GA4 forward)', () => {
  it('summarises what was sent: ids, event, the conversion parameters and the IP the anonymizer left', () => {
    const [hit] = parseCollect(
      'v=2&tid=G-SHOP1234&cid=1.2&en=purchase&dl=https%3A%2F%2Fshop.test%2F%3Fgclid%3Dabc&cu=EUR&epn.value=42.5&ep.transaction_id=T1&ep.gclid=abc&ep.section=home&pr1=idSKU1&pr2=idSKU2',
      '',
    );
    const ga4 = anonymize({ ...hit.event, clientId: '9.9' }, testVisitor(), {
      ip: 'truncate',
      user_agent: 'keep',
      click_ids: 'drop',
    });
    expect(ga4Outgoing(ga4.event, ga4.visitor)).toEqual({
      destination: 'ga4 G-SHOP1234',
      eventName: 'purchase',
      eventId: null,
      conversion: true,
      request: {
        measurement_id: 'G-SHOP1234',
        cid: '9.9',
        event_name: 'purchase',
        page_location: 'https://shop.test/',
        currency: 'EUR',
        params: { value: '42.5', transaction_id: 'T1' },
        items: 2,
        ip: '203.0.113.0',
      },
    });
  });

  it('shows no IP when none was sent, and a page view is no conversion', () => {
    const [hit] = parseCollect('v=2&tid=G-SHOP1234&cid=1.2&en=page_view', '');
    const ga4 = anonymize(hit.event, testVisitor(), { ip: 'drop', user_agent: 'keep', click_ids: 'keep' });
    const summary = ga4Outgoing(ga4.event, ga4.visitor);
    expect(summary.request).toEqual({ measurement_id: 'G-SHOP1234', cid: '1.2', event_name: 'page_view' });
    expect(summary.conversion).toBe(false);
  });
});
