/**
 * A bounded in-memory read-through cache with a TTL and a generation counter: `clear()` bumps the
 * generation, and a load that started before a clear is not stored, so a concurrent invalidation
 * can never be overwritten by a stale read.
 */
export class ReadThroughCache<V> {
  private readonly entries = new Map<string, { value: V; storedAt: number }>();
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The fresh cached value, or undefined: lets hot paths answer without a promise. */
  peek(key: string): V | undefined {
    const hit = this.entries.get(key);
    return hit && Date.now() - hit.storedAt < this.ttlMs ? hit.value : undefined;
  }

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.peek(key);
    if (hit !== undefined) return hit;
    const generation = this.generation;
    const value = await load();
    if (value != null && generation === this.generation && this.ttlMs > 0) {
      this.entries.delete(key);
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(key, { value, storedAt: Date.now() });
    }
    return value;
  }

  /** Drops entries matching the predicate, or all of them. */
  clear(matches?: (key: string, value: V) => boolean): void {
    this.generation++;
    if (!matches) {
      this.entries.clear();
      return;
    }
    for (const [key, entry] of this.entries) if (matches(key, entry.value)) this.entries.delete(key);
  }
}
