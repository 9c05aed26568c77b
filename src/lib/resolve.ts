import { Resolver } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { type ResolveHost, systemResolveHost } from '../scanner/ssrf.js';

const NO_ADDRESS = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * Host resolution through the configured DNS servers (`ip` or `ip:port`), A and AAAA asked side by side; a name they
 * do not know (NXDOMAIN, no data) is then asked of the system's resolver (getaddrinfo: /etc/hosts, `localhost`), and
 * with no servers configured only the system's is. Every outbound path resolves through this.
 */
export function configuredResolveHost(servers: string[], timeoutMs: number): ResolveHost {
  if (servers.length === 0) return systemResolveHost;
  return async (host) => {
    const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
    resolver.setServers(servers);
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
    const addresses = [v4, v6].flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []));
    if (addresses.length) return addresses;
    const failure = [v4, v6].map((answer) => (answer.status === 'rejected' ? answer.reason : null)).find(Boolean);
    const code = (failure as { code?: string } | null)?.code ?? 'ENOTFOUND';
    if (NO_ADDRESS.has(code)) return systemResolveHost(host);
    throw Object.assign(new Error(`${host} did not resolve through ${servers.join(', ')}: ${code}`), { code });
  };
}

/** A `net` lookup function over `resolveHost`, for connections made without the SSRF guard (the AI endpoint). */
export function lookupThrough(resolveHost: ResolveHost): LookupFunction {
  return (hostname, options, callback) => {
    resolveHost(hostname).then(
      (addresses) => {
        const entries = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
        // Cast: LookupFunction's callback type is the single-address form; with `all` Node expects the array form.
        if (options.all) (callback as unknown as (error: null, all: typeof entries) => void)(null, entries);
        else callback(null, entries[0].address, entries[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 4),
    );
  };
}
