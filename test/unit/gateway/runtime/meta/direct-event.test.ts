import { describe, expect, it } from 'vitest';
import { parseDirectEvent } from '../../../../../src/gateway/runtime/meta/direct-event.js';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

describe('parseDirectEvent', () => {
  it('turns a direct event body into a RuntimeEvent', () => {
    const parsed = parseDirectEvent(
      {
        event_name: 'purchase',
        event_id: 'order-1001',
        event_time: NOW / 1000 - 60,
        event_source_url: 'https://shop.example.com/thanks',
        value: 49.9,
        currency: 'eur',
        user_data: { em: 'jane@example.com', ph: '+49 151 2345678' },
      },
      NOW,
    );
    expect(parsed).toEqual({
      ok: true,
      event: {
        name: 'purchase',
        measurementId: null,
        clientId: null,
        eventId: 'order-1001',
        time: NOW - 60_000,
        pageUrl: 'https://shop.example.com/thanks',
        referrer: null,
        pageTitle: null,
        value: 49.9,
        currency: 'EUR',
        params: {},
        items: [],
        userData: { email: 'jane@example.com', phone: '+49 151 2345678' },
      },
    });
  });

  it('uses the time of receipt when event_time is absent', () => {
    const parsed = parseDirectEvent({ event_name: 'Lead', event_id: 'l1' }, NOW);
    expect(parsed.ok && parsed.event.time).toBe(NOW);
  });

  it.each([
    [{ event_id: 'x' }, /event_name/],
    [{ event_name: 'Lead' }, /event_id/],
    [{ event_name: 'Lead', event_id: 'x', extra: 1 }, /additional properties/],
    [{ event_name: 'Lead', event_id: 'x', event_source_url: 'not a url' }, /event_source_url/],
    [{ event_name: 'Lead', event_id: 'x', value: '12' }, /value/],
    [{ event_name: 'Lead', event_id: 'x', currency: 'EURO', value: 1 }, /currency/],
    [{ event_name: 'Lead', event_id: 'x', user_data: { fn: 'Jane' } }, /user_data/],
    [{ event_name: '1 bad', event_id: 'x' }, /event_name/],
  ])('refuses %j, naming the field', (body, message) => {
    const parsed = parseDirectEvent(body, NOW);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? [] : parsed.errors.join('; ')).toMatch(message);
  });

  it('refuses events more than seven days old or in the future, and value without currency', () => {
    const old = parseDirectEvent({ event_name: 'Lead', event_id: 'x', event_time: NOW / 1000 - 8 * 86_400 }, NOW);
    expect(old).toEqual({ ok: false, errors: ['event_time: more than seven days ago; Meta refuses it'] });
    const future = parseDirectEvent({ event_name: 'Lead', event_id: 'x', event_time: NOW / 1000 + 3600 }, NOW);
    expect(future).toEqual({ ok: false, errors: ['event_time: in the future'] });
    const half = parseDirectEvent({ event_name: 'purchase', event_id: 'x', value: 3 }, NOW);
    expect(half).toEqual({ ok: false, errors: ['value and currency: send both or neither'] });
  });

  it('refuses what is not an object', () => {
    expect(parseDirectEvent(null, NOW).ok).toBe(false);
    expect(parseDirectEvent('purchase', NOW).ok).toBe(false);
  });
});
