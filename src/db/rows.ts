/**
 * The rows of a raw `db.execute(sql…)` result, typed as the statement selects them. The connection is typed with
 * the generic query result of both drivers (PGlite and node-postgres), so Drizzle types the result as `unknown`;
 * both answer `{ rows }`, and the caller names the columns its SQL returns.
 */
export function rowsOf<T>(result: unknown): T[] {
  // Both drivers' results carry `rows`; the shape of each row is the statement's, which only the caller knows.
  return (result as { rows: T[] }).rows;
}
