import net from 'node:net';
import type { OutboundClient } from '../../lib/outbound.js';
import type { ContainerTraffic } from '../../modules/containers/traffic.js';
import { REPLICAS_ORIGIN } from '../relay.js';
import type { NativeRoute } from './config.js';
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

/**
 * The containers nginx proxies itself. Left to Node: containers with geo headers (a lookup in the geo
 * database per request), and upstreams that do not resolve or that the SSRF guard refuses (Node answers those with
 * its own error).
 */
export async function nativeRoutes(deps: RouteSources, limit = Number.POSITIVE_INFINITY): Promise<RoutedOrigin[]> {
  const [upstreams, replicas] = await Promise.all([deps.traffic.upstreamRoutes(), deps.traffic.replicaRoutes()]);
  const kept = await busiest(
    deps.traffic,
    [...upstreams, ...replicas].filter((row) => !staysWithNode(row.settings)).map((row) => row.containerId),
    limit,
  );
  const rows = upstreams.filter((row) => kept.has(row.containerId));
  const resolved = new Map<string, Promise<string[] | null>>();
  const candidates: Array<{ row: (typeof rows)[number]; url: URL }> = [];
  // Every distinct upstream host is looked up at once, not one after another: a refresh of a large fleet waits
  // for its slowest lookup, not for the sum of them.
  for (const row of rows) {
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
    routes.push({
      origin: url.origin,
      route: {
        containerId: row.containerId,
        hostnames: row.hostnames,
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
  return [...routes, ...replicaRoutes(replicas.filter((row) => kept.has(row.containerId)))];
}

/**
 * The containers nginx proxies itself, of those it could: all of them up to `limit`, else the `limit` with the most
 * requests over today and yesterday (ties: by id, so the choice does not flap between refreshes).
 */
async function busiest(traffic: ContainerTraffic, containerIds: string[], limit: number): Promise<Set<string>> {
  if (containerIds.length <= limit) return new Set(containerIds);
  const requests = await traffic.recentRequests();
  const ranked = [...containerIds].sort(
    (a, b) => (requests.get(b) ?? 0) - (requests.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0),
  );
  return new Set(ranked.slice(0, limit));
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
function replicaRoutes(rows: Awaited<ReturnType<ContainerTraffic['replicaRoutes']>>): RoutedOrigin[] {
  const routes: RoutedOrigin[] = [];
  for (const row of rows) {
    const addresses = row.endpoints.map((endpoint) => endpoint.replace(/^http:\/\//, ''));
    const [first] = addresses;
    routes.push({
      origin: REPLICAS_ORIGIN,
      route: {
        containerId: row.containerId,
        hostnames: row.hostnames,
        upstream: { scheme: 'http', addresses, host: first, serverName: first.replace(/:\d+$/, ''), basePath: '' },
        loaderPath: row.settings.loader_path,
        markBots: row.settings.bot_detection.mode !== 'off',
        replicas: true,
      },
    });
  }
  return routes;
}
