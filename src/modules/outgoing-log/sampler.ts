/** Containers whose budget is tracked at once; a second's budgets are few, so this is only a bound on memory. */
const MAX_TRACKED_CONTAINERS = 50_000;

/**
 * How many delivered forwards of a container the outgoing log keeps: the first `perSecond` of each second, the
 * rest skipped. A site sending a few events a second sees every one; a busy one sees a steady sample while its
 * database is spared a row per hit.
 */
export class DeliveredSampler {
  private second = 0;
  private kept = new Map<string, number>();
  skipped = 0;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether this delivered forward of `containerId` is left out; counts it as kept otherwise. */
  skip(containerId: string): boolean {
    const second = Math.floor(this.now() / 1000);
    if (second !== this.second || this.kept.size >= MAX_TRACKED_CONTAINERS) {
      this.second = second;
      this.kept = new Map();
    }
    const kept = this.kept.get(containerId) ?? 0;
    if (kept >= this.perSecond) {
      this.skipped++;
      return true;
    }
    this.kept.set(containerId, kept + 1);
    return false;
  }
}
