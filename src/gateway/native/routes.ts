import net from 'node:net';
import type { OutboundClient } from '../../lib/outbound.js';
import type { ContainerTraffic } from '../../modules/containers/traffic.js';
import { REPLICAS_ORIGIN } from '../relay.js';
import type { NativeRoute } from './plan.js';
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

/** How long a ranking of the containers by their requests is used before it is read again. */
const RANKING_MS = 10 * 60_000;

/**
 * The containers nginx proxies itself, kept between refreshes. The first read, and each after `resync()` (a lost
 * notification, the once-a-minute safety net), reads every container and ranks them by their requests (read again
 * every ten minutes), the busiest first; beyond the limit, the rest stay with Node. After that, a change
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
  /** Requests per container over today and yesterday: the busiest are proxied first, and their pools come first. */
  private requests = new Map<string, number>();
  private rankedAt = Number.NEGATIVE_INFINITY;
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
    if (performance.now() - this.rankedAt > RANKING_MS) {
      this.requests = await traffic.recentRequests();
      this.rankedAt = performance.now();
    }
    const proxiable = [...this.candidates.keys()].filter((containerId) => this.proxiable(containerId));
    this.kept = new Set(this.ranked(proxiable).slice(0, this.limit));
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

  /**
   * The busiest first (requests over today and yesterday), then by id. nginx finds a request's pool by name through
   * the pools in the order the config writes them (~16 ns each), so the busiest containers' pools come first; and
   * between rankings the same containers write the same config.
   */
  private ranked(containerIds: Iterable<string>): string[] {
    const requests = (containerId: string) => this.requests.get(containerId) ?? 0;
    return [...containerIds].sort((a, b) => requests(b) - requests(a) || (a < b ? -1 : a > b ? 1 : 0));
  }

  private async build(): Promise<RoutedOrigin[]> {
    const kept = this.ranked(this.kept).map((containerId) => this.candidates.get(containerId)!);
    const addresses = await this.upstreamAddresses(kept);
    return kept.flatMap((candidate): RoutedOrigin[] => {
      if ('replicas' in candidate) return [replicaRoute(candidate.replicas)];
      const url = httpUrl(candidate.upstream.upstreamUrl);
      const resolved = url && addresses.get(url.hostname);
      return url && resolved?.length ? [upstreamRoute(candidate.upstream, url, resolved)] : [];
    });
  }

  /** The addresses of the upstream hosts of `candidates`, each looked up once and all at the same time. */
  private async upstreamAddresses(candidates: Candidate[]): Promise<Map<string, string[] | null>> {
    const hostnames = new Set<string>();
    for (const candidate of candidates) {
      const hostname = 'upstream' in candidate ? httpUrl(candidate.upstream.upstreamUrl)?.hostname : undefined;
      if (!hostname) continue;
      hostnames.add(hostname);
      if (!this.resolved.has(hostname))
        this.resolved.set(
          hostname,
          this.deps.outbound.resolveGuarded(hostname).catch(() => null),
        );
    }
    const addresses = await Promise.all([...hostnames].map((hostname) => this.resolved.get(hostname)!));
    return new Map([...hostnames].map((hostname, i) => [hostname, addresses[i]]));
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
function replicaRoute(row: ReplicaRow): RoutedOrigin {
  const addresses = row.endpoints.map((endpoint) => endpoint.replace(/^http:\/\//, ''));
  const [first] = addresses;
  return {
    origin: REPLICAS_ORIGIN,
    route: {
      containerId: row.containerId,
      hostnames: row.hostnames,
      upstream: { scheme: 'http', addresses, host: first, serverName: first.replace(/:\d+$/, ''), basePath: '' },
      loaderPath: row.settings.loader_path,
      markBots: row.settings.bot_detection.mode !== 'off',
      replicas: true,
    },
  };
}
