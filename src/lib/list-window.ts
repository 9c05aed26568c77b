/**
 * Which slice of a list a request asks for: a page by offset (`page`/`page_size`), or the rows right after or right
 * before one of the list's objects (`starting_after`/`ending_before`, a cursor). With a cursor, `limit` is one more
 * than the page size (the extra row tells whether more follow) and `offset` is 0, so bounded counts taken with
 * `countLimit(limit, offset)` cost what page 1's does.
 */
export type ListWindow =
  | { kind: 'offset'; limit: number; offset: number }
  | { kind: 'after' | 'before'; limit: number; offset: 0; cursor: string };

/** A cache key part that tells two windows apart. */
export const windowKey = (window: ListWindow): string =>
  window.kind === 'offset' ? `${window.limit}|${window.offset}` : `${window.kind}|${window.cursor}|${window.limit}`;

/** The cursor of a window is not an object of the list (unknown, deleted, another tenant's, or filtered out). */
export class UnknownCursorError extends Error {
  constructor(readonly window: ListWindow & { kind: 'after' | 'before' }) {
    super(`No object '${window.cursor}' in this list.`);
    this.name = 'UnknownCursorError';
  }
}
