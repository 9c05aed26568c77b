import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { metaEventName, toMetaEvent } from '../../../../../src/gateway/runtime/meta/events.js';
import { testEvent, testVisitor } from '../fixtures.js';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const TIME = Date.UTC(2026, 10, 23, 12, 0, 0, 750);

const base = testEvent({ time: TIME });
const visitor = testVisitor({ ip: '2001:db8::7' });

describe('metaEventName', () => {
  it.each([
    ['page_view', 'PageView'],
    ['purchase', 'Purchase'],
    ['add_to_cart', 'AddToCart'],
    ['begin_checkout', 'InitiateCheckout'],
    ['generate_lead', 'Lead'],
    ['Purchase', 'Purchase'],
    ['Subscribe', 'Subscribe'],
  ])('sends %s as %s', (name, meta) => {
    expect(metaEventName(name)).toBe(meta);
  });

  it.each(['scroll', 'user_engagement', 'session_start', 'my_custom_event'])('sends no %s', (name) => {
    expect(metaEventName(name)).toBeNull();
  });
});

describe('toMetaEvent', () => {
  it('maps a page view: name, time in seconds, event_id, action_source, URL, IP and user agent', () => {
    expect(toMetaEvent(base, visitor)).toEqual({
      event_name: 'PageView',
      event_time: Math.floor(TIME / 1000),
      event_id: 'ev-1',
      action_source: 'website',
      event_source_url: 'https://shop.example.com/',
      user_data: { client_ip_address: '2001:db8::7', client_user_agent: 'Mozilla/5.0' },
    });
  });

  it('returns null for an event Meta has no counterpart for', () => {
    expect(toMetaEvent({ ...base, name: 'scroll' }, visitor)).toBeNull();
  });

  it('sends a purchase with value and currency in custom_data', () => {
    const event = toMetaEvent({ ...base, name: 'purchase', value: 12.5, currency: 'eur' }, visitor);
    expect(event?.custom_data).toEqual({ value: 12.5, currency: 'EUR' });
  });

  it('takes fbp and fbc from the cookies, and prefers the _fbc cookie over an fbclid on the page', () => {
    const cookies = { _fbp: 'fb.1.1.2', _fbc: 'fb.1.1700000000000.FROMCOOKIE' };
    const event = toMetaEvent(
      { ...base, pageUrl: 'https://shop.example.com/?fbclid=FROMURL' },
      { ...visitor, cookies },
    );
    expect(event?.user_data).toMatchObject({ fbp: 'fb.1.1.2', fbc: 'fb.1.1700000000000.FROMCOOKIE' });
  });

  it('builds fbc from an fbclid on the page URL as fb.1.<ms>.<fbclid>', () => {
    const event = toMetaEvent({ ...base, pageUrl: 'https://shop.example.com/?fbclid=IwAR0x' }, visitor);
    expect(event?.user_data.fbc).toBe(`fb.1.${TIME}.IwAR0x`);
  });

  it('hashes normalised em and ph only when given, and passes on values already hashed', () => {
    expect(toMetaEvent(base, visitor)?.user_data).not.toHaveProperty('em');
    const hashed = sha256('x@example.com');
    const event = toMetaEvent(
      { ...base, userData: { email: hashed.toUpperCase(), phone: '0049 151 2345678' } },
      visitor,
    );
    expect(event?.user_data.em).toEqual([hashed]);
    expect(event?.user_data.ph).toEqual([sha256('491512345678')]);
  });

  it('leaves out an IP or user agent the anonymizer dropped', () => {
    expect(toMetaEvent(base, { ...visitor, ip: '', userAgent: '' })?.user_data).toEqual({});
  });

  it('derives the same event_id for the same event when the site sent none', () => {
    const first = toMetaEvent({ ...base, eventId: null }, visitor);
    const again = toMetaEvent({ ...base, eventId: null }, visitor);
    const other = toMetaEvent({ ...base, eventId: null, time: TIME + 1 }, visitor);
    expect(first?.event_id).toMatch(/^tp\.[\w-]{22}$/);
    expect(again?.event_id).toBe(first?.event_id);
    expect(other?.event_id).not.toBe(first?.event_id);
  });
});
