import type { Db } from './index.js';

/**
 * A hot query built once per database handle and sent as a named prepared statement: on PostgreSQL each pooled
 * connection parses it once and soon reuses one generic plan, where drizzle's unnamed statements are parsed and
 * planned on every call (planning was 40–80 % of a key lookup's or a list's time in the database). It also saves
 * rebuilding the SQL text on every request. Values go in through `sql.placeholder(name)`.
 *
 * Names must be unique across the code base: PostgreSQL keeps one statement per name and connection.
 */
export function prepareOnce<Query>(build: (db: Db) => Query): (db: Db) => Query {
  const byHandle = new WeakMap<Db, Query>();
  return (db) => {
    let query = byHandle.get(db);
    if (!query) {
      query = build(db);
      byHandle.set(db, query);
    }
    return query;
  };
}
