import net from 'node:net';
import type { OutboundClient } from '../../lib/outbound.js';
import type { ContainerTraffic } from '../../modules/containers/traffic.js';
import { REPLICAS_ORIGIN } from '../relay.js';
import { type CertificateFiles, type NativeHostname, type NativeRoute, writableRoute } from './config.js';
import { staysWithNode } from './node-only.js';

/** A route nginx proxies itself, with the origin its requests are metered under. */
export interface RoutedOrigin {
  route: NativeRoute;
  origin: string;
}

/** Where the routes come from: the containers' traffic settings, and the SSRF-guarded resolver for upstream names. */
export interface RouteSources {
  traffic: ContainerTraffic;
  outbound: OutboundClient;
}

/** Hostnames with a certificate that no native route serves: nginx ends TLS with their own and hands them to Node. */
export function nodeHostnames(
  certificates: Map<string, CertificateFiles>,
  routes: Array<{ route: NativeRoute }>,
): NativeHostname[] {
  const native = new Set(
    routes.filter(({ route }) => writableRoute(route)).flatMap(({ route }) => route.hostnames.map(({ name }) => name)),
  );
  return [...certificates].filter(([name]) => !native.has(name)).map(([name, certificate]) => ({ name, certificate }));
}

/**
 * The containers nginx proxies itself. Left to Node: containers with geo headers (a lookup in the geo
 * database per request), and upstreams that do not resolve or that the SSRF guard refuses (Node answers those with
 * its own error). Custom domains get their certificate files; the rest use the default certificate.
 */
export async function nativeRoutes(
  deps: RouteSources,
  certificates: Map<string, CertificateFiles>,
): Promise<RoutedOrigin[]> {
  const rows = await deps.traffic.upstreamRoutes();
  const resolved = new Map<string, Promise<string[] | null>>();
  const candidates: Array<{ row: (typeof rows)[number]; url: URL }> = [];
  // Every distinct upstream host is looked up at once, not one after another: a refresh of a large fleet waits
  // for its slowest lookup, not for the sum of them.
  for (const row of rows) {
    if (staysWithNode(row.settings)) continue;
    const url = httpUrl(row.upstreamUrl);
    if (!url) continue;
    candidates.push({ row, url });
    if (!resolved.has(url.hostname))
      resolved.set(
        url.hostname,
        deps.outbound.resolveGuarded(url.hostname).catch(() => null),
      );
  }
  const routes: RoutedOrigin[] = [];
  for (const { row, url } of candidates) {
    const host = url.hostname;
    const addresses = await resolved.get(host)!;
    if (!addresses?.length) continue;
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const hostnames = row.hostnames.map((name) => ({ name, certificate: certificates.get(name) ?? null }));
    routes.push({
      origin: url.origin,
      route: {
        containerId: row.containerId,
        hostnames,
        upstream: {
          scheme: url.protocol === 'https:' ? 'https' : 'http',
          addresses: addresses.map((address) => (net.isIPv6(address) ? `[${address}]:${port}` : `${address}:${port}`)),
          host: url.host,
          serverName: host,
          basePath: url.pathname.replace(/\/+$/, ''),
        },
        loaderPath: row.settings.loader_path,
        markBots: row.settings.bot_detection.mode !== 'off',
        replicas: false,
      },
    });
  }
  return [...routes, ...(await replicaRoutes(deps, certificates))];
}

/** The upstream URL when it is an http(s) URL; null otherwise. */
function httpUrl(value: string): URL | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/**
 * `sgtm` containers whose ready tagging replicas are on loopback (the process driver): nginx proxies to them
 * itself, passing over one that refuses, as the Node gateway does. Replicas behind a Service name (kubernetes)
 * and containers with geo headers stay with Node.
 */
async function replicaRoutes(deps: RouteSources, certificates: Map<string, CertificateFiles>): Promise<RoutedOrigin[]> {
  const routes: RoutedOrigin[] = [];
  for (const row of await deps.traffic.replicaRoutes()) {
    if (staysWithNode(row.settings)) continue;
    const addresses = row.endpoints.map((endpoint) => endpoint.replace(/^http:\/\//, ''));
    const [first] = addresses;
    routes.push({
      origin: REPLICAS_ORIGIN,
      route: {
        containerId: row.containerId,
        hostnames: row.hostnames.map((name) => ({ name, certificate: certificates.get(name) ?? null })),
        upstream: { scheme: 'http', addresses, host: first, serverName: first.replace(/:\d+$/, ''), basePath: '' },
        loaderPath: row.settings.loader_path,
        markBots: row.settings.bot_detection.mode !== 'off',
        replicas: true,
      },
    });
  }
  return routes;
}
