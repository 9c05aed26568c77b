import { describe, expect, it } from 'vitest';
import { type CachedRoute, RouteCache } from '../../../src/gateway/route-cache.js';
import type { GatewayRoute } from '../../../src/modules/containers/traffic.js';

const routeOf = (containerId: string) => ({ containerId, upstreamUrl: 'http://127.0.0.1:9/' }) as GatewayRoute;

/** A fleet of hostnames → containers whose lookups are counted, and can be held until released. */
function fleet(owners: Record<string, string>) {
  const lookups: string[] = [];
  let hold: Promise<void> | null = null;
  const cache = new RouteCache(async (hostname) => {
    lookups.push(hostname);
    if (hold) await hold;
    return owners[hostname] ? routeOf(owners[hostname]) : null;
  });
  const read = async (hostname: string) => (await cache.get(hostname, performance.now())).route?.containerId ?? null;
  const holdLookups = () => {
    let release = () => {};
    hold = new Promise((resolve) => {
      release = () => {
        hold = null;
        resolve();
      };
    });
    return release;
  };
  return { cache, lookups, read, holdLookups };
}

describe('the gateway route cache', () => {
  it("drops a changed container's hostnames and keeps every other one", async () => {
    const owners = { 'a.gw.test': 'ctr_a', 'shop-a.test': 'ctr_a', 'b.gw.test': 'ctr_b' };
    const { cache, lookups, read } = fleet(owners);
    for (const hostname of Object.keys(owners)) await read(hostname);
    expect(lookups).toHaveLength(3);

    cache.invalidate({ kind: 'container', id: 'ctr_a' });
    for (const hostname of Object.keys(owners)) await read(hostname);
    expect(lookups.slice(3).sort()).toEqual(['a.gw.test', 'shop-a.test']);
  });

  it("drops a changed domain's hostname only", async () => {
    const owners: Record<string, string> = { 'shop-a.test': 'ctr_a', 'shop-b.test': 'ctr_b' };
    const { cache, lookups, read } = fleet(owners);
    await read('shop-a.test');
    await read('shop-b.test');
    delete owners['shop-a.test'];
    cache.invalidate({ kind: 'domain', id: 'shop-a.test' });
    expect(await read('shop-a.test')).toBeNull();
    expect(await read('shop-b.test')).toBe('ctr_b');
    expect(lookups).toEqual(['shop-a.test', 'shop-b.test', 'shop-a.test']);
  });

  it('serves a hostname that was no one’s as soon as a container or domain takes it', async () => {
    const owners: Record<string, string> = {};
    const { cache, read } = fleet(owners);
    expect(await read('new.gw.test')).toBeNull();
    owners['new.gw.test'] = 'ctr_new';
    cache.invalidate({ kind: 'container', id: 'ctr_new' });
    expect(await read('new.gw.test')).toBe('ctr_new');
    owners['new-shop.test'] = 'ctr_new';
    expect(await read('new-shop.test')).toBe('ctr_new');
  });

  it('looks a hostname up once for the requests that arrive while the lookup runs', async () => {
    const { cache, lookups, holdLookups } = fleet({ 'a.gw.test': 'ctr_a' });
    const release = holdLookups();
    const waiting = Array.from({ length: 5 }, () => cache.get('a.gw.test', performance.now()));
    release();
    const answers = await Promise.all(waiting);
    expect(answers.map((answer) => answer.route?.containerId)).toEqual(Array(5).fill('ctr_a'));
    expect(lookups).toEqual(['a.gw.test']);
  });

  it('does not keep an answer read before a change that came while it was read', async () => {
    const owners: Record<string, string> = { 'a.gw.test': 'ctr_a' };
    const { cache, lookups, read, holdLookups } = fleet(owners);
    const release = holdLookups();
    const stale = read('a.gw.test');
    owners['a.gw.test'] = 'ctr_moved';
    cache.invalidate({ kind: 'container', id: 'ctr_a' });
    release();
    await stale;
    expect(await read('a.gw.test')).toBe('ctr_moved');
    expect(lookups).toHaveLength(2);
  });

  it('keeps at most 10,000 hostnames no one serves, and every served one beside them', async () => {
    const { cache, lookups, read } = fleet({ 'a.gw.test': 'ctr_a' });
    await read('a.gw.test');
    for (let i = 0; i < 10_001; i++) await read(`made-up-${i}.test`);
    expect(cache.size).toBeLessThanOrEqual(10_001);
    expect(await read('a.gw.test')).toBe('ctr_a');
    expect(lookups.filter((hostname) => hostname === 'a.gw.test')).toHaveLength(1);
  });

  it('answers an entry past its five minutes at once and reads it again behind the request', async () => {
    const owners: Record<string, string> = { 'a.gw.test': 'ctr_a' };
    const { cache, lookups, read } = fleet(owners);
    await read('a.gw.test');
    owners['a.gw.test'] = 'ctr_b'; // a change whose notification was lost: only the TTL finds it
    const later = performance.now() + 5 * 60_000;
    const stale = cache.get('a.gw.test', later);
    expect(stale).not.toBeInstanceOf(Promise);
    expect((stale as CachedRoute).route?.containerId).toBe('ctr_a');
    expect(cache.get('a.gw.test', later)).toBe(stale); // one reading, however many requests
    await new Promise((resolve) => setImmediate(resolve));
    expect(await read('a.gw.test')).toBe('ctr_b');
    expect(lookups).toEqual(['a.gw.test', 'a.gw.test']);
  });
});

