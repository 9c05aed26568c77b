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

type UpstreamRow = Awaited<ReturnType<ContainerTraffic['upstreamRoutes']>>[number];
type ReplicaRow = Awaited<ReturnType<ContainerTraffic['replicaRoutes']>>[number];
type Candidate = { upstream: UpstreamRow } | { replicas: ReplicaRow };

/**
 * The containers nginx proxies itself, kept between refreshes. The first read, and each after `resync()` (a lost
 * notification, the once-a-minute safety net), reads every container and chooses the busiest; after that, a change
 * re-reads only the containers it names, so a change to one container of 10,000 costs one container's read, not
 * the fleet's (about 0.3 s at 10,000). Left to Node: containers with power-ups that need it, upstreams that do not
 * resolve or that the SSRF guard refuses (Node answers those with its own error).
 */
export class NativeRouteTable {
  private candidates = new Map<string, Candidate>();
  private kept = new Set<string>();
  /** Addresses of upstream hosts, looked up at once: a refresh of a large fleet waits for its slowest lookup. */
  private resolved = new Map<string, Promise<string[] | null>>();
  private full = true;
  private changedContainers = new Set<string>();
  private changedDomains = new Set<string>();

  constructor(
    private readonly deps: RouteSources,
    private readonly limit = Number.POSITIVE_INFINITY,
  ) {}

  /** Everything is read again on the next `routes()`. */
  resync(): void {
    this.full = true;
  }

  containerChanged(containerId: string): void {
    this.changedContainers.add(containerId);
  }

  /** A custom domain changed: the container it belonged to and the one it belongs to now are read again. */
  domainChanged(hostname: string): void {
    this.changedDomains.add(hostname);
  }

  /** The routes, brought up to date with every change noted before the call (one noted meanwhile: the next call). */
  async routes(): Promise<RoutedOrigin[]> {
    const containerIds = new Set(this.changedContainers);
    const hostnames = [...this.changedDomains];
    this.changedContainers.clear();
    this.changedDomains.clear();
    const full = this.full;
    this.full = false;
    try {
      if (full) await this.readAll();
      else if (containerIds.size > 0 || hostnames.length > 0) await this.readSome(containerIds, hostnames);
    } catch (error) {
      this.full = true; // the changes taken above are not lost: everything is read on the next call
      throw error;
    }
    return this.build();
  }

  private async readAll(): Promise<void> {
    const { traffic } = this.deps;
    const [upstreams, replicas] = await Promise.all([traffic.upstreamRoutes(), traffic.replicaRoutes()]);
    this.candidates = new Map();
    for (const row of upstreams) this.candidates.set(row.containerId, { upstream: row });
    for (const row of replicas) this.candidates.set(row.containerId, { replicas: row });
    const proxiable = [...this.candidates.keys()].filter((containerId) => this.proxiable(containerId));
    this.kept = await busiest(traffic, proxiable, this.limit);
    this.resolved.clear();
  }

  private async readSome(containerIds: Set<string>, hostnames: string[]): Promise<void> {
    const { traffic } = this.deps;
    if (hostnames.length > 0) {
      for (const [containerId, candidate] of this.candidates)
        if (hostnames.some((hostname) => rowOf(candidate).hostnames.includes(hostname))) containerIds.add(containerId);
      for (const containerId of await traffic.containersOfDomains(hostnames)) containerIds.add(containerId);
    }
    const ids = [...containerIds];
    const [upstreams, replicas] = await Promise.all([traffic.upstreamRoutes(ids), traffic.replicaRoutes(ids)]);
    for (const containerId of ids) this.candidates.delete(containerId);
    for (const row of upstreams) {
      this.candidates.set(row.containerId, { upstream: row });
      const host = httpUrl(row.upstreamUrl)?.hostname;
      if (host) this.resolved.delete(host); // a changed upstream is looked up again
    }
    for (const row of replicas) this.candidates.set(row.containerId, { replicas: row });
    // A container that can no longer be proxied leaves; one that now can joins while there is room (else at the
    // next full read, which ranks them all).
    for (const containerId of ids) {
      if (!this.proxiable(containerId)) this.kept.delete(containerId);
      else if (this.kept.size < this.limit) this.kept.add(containerId);
    }
  }

  /** Whether nginx could proxy the container itself: it is running, and no power-up of it needs Node. */
  private proxiable(containerId: string): boolean {
    const candidate = this.candidates.get(containerId);
    return candidate !== undefined && !staysWithNode(rowOf(candidate).settings);
  }

  /** Sorted by container id, so that the same containers always write the same config. */
  private async build(): Promise<RoutedOrigin[]> {
    const kept = [...this.kept].sort().map((containerId) => this.candidates.get(containerId)!);
    const upstreams = kept.flatMap((candidate) => ('upstream' in candidate ? [candidate.upstream] : []));
    const replicas = kept.flatMap((candidate) => ('replicas' in candidate ? [candidate.replicas] : []));
    return [...(await this.upstreamRoutes(upstreams)), ...replicaRoutes(replicas)];
  }

  private async upstreamRoutes(rows: UpstreamRow[]): Promise<RoutedOrigin[]> {
    const candidates: Array<{ row: UpstreamRow; url: URL }> = [];
    for (const row of rows) {
      const url = httpUrl(row.upstreamUrl);
      if (!url) continue;
      candidates.push({ row, url });
      if (!this.resolved.has(url.hostname))
        this.resolved.set(
          url.hostname,
          this.deps.outbound.resolveGuarded(url.hostname).catch(() => null),
        );
    }
    const routes: RoutedOrigin[] = [];
    for (const { row, url } of candidates) {
      const addresses = await this.resolved.get(url.hostname)!;
      if (addresses?.length) routes.push(upstreamRoute(row, url, addresses));
    }
    return routes;
  }
}

function rowOf(candidate: Candidate): UpstreamRow | ReplicaRow {
  return 'upstream' in candidate ? candidate.upstream : candidate.replicas;
}

function upstreamRoute(row: UpstreamRow, url: URL, addresses: string[]): RoutedOrigin {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return {
    origin: url.origin,
    route: {
      containerId: row.containerId,
      hostnames: row.hostnames,
      upstream: {
        scheme: url.protocol === 'https:' ? 'https' : 'http',
        addresses: addresses.map((address) => (net.isIPv6(address) ? `[${address}]:${port}` : `${address}:${port}`)),
        host: url.host,
        serverName: url.hostname,
        basePath: url.pathname.replace(/\/+$/, ''),
      },
      loaderPath: row.settings.loader_path,
      markBots: row.settings.bot_detection.mode !== 'off',
      replicas: false,
    },
  };
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
function replicaRoutes(rows: ReplicaRow[]): RoutedOrigin[] {
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
