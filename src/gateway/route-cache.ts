import type { Invalidation } from '../db/invalidation.js';
import type { GatewayRoute } from '../modules/containers/traffic.js';
import { parseUpstream, type Upstream } from './upstream.js';

/**
 * A safety net only: every change that moves a hostname is published and drops its entries at once, and a lost
 * notification drops everything. Each gateway reads each hostname it serves once per TTL: at 200,000 hostnames,
 * 670 lookups a second per gateway at five minutes (3,300 at one).
 */
const ROUTE_TTL_MS = 5 * 60_000;
/**
 * Hostnames no container serves are cached too, so random Host headers cost one lookup each per TTL, but only up
 * to this many: past it, those alone are dropped. Hostnames that reach a container are bounded by the fleet.
 */
const MAX_UNKNOWN_HOSTNAMES = 10_000;

export interface CachedRoute {
  route: GatewayRoute | null;
  /** The route's upstream URL, parsed once. */
  upstream: Upstream | null;
  at: number;
}

/**
 * The gateway's routes by hostname. A change drops what it touched, not the whole table: at thousands of hostnames
 * under load, clearing everything on each change would send every hostname back to the database at once. A lookup
 * already under way for a hostname is shared by the requests that arrive meanwhile, and its answer is not kept when a
 * change came in while it ran (it may have read the row before the change).
 */
export class RouteCache {
  private readonly routes = new Map<string, CachedRoute>();
  private readonly loading = new Map<string, Promise<CachedRoute>>();
  private unknown = 0;
  private generation = 0;

  constructor(private readonly lookup: (hostname: string) => Promise<GatewayRoute | null>) {}

  get size(): number {
    return this.routes.size;
  }

  /** The hostname's route: from the cache when fresh, else looked up (once, however many requests ask). */
  get(hostname: string, now: number): CachedRoute | Promise<CachedRoute> {
    const cached = this.routes.get(hostname);
    if (cached && now - cached.at < ROUTE_TTL_MS) return cached;
    return this.loading.get(hostname) ?? this.load(hostname);
  }

  /** Drops the entries a change can have moved: a container's hostnames, a domain's or certificate's hostname. */
  invalidate({ kind, id }: Invalidation): void {
    if (kind === 'all') {
      this.generation++;
      this.routes.clear();
      this.unknown = 0;
      return;
    }
    if (kind === 'container') this.dropWhere((entry) => entry.route?.containerId === id);
    else if (kind === 'domain') this.drop(id);
    else return;
    // A new container or domain makes a hostname that was no one's someone's.
    this.dropWhere((entry) => entry.route === null);
  }

  private async load(hostname: string): Promise<CachedRoute> {
    const generation = this.generation;
    const loading = this.lookup(hostname)
      .then((route) => {
        const entry = {
          route,
          upstream: route?.upstreamUrl ? parseUpstream(route.upstreamUrl) : null,
          at: performance.now(),
        };
        if (generation === this.generation) this.store(hostname, entry);
        return entry;
      })
      .finally(() => this.loading.delete(hostname));
    this.loading.set(hostname, loading);
    return loading;
  }

  private store(hostname: string, entry: CachedRoute) {
    const previous = this.routes.get(hostname);
    if (previous?.route === null) this.unknown--;
    if (entry.route === null) {
      if (this.unknown >= MAX_UNKNOWN_HOSTNAMES) this.dropWhere((cached) => cached.route === null);
      this.unknown++;
    }
    this.routes.set(hostname, entry);
  }

  private drop(hostname: string) {
    this.generation++;
    const entry = this.routes.get(hostname);
    if (entry?.route === null) this.unknown--;
    this.routes.delete(hostname);
  }

  private dropWhere(test: (entry: CachedRoute) => boolean) {
    this.generation++;
    for (const [hostname, entry] of this.routes) if (test(entry)) this.drop(hostname);
  }
}
