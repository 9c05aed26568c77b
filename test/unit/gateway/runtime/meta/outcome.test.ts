import { describe, expect, it } from 'vitest';
import type { MetaServerEvent } from '../../../../../src/gateway/runtime/meta/events.js';
import { deliveryOutcome, metaOutgoing } from '../../../../../src/gateway/runtime/meta/outcome.js';

const events: MetaServerEvent[] = [
  { event_name: 'Purchase', event_time: 1, event_id: 'e1', action_source: 'website', user_data: {} },
  { event_name: 'PageView', event_time: 1, event_id: 'e2', action_source: 'website', user_data: {} },
];
const error = { message: 'x', type: 'OAuthException', code: 2, error_subcode: null, fbtrace_id: 'T' };

describe('deliveryOutcome', () => {
  it('records a delivered request for each of its events, without an error', () => {
    expect(
      deliveryOutcome(
        'mpx_1',
        events,
        { verdict: 'delivered', httpStatus: 200, eventsReceived: 2, fbtraceId: 'T' },
        false,
      ),
    ).toEqual({
      metaPixelId: 'mpx_1',
      events: [
        { eventId: 'e1', eventName: 'Purchase' },
        { eventId: 'e2', eventName: 'PageView' },
      ],
      status: 'delivered',
      httpStatus: 200,
      error: null,
    });
  });

  it('records retry as retrying, or failed on the last attempt; rejected as failed, with the error', () => {
    const retry = { verdict: 'retry', httpStatus: 500, error } as const;
    expect(deliveryOutcome('mpx_1', events, retry, false)).toMatchObject({ status: 'retrying', error });
    expect(deliveryOutcome('mpx_1', events, retry, true)).toMatchObject({ status: 'failed', httpStatus: 500, error });
    expect(
      deliveryOutcome('mpx_1', events, { verdict: 'rejected', httpStatus: 400, error: { ...error, code: 100 } }, false),
    ).toMatchObject({ status: 'failed', httpStatus: 400, error: { code: 100 } });
  });
});

describe('metaOutgoing', () => {
  it('names every hashed customer field without its digest, and masks the token', () => {
    const digest = 'a'.repeat(64);
    const described = metaOutgoing(
      { pixelId: '1234567890123456', accessToken: 'EAAtoken1234567890abcdef', testEventCode: null },
      {
        event_name: 'Purchase',
        event_time: 1_795_450_000,
        event_id: 'order-1',
        action_source: 'website',
        user_data: {
          em: [digest],
          ph: [digest],
          fn: [digest],
          ln: [digest],
          ct: [digest],
          st: [digest],
          zp: [digest],
          country: [digest],
          external_id: [digest],
          client_ip_address: '203.0.113.0',
        },
      } as MetaServerEvent,
    );
    const serialized = JSON.stringify(described);
    expect(serialized).not.toContain(digest);
    expect(serialized).not.toContain('EAAtoken1234567890abcdef');
    expect(described.request.user_data).toMatchObject({
      em: 'sha256 (hashed)',
      external_id: 'sha256 (hashed)',
      zp: 'sha256 (hashed)',
    });
    expect(described.request.user_data).toMatchObject({ client_ip_address: '203.0.113.0' });
  });
});
