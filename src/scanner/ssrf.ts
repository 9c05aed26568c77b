import dns from 'node:dns';
import net from 'node:net';
import { ScanTargetRefusedError } from './errors.js';

/**
 * SSRF guard shared by the HTTP fetch (stage 1), the browser (stage 2) and the Lighthouse run.
 * A host is allowed only when every address it resolves to is a public unicast address.
 */

export type ResolveHost = (host: string) => Promise<string[]>;

export const systemResolveHost: ResolveHost = async (host) => {
  const answers = await dns.promises.lookup(host, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
};

interface Range {
  bytes: number[];
  prefix: number;
  label: string;
}

function v4Bytes(address: string): number[] | null {
  if (!net.isIPv4(address)) return null;
  return address.split('.').map(Number);
}

/** Parses an IPv6 address (with optional zone id and embedded IPv4 tail) into 16 bytes. */
function v6Bytes(input: string): number[] | null {
  let address = input.replace(/%.*$/, '');
  if (!net.isIPv6(address)) return null;
  const lastColon = address.lastIndexOf(':');
  const tail = v4Bytes(address.slice(lastColon + 1));
  if (tail) {
    const hex = (high: number, low: number) => ((high << 8) | low).toString(16);
    address = `${address.slice(0, lastColon + 1)}${hex(tail[0], tail[1])}:${hex(tail[2], tail[3])}`;
  }
  const [left, right] = address.includes('::') ? address.split('::') : [address, null];
  const parse = (part: string) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const leftGroups = parse(left);
  const rightGroups = right === null ? [] : parse(right);
  const zeros = right === null ? 0 : 8 - leftGroups.length - rightGroups.length;
  const groups = [...leftGroups, ...new Array<number>(Math.max(0, zeros)).fill(0), ...rightGroups];
  if (groups.length !== 8 || groups.some((group) => !(group >= 0 && group <= 0xffff))) return null;
  return groups.flatMap((group) => [group >> 8, group & 0xff]);
}

function cidr(text: string, label: string): Range {
  const [address, prefix] = text.split('/');
  const bytes = v4Bytes(address) ?? v6Bytes(address);
  if (!bytes) throw new Error(`bad range ${text}`);
  return { bytes, prefix: Number(prefix), label };
}

function inRange(bytes: number[], range: Range): boolean {
  if (bytes.length !== range.bytes.length) return false;
  let bits = range.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i] & mask) !== (range.bytes[i] & mask)) return false;
  }
  return true;
}

/**
 * Every entry of IANA's IPv4 and IPv6 special-purpose address registries (RFC 6890 and later, as of 2026),
 * plus multicast and the deprecated site-local range. Anycast services listed there (AS112, AMT, PCP, TURN)
 * are refused too: none of them is a tagging server, monitor target or webhook receiver. More specific
 * ranges come first so that the reason names them.
 */
const V4_BLOCKED: Range[] = [
  cidr('0.0.0.0/8', 'unspecified ("this network")'),
  cidr('10.0.0.0/8', 'private (RFC 1918)'),
  cidr('100.64.0.0/10', 'carrier-grade NAT (RFC 6598)'),
  cidr('127.0.0.0/8', 'loopback'),
  cidr('169.254.0.0/16', 'link-local / cloud metadata'),
  cidr('172.16.0.0/12', 'private (RFC 1918)'),
  cidr('192.0.0.0/24', 'IETF protocol assignments'),
  cidr('192.0.2.0/24', 'documentation (TEST-NET-1)'),
  cidr('192.31.196.0/24', 'AS112 anycast'),
  cidr('192.52.193.0/24', 'AMT anycast'),
  cidr('192.88.99.0/24', '6to4 relay anycast'),
  cidr('192.168.0.0/16', 'private (RFC 1918)'),
  cidr('192.175.48.0/24', 'AS112 direct delegation'),
  cidr('198.18.0.0/15', 'benchmarking'),
  cidr('198.51.100.0/24', 'documentation (TEST-NET-2)'),
  cidr('203.0.113.0/24', 'documentation (TEST-NET-3)'),
  cidr('224.0.0.0/4', 'multicast'),
  cidr('240.0.0.0/4', 'reserved / broadcast'),
];

const V6_BLOCKED: Range[] = [
  cidr('::/128', 'unspecified'),
  cidr('::1/128', 'loopback'),
  cidr('::/96', 'IPv4-compatible (deprecated)'),
  cidr('100::/64', 'discard-only'),
  cidr('100:0:0:1::/64', 'dummy prefix'),
  cidr('2001::/32', 'Teredo'),
  cidr('2001:1::/48', 'PCP, TURN and DNS-SD anycast'),
  cidr('2001:2::/48', 'benchmarking'),
  cidr('2001:3::/32', 'AMT anycast'),
  cidr('2001:4:112::/48', 'AS112 anycast'),
  cidr('2001:10::/28', 'ORCHID'),
  cidr('2001:20::/28', 'ORCHIDv2'),
  cidr('2001:30::/28', 'drone remote ID'),
  cidr('2001::/23', 'IETF protocol assignments'),
  cidr('2001:db8::/32', 'documentation'),
  cidr('2620:4f:8000::/48', 'AS112 direct delegation'),
  cidr('3fff::/20', 'documentation'),
  cidr('5f00::/16', 'segment routing (SRv6 SIDs)'),
  cidr('fc00::/7', 'unique local (private)'),
  cidr('fe80::/10', 'link-local'),
  cidr('fec0::/10', 'site-local (deprecated)'),
  cidr('ff00::/8', 'multicast'),
];

