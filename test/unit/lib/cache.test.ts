import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReadThroughCache } from '../../../src/lib/cache.js';

describe('ReadThroughCache', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('loads a key once and answers from memory within the TTL', async () => {
    const cache = new ReadThroughCache<string>(1000);
    const load = vi.fn(async () => 'value');
    expect(await cache.get('key', load)).toBe('value');
    expect(await cache.get('key', load)).toBe('value');
    expect(load).toHaveBeenCalledTimes(1);
    expect(cache.peek('key')).toBe('value');
  });

  it('loads again once the TTL has passed', async () => {
    vi.useFakeTimers({ now: 0 });
    const cache = new ReadThroughCache<string>(1000);
    const load = vi.fn(async () => 'value');
    await cache.get('key', load);
    vi.setSystemTime(999);
    expect(cache.peek('key')).toBe('value');
    vi.setSystemTime(1000);
    expect(cache.peek('key')).toBeUndefined();
    await cache.get('key', load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('does not store a missing value (null or undefined)', async () => {
    const cache = new ReadThroughCache<string | null>(1000);
    const load = vi.fn(async () => null);
    await cache.get('key', load);
    await cache.get('key', load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('does not store a value whose load started before a clear(), so an invalidation is never overwritten', async () => {
    const cache = new ReadThroughCache<string>(1000);
    let finishLoad!: (value: string) => void;
    const loading = cache.get('key', () => new Promise<string>((done) => (finishLoad = done)));
    cache.clear();
    finishLoad('stale');
    expect(await loading).toBe('stale');
    expect(cache.peek('key')).toBeUndefined();
  });

  it('clear(predicate) drops only the entries that match', async () => {
    const cache = new ReadThroughCache<string>(1000);
    await cache.get('tenant:a', async () => 'a');
    await cache.get('tenant:b', async () => 'b');
    cache.clear((key) => key === 'tenant:a');
    expect(cache.peek('tenant:a')).toBeUndefined();
    expect(cache.peek('tenant:b')).toBe('b');
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const cache = new ReadThroughCache<string>(1000, 2);
    for (const key of ['a', 'b', 'c']) await cache.get(key, async () => key);
    expect([cache.peek('a'), cache.peek('b'), cache.peek('c')]).toEqual([undefined, 'b', 'c']);
  });

  it('stores nothing with a TTL of 0', async () => {
    const cache = new ReadThroughCache<string>(0);
    const load = vi.fn(async () => 'value');
    await cache.get('key', load);
    await cache.get('key', load);
    expect(load).toHaveBeenCalledTimes(2);
  });
});
