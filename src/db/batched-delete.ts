import { type AnyColumn, type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Db } from './index.js';
import { rowsOf } from './rows.js';

export interface BatchedDelete {
  /** Rows per statement: each is one short transaction, so no lock is held for long and no huge WAL burst. */
  batchSize: number;
  /** Statements per call at most; whatever is left goes in the next run. */
  maxBatches: number;
}

/**
 * Deletes the rows of `table` matching `condition`, oldest first by `oldestFirst` (an indexed column, so each batch
 * is an index range read), `batchSize` rows per statement until a batch comes back short. Returns how many went.
 * Rows are picked by `ctid`, which every table has, so tables without a single-column key work too.
 */
export async function deleteInBatches(
  db: Db,
  table: PgTable,
  condition: SQL,
  oldestFirst: AnyColumn,
  { batchSize, maxBatches }: BatchedDelete,
): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    const result = await db.execute(sql`with deleted as (
        delete from ${table} where ctid = any(array(
          select ctid from ${table} where ${condition} order by ${oldestFirst} limit ${batchSize}))
        returning 1)
      select count(*)::int as deleted from deleted`);
    const deleted = Number(rowsOf<{ deleted: number | string }>(result)[0]?.deleted ?? 0);
    total += deleted;
    if (deleted < batchSize) break;
  }
  return total;
}
