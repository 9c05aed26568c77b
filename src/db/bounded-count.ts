import { count, type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Db } from './index.js';

/**
 * `count(*)` of at most `upTo` rows matching `where`: a LIMIT inside, so the index range is read no further than
 * that (see src/lib/count-bound.ts for how lists use it).
 */
export async function boundedCount(db: Db, table: PgTable, where: SQL | undefined, upTo: number): Promise<number> {
  const matching = db.select({ one: sql`1` }).from(table).where(where).limit(upTo).as('matching');
  const [{ total }] = await db.select({ total: count() }).from(matching);
  return total;
}
