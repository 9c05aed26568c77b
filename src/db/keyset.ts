import { and, asc, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { countLimit } from '../lib/count-bound.js';
import { type ListWindow, UnknownCursorError } from '../lib/list-window.js';
import { boundedCount } from './bounded-count.js';
import type { Db } from './index.js';

/** How a list is ordered: by `sortKey` then `id`, both descending or both ascending, over the rows of `scope`. */
export interface ListOrder {
  /** The table the list's objects (and so its cursors) are rows of. */
  table: PgTable;
  /** The list's condition: a cursor must be one of these rows (the tenant's, with the list's filters). */
  scope: SQL | undefined;
  sortKey: PgColumn;
  id: PgColumn;
  descending: boolean;
}

/** What a list query adds for one window: its condition (scope and cursor, or the cursor alone), order, limit, offset. */
export interface WindowClauses {
  where: SQL | undefined;
  cursor: SQL | undefined;
  orderBy: SQL[];
  limit: number;
  offset: number;
}

/**
 * Reads one window of a list. By offset, as before; by cursor, a keyset query: the rows whose (sort key, id) lie
 * past the cursor's, read along the index from there, so a deep page costs what page 1 does. The cursor's key is
 * looked up first (in the list's scope) and given to the planner as a value, so it can pick the list's index.
 * Rows before a cursor are read walking backwards and then turned around, so they come in the list's order.
 * Throws UnknownCursorError when the cursor is not a row of the list's scope.
 */
export async function readWindow<Row>(
  db: Db,
  window: ListWindow,
  order: ListOrder,
  read: (clauses: WindowClauses) => Promise<Row[]>,
): Promise<Row[]> {
  if (window.kind === 'offset')
    return read({ where: order.scope, cursor: undefined, orderBy: orderBy(order, order.descending), ...window });
  // The cursor's key travels as text and is cast back: a JavaScript Date would cut timestamps to milliseconds.
  const [found] = await db
    .select({ key: sql<string>`${order.sortKey}::text` })
    .from(order.table)
    .where(and(order.scope, eq(order.id, window.cursor)))
    .limit(1);
  if (!found) throw new UnknownCursorError(window);
  const forward = window.kind === 'after';
  const walkDescending = order.descending === forward;
  const cursorKey = sql`(${found.key}::${sql.raw(order.sortKey.getSQLType())}, ${window.cursor})`;
  const cursor = walkDescending
    ? sql`(${order.sortKey}, ${order.id}) < ${cursorKey}`
    : sql`(${order.sortKey}, ${order.id}) > ${cursorKey}`;
  const rows = await read({
    where: and(order.scope, cursor),
    cursor,
    orderBy: orderBy(order, walkDescending),
    limit: window.limit,
    offset: 0,
  });
  return forward ? rows : rows.reverse();
}

function orderBy(order: ListOrder, descending: boolean): SQL[] {
  const direction = descending ? desc : asc;
  return [direction(order.sortKey), direction(order.id)];
}

/** One window of a list and the list's bounded count (src/lib/count-bound.ts), read side by side. */
export async function readList<Row>(
  db: Db,
  window: ListWindow,
  order: ListOrder,
  read: (clauses: WindowClauses) => Promise<Row[]>,
): Promise<{ rows: Row[]; total: number }> {
  const [rows, total] = await Promise.all([
    readWindow(db, window, order, read),
    boundedCount(db, order.table, order.scope, countLimit(window.limit, window.offset)),
  ]);
  return { rows, total };
}