describe('warming the gateway route cache', () => {
  /** Pages of two hostnames over `hostnames`, counting the pages read. */
  function pages(hostnames: string[], onPage: (page: number) => void = () => {}) {
    const read: number[] = [];
    const reader = async (cursor: number | null, limit: number) => {
      const start = cursor ?? 0;
      read.push(start);
      onPage(start);
      const slice = hostnames.slice(start, start + Math.min(limit, 2));
      const next = start + 2 < hostnames.length ? start + 2 : null;
      return { routes: slice.map((hostname) => ({ hostname, route: routeOf(`ctr_${hostname}`) })), next };
    };
    return { reader, read };
  }

  it('reads every page once and then answers those hostnames without a lookup', async () => {
    const { cache, lookups, read } = fleet({});
    const hostnames = ['a.test', 'b.test', 'c.test', 'd.test', 'e.test'];
    const source = pages(hostnames);
    expect(await cache.warm(source.reader, () => false)).toBe(5);
    expect(source.read).toEqual([0, 2, 4]);
    for (const hostname of hostnames) expect(await read(hostname)).toBe(`ctr_${hostname}`);
    expect(lookups).toEqual([]);
  });

  it('keeps what a request read meanwhile, and no page read across a change', async () => {
    const { cache, lookups, read } = fleet({ 'a.test': 'ctr_own' });
    await read('a.test');
    const source = pages(['a.test', 'b.test', 'c.test', 'd.test'], (start) => {
      if (start === 2) cache.invalidate({ kind: 'domain', id: 'elsewhere.test' });
    });
    expect(await cache.warm(source.reader, () => false)).toBe(1);
    expect(await read('a.test')).toBe('ctr_own');
    expect(await read('b.test')).toBe('ctr_b.test');
    expect(await read('c.test')).toBeNull(); // its page was read across the change: looked up on demand
    expect(lookups).toEqual(['a.test', 'c.test']);
  });

  it('stops when the gateway closes', async () => {
    const { cache } = fleet({});
    let closed = false;
    const source = pages(['a.test', 'b.test', 'c.test', 'd.test'], () => {
      closed = true;
    });
    expect(await cache.warm(source.reader, () => closed)).toBe(0);
    expect(source.read).toEqual([0]);
  });
});
