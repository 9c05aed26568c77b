import { Resolver } from 'node:dns/promises';
import { type ResolveHost, systemResolveHost } from '../scanner/ssrf.js';

const NO_ADDRESS = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * Host resolution through the configured DNS servers (`ip` or `ip:port`), A and AAAA asked side by side; with none
 * configured, the system's resolver (getaddrinfo, /etc/hosts included). Every outbound path resolves through this.
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
    throw Object.assign(new Error(`${host} did not resolve through ${servers.join(', ')}: ${code}`), {
      code: NO_ADDRESS.has(code) ? 'ENOTFOUND' : code,
    });
  };
}
