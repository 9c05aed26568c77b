import { describe, expect, it } from 'vitest';
import { anonymize, truncateIp } from '../../../../../src/gateway/runtime/powerups/anonymizer.js';
import type { RuntimeEvent, Visitor } from '../../../../../src/gateway/runtime/types.js';

const event: RuntimeEvent = {
  name: 'page_view',
  measurementId: 'G-TEST123',
  clientId: '1.2',
  eventId: 'e1',
  time: 1_795_000_000_000,
  pageUrl: 'https://shop.example.com/?gclid=abc&fbclid=IwAR0&utm_source=ads',
  referrer: 'https://www.google.com/?wbraid=w1',
  pageTitle: 'Home',
  value: null,
  currency: null,
  params: { gclid: 'abc', section: 'home' },
  items: [{ id: 'SKU-1' }],
  userData: {},
};
const visitor: Visitor = {
  ip: '203.0.113.77',
  userAgent: 'Mozilla/5.0 Safari',
  cookies: { _ga: 'GA1.1.1.2', _fbc: 'fb.1.1.IwAR0', _fbp: 'fb.1.1.2', _tp_gclid: 'abc', _gcl_aw: 'GCL.1.abc' },
  country: 'DE',
  region: null,
  city: null,
  botScore: null,
  bot: false,
};

describe('truncateIp', () => {
  it.each([
    ['203.0.113.77', '203.0.113.0'],
    ['::ffff:203.0.113.77', '203.0.113.0'],
    ['2001:db8:85a3:8d3:1319:8a2e:370:7348', '2001:db8:85a3::'],
    ['2001:DB8:85A3::1', '2001:db8:85a3::'],
    ['2001:db8::1', '2001:db8::'],
    ['::1', '::'],
    ['not-an-ip', ''],
  ])('truncates %s to %s', (ip, truncated) => {
    expect(truncateIp(ip)).toBe(truncated);
  });
});

describe('anonymize', () => {
  it('keeps everything with keep rules, as a copy', () => {
    const copy = anonymize(event, visitor, { ip: 'keep', user_agent: 'keep', click_ids: 'keep' });
    expect(copy).toEqual({ event, visitor });
    expect(copy.event).not.toBe(event);
    expect(copy.visitor.cookies).not.toBe(visitor.cookies);
  });

  it('truncates the IP and drops the user agent', () => {
    const { visitor: out } = anonymize(event, visitor, { ip: 'truncate', user_agent: 'drop', click_ids: 'keep' });
    expect(out.ip).toBe('203.0.113.0');
    expect(out.userAgent).toBe('');
  });

  it('drops the IP', () => {
    expect(anonymize(event, visitor, { ip: 'drop', user_agent: 'keep', click_ids: 'keep' }).visitor.ip).toBe('');
  });

  it('drops click ids from the page URL, referrer, parameters and cookies, and keeps the rest', () => {
    const out = anonymize(event, visitor, { ip: 'keep', user_agent: 'keep', click_ids: 'drop' });
    expect(out.event.pageUrl).toBe('https://shop.example.com/?utm_source=ads');
    expect(out.event.referrer).toBe('https://www.google.com/');
    expect(out.event.params).toEqual({ section: 'home' });
    expect(out.visitor.cookies).toEqual({ _ga: 'GA1.1.1.2', _fbp: 'fb.1.1.2' });
  });

  it('never changes its inputs, so each vendor starts from the original', () => {
    const before = structuredClone({ event, visitor });
    anonymize(event, visitor, { ip: 'drop', user_agent: 'drop', click_ids: 'drop' });
    expect({ event, visitor }).toEqual(before);
  });
});
