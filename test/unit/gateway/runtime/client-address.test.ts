import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientAddress, trustedProxies } from '../../../../src/gateway/runtime/visitor.js';

function requestFrom(peer: string, forwardedFor?: string): http.IncomingMessage {
  return {
    socket: { remoteAddress: peer },
    connection: { remoteAddress: peer },
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
  } as unknown as http.IncomingMessage;
}

describe("the visitor's address", () => {
  it('is the connecting peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddress(requestFrom('198.51.100.7', '8.8.8.8'), trustedProxies(false))).toBe('198.51.100.7');
  });

  it('is the address X-Forwarded-For names when the peer is a trusted proxy', () => {
    expect(clientAddress(requestFrom('127.0.0.1', '8.8.8.8'), trustedProxies(['127.0.0.1']))).toBe('8.8.8.8');
    expect(clientAddress(requestFrom('::ffff:127.0.0.1', '8.8.8.8'), trustedProxies(['loopback']))).toBe('8.8.8.8');
  });

  it('is the peer when the peer is not one of the trusted proxies', () => {
    expect(clientAddress(requestFrom('198.51.100.7', '8.8.8.8'), trustedProxies(['127.0.0.1']))).toBe('198.51.100.7');
  });

  it('stops at the first untrusted hop of a forged chain', () => {
    expect(clientAddress(requestFrom('127.0.0.1', '1.1.1.1, 9.9.9.9'), trustedProxies(['127.0.0.1']))).toBe('9.9.9.9');
  });

  it('drops the IPv4-mapped IPv6 prefix', () => {
    expect(clientAddress(requestFrom('::ffff:203.0.113.9'), null)).toBe('203.0.113.9');
  });
});
