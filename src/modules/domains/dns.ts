import { Resolver } from 'node:dns/promises';
import { domainToASCII } from 'node:url';
import { DomainErrors } from './errors.js';
import type { FailureReason } from './schemas.js';

/** Characters of a URL around a host (scheme, user info, port, path, query, fragment); domainToASCII would cut at some. */
const URL_SYNTAX = /[/\\?#@:]/;

/** Lower case, IDN → punycode, no trailing dot; refuses anything that is not a bare, valid DNS hostname. */
export function normaliseHostname(input: string): string {
  const trimmed = input.trim();
  if (URL_SYNTAX.test(trimmed)) {
    const why =
      'hostname must be a bare hostname such as data.shop.example, without scheme, user info, port, path or query.';
    throw DomainErrors.invalidHostname(why);
  }
  const ascii = domainToASCII(trimmed.replace(/\.$/, '').toLowerCase());
  const labels = ascii.split('.');
  const valid =
    ascii.length > 0 &&
    ascii.length <= 253 &&
    labels.length >= 2 &&
    labels.every((label) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(label)) &&
    !/^\d+$/.test(labels[labels.length - 1]);
  if (!valid)
    throw DomainErrors.invalidHostname(`'${input.slice(0, 100)}' is not a valid hostname (e.g. data.shop.example).`);
  return ascii;
}

export const txtName = (hostname: string) => `_tagport-verify.${hostname}`;
export const txtValue = (token: string) => `tagport-verify=${token}`;

export type Verification = { ok: true } | { ok: false; reason: FailureReason; detail: string };

const codeOf = (error: unknown) => (error as { code?: string }).code ?? 'EUNKNOWN';

function failure(error: unknown, what: string): Verification {
  const code = codeOf(error);
  if (code === 'ENOTFOUND') return { ok: false, reason: 'nxdomain', detail: `${what} does not exist (NXDOMAIN).` };
  if (code === 'ETIMEOUT') return { ok: false, reason: 'timeout', detail: `DNS did not answer for ${what} in time.` };
  return { ok: false, reason: 'dns_error', detail: `DNS lookup of ${what} failed: ${code}.` };
}

/** Real DNS lookups through node:dns with the configured resolvers. */
export class DomainVerifier {
  private readonly servers: string[];
  private readonly timeoutMs: number;
  private readonly gatewayIps: string[];

  constructor({ servers, timeoutMs, gatewayIps }: { servers: string[]; timeoutMs: number; gatewayIps: string[] }) {
    this.servers = servers;
    this.timeoutMs = timeoutMs;
    this.gatewayIps = gatewayIps;
  }

  private resolver(): Resolver {
    const resolver = new Resolver({ timeout: this.timeoutMs, tries: 1 });
    if (this.servers.length) resolver.setServers(this.servers);
    return resolver;
  }

  async verify(hostname: string, expectedTarget: string, token: string): Promise<Verification> {
    const resolver = this.resolver();
    let routed = false;
    try {
      const names = await resolver.resolveCname(hostname);
      routed = names.some((name) => name.toLowerCase().replace(/\.$/, '') === expectedTarget);
      if (!routed)
        return {
          ok: false,
          reason: 'wrong_target',
          detail: `${hostname} is a CNAME to ${names.join(', ')}, not ${expectedTarget}.`,
        };
    } catch (error) {
      if (codeOf(error) !== 'ENODATA') return failure(error, hostname);
      try {
        const addresses = await resolver.resolve4(hostname);
        routed = addresses.length > 0 && addresses.every((address) => this.gatewayIps.includes(address));
        if (!routed)
          return {
            ok: false,
            reason: 'wrong_target',
            detail: `${hostname} points to ${addresses.join(', ')}; use a CNAME to ${expectedTarget}${this.gatewayIps.length ? ` or A records ${this.gatewayIps.join(', ')}` : ''}.`,
          };
      } catch (inner) {
        if (codeOf(inner) === 'ENODATA')
          return {
            ok: false,
            reason: 'wrong_target',
            detail: `${hostname} has no CNAME or A record; add a CNAME to ${expectedTarget}.`,
          };
        return failure(inner, hostname);
      }
    }
    try {
      const records = (await resolver.resolveTxt(txtName(hostname))).map((chunks) => chunks.join(''));
      if (records.includes(txtValue(token))) return { ok: true };
      return {
        ok: false,
        reason: 'missing_txt',
        detail: `${txtName(hostname)} has no TXT record "${txtValue(token)}".`,
      };
    } catch (error) {
      if (codeOf(error) === 'ENODATA' || codeOf(error) === 'ENOTFOUND')
        return {
          ok: false,
          reason: 'missing_txt',
          detail: `Add the TXT record ${txtName(hostname)} = "${txtValue(token)}".`,
        };
      return failure(error, txtName(hostname));
    }
  }
}
