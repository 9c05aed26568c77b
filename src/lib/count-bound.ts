/**
 * Lists count their matches only up to a bound, so a count never reads more than that many index entries: past it,
 * `count` and `total_pages` are lower bounds and the list says so with `count_estimated: true`. A page beyond the
 * bound counts on to just past its own end, so its `next` link stays right.
 */
export const COUNT_BOUND = 1_000;

/** How many rows a list counts for this page: one more than it needs, which tells "there are more". */
export function countLimit(limit: number, offset: number): number {
  return Math.max(COUNT_BOUND, offset + limit) + 1;
}

/** Whether a count taken with `countLimit(limit, offset)` stopped at its limit (so it is a lower bound). */
export function countReachedLimit(count: number, limit: number, offset: number): boolean {
  return count >= countLimit(limit, offset);
}
