import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const PROXY = '10.0.0.1';
const trustProxyFromEnv = (value: string) => loadConfig({ TRUST_PROXY: value }).trustProxy;
let rotation = 0;
/** A different, made-up X-Forwarded-For on every call, as an attacker would send. */
const spoofed = () => `198.18.${Math.floor(++rotation / 250) % 250}.${rotation % 250}`;

describe('TRUST_PROXY setting', () => {
  it('is off when unset or false', () => {
    expect(trustProxyFromEnv('')).toBe(false);
    expect(trustProxyFromEnv('false')).toBe(false);
  });

  it('accepts proxy addresses, CIDR ranges and the named private ranges', () => {
    expect(trustProxyFromEnv(' 127.0.0.1, 10.0.0.0/8 ,fd00::/8,::1,loopback,uniquelocal')).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      'fd00::/8',
      '::1',
      'loopback',
      'uniquelocal',
    ]);
  });

  it('refuses true, which would believe any client, and says what to set instead', () => {
    for (const value of ['true', 'yes', 'on']) {
      expect(() => trustProxyFromEnv(value)).toThrow(ConfigError);
      expect(() => trustProxyFromEnv(value)).toThrow(/any client.*TRUST_PROXY=127\.0\.0\.1/);
    }
  });

  it('refuses a hop count, which cannot tell a proxy from a direct client', () => {
    expect(() => trustProxyFromEnv('1')).toThrow(/hop count/);
  });

  it('refuses entries that are not addresses or ranges', () => {
    for (const value of ['proxy.internal', '10.0.0.0/33', '10.0.0.1/8/8', '::1/129'])
      expect(() => trustProxyFromEnv(value), value).toThrow(/not IP addresses or CIDR ranges/);
  });
});

describe(`per-IP limits behind TRUST_PROXY=${PROXY}`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', {
      trustProxy: trustProxyFromEnv(PROXY),
      anonymousRateLimitPerMinute: 12,
      publicScansPerHour: 2,
    });
  });
  afterAll(() => t?.close());

  const fromUntrusted = (client: string) => ({ remoteAddress: client, headers: { 'x-forwarded-for': spoofed() } });

  it('a direct client rotating X-Forwarded-For still hits the login throttle', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: 'owner@example.com', password: 'not the password' },
        ...fromUntrusted('203.0.113.1'),
      });
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
  });

  it('a direct client rotating X-Forwarded-For still hits the anonymous rate limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 13; i++)
      statuses.push(
        (await t.app.inject({ method: 'GET', url: '/api/tenants/', ...fromUntrusted('203.0.113.2') })).statusCode,
      );
    expect(statuses).toEqual([...Array(12).fill(401), 429]);
  });

  it('a direct client rotating X-Forwarded-For still hits the public scan limit', async () => {
    const responses = [];
    // A plain-http URL is refused after the scan is counted, so no browser is started.
    for (let i = 0; i < 3; i++)
      responses.push(
        await t.app.inject({
          method: 'POST',
          url: '/api/public/tracking-checker/scan/',
          payload: { url: 'http://example.com/' },
          ...fromUntrusted('203.0.113.3'),
        }),
      );
    expect(responses.map((response) => response.statusCode)).toEqual([400, 400, 429]);
    expect(responses[2].json().error.code).toBe('public_scan_limit');
  });

  it("the trusted proxy's forwarded address is the client: each client behind it has its own budget, and addresses the client itself prepends are ignored", async () => {
    const viaProxy = (chain: string) =>
      t.app.inject({
        method: 'GET',
        url: '/api/tenants/',
        remoteAddress: PROXY,
        headers: { 'x-forwarded-for': chain },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 13; i++) statuses.push((await viaProxy(`${spoofed()}, 203.0.113.4`)).statusCode);
    expect(statuses).toEqual([...Array(12).fill(401), 429]);
    expect((await viaProxy('203.0.113.5')).statusCode).toBe(401);
  });
});
