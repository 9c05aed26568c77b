import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseUpstream, upstreamPath, upstreamTarget } from '../../../src/gateway/upstream.js';

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
