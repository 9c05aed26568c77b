import { afterEach, describe, expect, it, vi } from 'vitest';
import { signPayload } from '../../../../src/modules/webhooks/service.js';

const secret = 'whsec_test_secret';
const body = '{"type":"monitor.down","id":"evt_1"}';

describe('signPayload', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes t=<timestamp>,v1=<hex HMAC-SHA256 of "<timestamp>.<body>"> for a fixed timestamp', () => {
    // Expected value from `printf '1700000000.<body>' | openssl dgst -sha256 -hmac whsec_test_secret`.
    expect(signPayload(secret, body, 1_700_000_000)).toBe(
      't=1700000000,v1=f04228713375ff31eded07fcf041d181b00b067166cf7deecb9084c0f21fde76',
    );
  });

  it('signs with the current time in whole seconds by default', () => {
    vi.useFakeTimers({ now: 1_700_000_000_999 });
    expect(signPayload(secret, body)).toBe(signPayload(secret, body, 1_700_000_000));
  });

  it('changes with the body, the secret and the timestamp', () => {
    const signature = signPayload(secret, body, 1_700_000_000);
    expect(signPayload(secret, `${body} `, 1_700_000_000)).not.toBe(signature);
    expect(signPayload(`${secret}x`, body, 1_700_000_000)).not.toBe(signature);
    expect(signPayload(secret, body, 1_700_000_001).split(',')[1]).not.toBe(signature.split(',')[1]);
  });
});
