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
/** A gateway reads this many routes ahead of their first request when it starts; the rest are read on demand. */
const MAX_WARMED_HOSTNAMES = 50_000;
const WARM_PAGE = 1_000;

/** One page of hostname routes and where the next starts (null after the last). */
export type RoutesPageReader<Cursor> = (
  cursor: Cursor | null,
  limit: number,
) => Promise<{ routes: Array<{ hostname: string; route: GatewayRoute }>; next: Cursor | null }>;

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

  /**
   * The hostname's route: from the cache, else looked up (once, however many requests ask). Past its TTL an entry is
   * still answered while it is read again in the background: changes drop entries as they happen, so the TTL only
   * catches a lost one, and a request need not wait for that.
   */
  get(hostname: string, now: number): CachedRoute | Promise<CachedRoute> {
    const cached = this.routes.get(hostname);
    if (!cached) return this.loading.get(hostname) ?? this.load(hostname);
    if (now - cached.at >= ROUTE_TTL_MS && !this.loading.has(hostname)) this.load(hostname).catch(() => {});
    return cached;
  }

  /**
   * Reads routes a page at a time ahead of their first request (a gateway that starts in front of thousands of
   * hostnames would otherwise read each from the database on its first request, all at once). A page read while a
   * change came in is not kept; those hostnames are read on demand. Stops when `stopped()` says so.
   */
  async warm<Cursor>(readPage: RoutesPageReader<Cursor>, stopped: () => boolean): Promise<number> {
    let cursor: Cursor | null = null;
    let warmed = 0;
    do {
      const generation = this.generation;
      const page = await readPage(cursor, WARM_PAGE);
      if (stopped()) break;
      if (generation === this.generation)
        for (const { hostname, route } of page.routes)
          if (!this.routes.has(hostname) && !this.loading.has(hostname)) {
            this.store(hostname, entryOf(route));
            warmed++;
          }
      cursor = page.next;
    } while (cursor !== null && warmed < MAX_WARMED_HOSTNAMES);
    return warmed;
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
        const entry = entryOf(route);
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

function entryOf(route: GatewayRoute | null): CachedRoute {
  return { route, upstream: route?.upstreamUrl ? parseUpstream(route.upstreamUrl) : null, at: performance.now() };
}
