import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { requestHost, validHostname } from '../../../src/gateway/host.js';

const http1 = (rawHeaders: string[], url = '/g/collect') =>
  ({ httpVersionMajor: 1, rawHeaders, url }) as unknown as http.IncomingMessage;

describe('requestHost', () => {
  it.each([
    [['Host', 'Data.Shop.Example:8443'], 'data.shop.example'],
    [['user-agent', 'x', 'HOST', 'data.shop.example.'], 'data.shop.example'],
    [['host', '[::1]:3001'], '[::1]'],
    [['host', '[::1]'], '[::1]'],
    [['host', '127.0.0.1'], '127.0.0.1'],
    [['x-forwarded-host', 'evil.test'], ''],
  ])('routes %j by %s', (rawHeaders, hostname) => {
    expect(requestHost(http1(rawHeaders))).toEqual({ hostname });
  });

  it.each([
    [['host', 'first.test', 'host', 'second.test']],
    [['host', 'same.test', 'Host', 'same.test']],
    [['host', 'x@evil.test']],
    [['host', 'shop.test:abc']],
    [['host', 'shop.test:70000']],
    [['host', '[not-ipv6]']],
    [['host', 'shop.test/path']],
    [['host', '']],
  ])('refuses %j', (rawHeaders) => {
    expect(requestHost(http1(rawHeaders)).problem).toEqual(expect.any(String));
  });

  it('serves an absolute-form target naming the Host as its path, and refuses one naming another host', () => {
    const same = http1(['host', 'shop.test'], 'http://SHOP.test:80/g/collect?v=2');
    expect(requestHost(same)).toEqual({ hostname: 'shop.test' });
    expect(same.url).toBe('/g/collect?v=2');
    expect(requestHost(http1(['host', 'shop.test'], 'http://other.test/')).problem).toMatch(/another host/);
    expect(requestHost(http1(['host', 'shop.test'], 'http://x@shop.test/')).problem).toEqual(expect.any(String));
  });

  it('takes HTTP/2 requests from the host the TLS listener set from :authority', () => {
    const req = {
      httpVersionMajor: 2,
      rawHeaders: [':authority', 'x.test'],
      headers: { host: 'Shop.Test:443' },
      url: '/',
    };
    expect(requestHost(req as unknown as http.IncomingMessage)).toEqual({ hostname: 'shop.test' });
  });
});

describe('validHostname', () => {
  it('lower-cases and drops the port and a trailing dot', () => {
    expect(validHostname('A-b_c.Example.:443')).toBe('a-b_c.example');
  });
});