/**
 * IPv6 prefixes that embed an IPv4 address, checked against the IPv4 list. IPv4-translated addresses
 * (SIIT, RFC 2765) are never routable on the internet, so they are refused whatever they embed.
 */
const V6_EMBEDDING_V4: Array<{ range: Range; offset: number; alwaysBlocked?: boolean }> = [
  { range: cidr('::ffff:0:0/96', 'IPv4-mapped'), offset: 12 },
  { range: cidr('::ffff:0:0:0/96', 'IPv4-translated'), offset: 12, alwaysBlocked: true },
  { range: cidr('64:ff9b::/96', 'NAT64'), offset: 12 },
  { range: cidr('64:ff9b:1::/48', 'local NAT64'), offset: 12, alwaysBlocked: true },
  { range: cidr('2002::/16', '6to4'), offset: 2 },
];

/** Why an IP address is not a public unicast address, or null when it is. */
export function blockedAddressReason(address: string): string | null {
  const v4 = v4Bytes(address);
  if (v4) return V4_BLOCKED.find((range) => inRange(v4, range))?.label ?? null;
  const v6 = v6Bytes(address);
  if (!v6) return 'not an IP address';
  for (const { range, offset, alwaysBlocked } of V6_EMBEDDING_V4) {
    if (inRange(v6, range)) {
      const embedded = v6.slice(offset, offset + 4).join('.');
      const reason = blockedAddressReason(embedded);
      if (reason) return `${range.label} ${embedded}: ${reason}`;
      return alwaysBlocked ? range.label : null;
    }
  }
  return V6_BLOCKED.find((range) => inRange(v6, range))?.label ?? null;
}

export interface GuardOptions {
  allowPrivateNetworks: boolean;
  resolveHost?: ResolveHost;
}

export interface ResolvedHost {
  host: string;
  addresses: string[];
}

/** Strips IPv6 brackets from a URL hostname. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * Checks URLs and hosts for one scan. Results are cached for the scan so that the fetch, the browser and the
 * connections all use the same resolution (the fetch connects to the checked addresses: no second lookup).
 */
export class SsrfGuard {
  private readonly cache = new Map<string, Promise<ResolvedHost>>();
  private readonly resolveHost: ResolveHost;

  constructor(private readonly options: GuardOptions) {
    this.resolveHost = options.resolveHost ?? systemResolveHost;
  }

  /** Validates scheme and credentials of a URL string and returns it parsed. */
  static parseTarget(input: string): URL {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw new ScanTargetRefusedError('invalid_url', `Not an absolute URL: ${JSON.stringify(input).slice(0, 200)}`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new ScanTargetRefusedError(
        'unsupported_scheme',
        `Only http and https URLs can be scanned, not ${url.protocol}`,
      );
    }
    if (url.username || url.password)
      throw new ScanTargetRefusedError('credentials_in_url', 'URLs with credentials are not scanned.');
    if (!url.hostname) throw new ScanTargetRefusedError('invalid_url', 'The URL has no host.');
    return url;
  }

  /** Resolves a URL's host and checks every address; throws ScanTargetRefusedError when not allowed. */
  async checkUrl(url: URL): Promise<ResolvedHost> {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new ScanTargetRefusedError(
        'unsupported_scheme',
        `Only http and https requests are allowed, not ${url.protocol}`,
      );
    }
    return this.checkHost(bareHost(url.hostname));
  }

  checkHost(host: string): Promise<ResolvedHost> {
    const key = host.toLowerCase().replace(/\.$/, '');
    let pending = this.cache.get(key);
    if (!pending) {
      pending = this.resolveAndCheck(key);
      this.cache.set(key, pending);
    }
    return pending;
  }

  private async resolveAndCheck(host: string): Promise<ResolvedHost> {
    const addresses = net.isIP(host) ? [host] : await this.resolveHost(host);
    if (addresses.length === 0) throw Object.assign(new Error(`${host} did not resolve`), { code: 'ENOTFOUND' });
    if (!this.options.allowPrivateNetworks) {
      for (const address of addresses) {
        const reason = blockedAddressReason(address);
        if (reason) {
          throw new ScanTargetRefusedError(
            'private_address',
            net.isIP(host)
              ? `Refused ${host}: ${reason} address.`
              : `Refused ${host}: it resolves to ${address}, a ${reason} address.`,
            host,
            address,
          );
        }
      }
    }
    return { host, addresses };
  }

  /** The checked addresses of a host already seen by checkHost, for pinning connections. */
  pinned(host: string): Promise<ResolvedHost> | undefined {
    return this.cache.get(host.toLowerCase().replace(/\.$/, ''));
  }
}
