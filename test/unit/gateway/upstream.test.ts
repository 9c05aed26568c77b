import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type http from 'node:http';
import { parseUpstream, requestHostname, upstreamPath, upstreamTarget } from '../../../src/gateway/upstream.js';

const TARGET_CHARS = [...'/abcXYZ019-._~!$&\'()*+,;=:@%?#\\ "<>`{}|^[]é\t', '%2e', '%2E', '..', '/.'];

describe('upstreamPath', () => {
  it.each(['https://up.test', 'https://up.test:8443/base/', 'http://127.0.0.1:9/sgtm'])(
    'builds the same path and query as upstreamTarget for any request target (%s)',
    (upstreamUrl) => {
      const upstream = parseUpstream(upstreamUrl)!;
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...TARGET_CHARS), { maxLength: 30 }), (parts) => {
          const requestTarget = `/${parts.join('')}`;
          const expected = upstreamTarget(upstreamUrl, requestTarget);
          expect(upstreamPath(upstream, requestTarget)).toBe(expected && expected.pathname + expected.search);
        }),
        { numRuns: 2000 },
      );
    },
  );

  it('refuses upstreams that are not http(s)', () => {
    expect(parseUpstream('file:///etc/passwd')).toBeNull();
    expect(parseUpstream('not a url')).toBeNull();
  });
});

describe('requestHostname', () => {
  const http1 = (rawHeaders: string[]) => ({ httpVersionMajor: 1, rawHeaders }) as unknown as http.IncomingMessage;

  it.each([
    [['Host', 'Data.Shop.Example:8443'], 'data.shop.example'],
    [['user-agent', 'x', 'HOST', 'data.shop.example.'], 'data.shop.example'],
    [['host', '[::1]:3001'], '[::1]'],
    [['host', '[::1]'], '[::1]'],
    [['host', '127.0.0.1'], '127.0.0.1'],
    [['host', 'first.test', 'host', 'second.test'], 'first.test'],
    [['x-forwarded-host', 'evil.test'], ''],
  ])('reads %j as %s, like the header object would', (rawHeaders, expected) => {
    expect(requestHostname(http1(rawHeaders))).toBe(expected);
  });

  it('takes HTTP/2 requests from the host the TLS listener set from :authority', () => {
    const req = { httpVersionMajor: 2, rawHeaders: [':authority', 'x.test'], headers: { host: 'Shop.Test:443' } };
    expect(requestHostname(req as unknown as http.IncomingMessage)).toBe('shop.test');
  });
});
