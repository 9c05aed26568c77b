import { and, count, eq, gte, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.js';
import type { Role } from '../../http/context.js';
import { apiKeys, deprecatedCalls, tenants, type ApiKeyRow } from '../../db/schema.js';
import { readList } from '../../db/keyset.js';
import { prepareOnce } from '../../db/prepared.js';
import type { ListWindow } from '../../lib/list-window.js';

export interface KeyCredential {
  keyId: string;
  tenantId: string;
  tenantStatus: string;
  role: Role;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

const credentialByHash = prepareOnce((db) =>
  db
    .select({
      keyId: apiKeys.id,
      tenantId: apiKeys.tenantId,
      tenantStatus: tenants.status,
      role: apiKeys.role,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .innerJoin(tenants, eq(tenants.id, apiKeys.tenantId))
    .where(eq(apiKeys.tokenHash, sql.placeholder('tokenHash')))
    .limit(1)
    .prepare('api_key_credential_by_hash'),
);

/** The key behind a token's hash, read on every request its credential is not cached. */
export async function findCredentialByHash(db: Db, tokenHash: string): Promise<KeyCredential | null> {
  const rows = await credentialByHash(db).execute({ tokenHash });
  return rows[0] ?? null;
}

export async function insertKey(db: Db, row: typeof apiKeys.$inferInsert): Promise<ApiKeyRow> {
  const [created] = await db.insert(apiKeys).values(row).returning();
  return created;
}

export async function listKeys(db: Db, tenantId: string, window: ListWindow) {
  const where = eq(apiKeys.tenantId, tenantId);
  const { rows, total } = await readList(
    db,
    window,
    { table: apiKeys, scope: where, sortKey: apiKeys.createdAt, id: apiKeys.id, descending: true },
    (page) =>
      db
        .select()
        .from(apiKeys)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
  return { rows, total };
}

export async function findKey(db: Db, tenantId: string, keyId: string): Promise<ApiKeyRow | null> {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.tenantId, tenantId)))
    .limit(1);
  return rows[0] ?? null;
}

/** Revokes once; returns null when the key was already revoked (the caller reports the existing row). */
export async function revokeKey(db: Db, tenantId: string, keyId: string): Promise<ApiKeyRow | null> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.tenantId, tenantId), isNull(apiKeys.revokedAt)))
    .returning();
  return rows[0] ?? null;
}

/** One statement for a whole batch of buffered last-used times; never moves a time backwards. */
export async function writeLastUsed(db: Db, entries: Array<[string, Date]>): Promise<void> {
  if (entries.length === 0) return;
  const ids = entries.map(([id]) => id);
  const times = entries.map(([, at]) => at.toISOString());
  await db.execute(sql`
    update api_keys set last_used_at = greatest(coalesce(api_keys.last_used_at, '-infinity'::timestamptz), batch.used_at)
    from (select unnest(${sql.param(ids)}::text[]) as id, unnest(${sql.param(times)}::timestamptz[]) as used_at) as batch
    where api_keys.id = batch.id`);
}

export async function countActiveKeys(db: Db, tenantId: string): Promise<number> {
  const [{ total }] = await db
    .select({ total: count() })
    .from(apiKeys)
    .where(and(eq(apiKeys.tenantId, tenantId), isNull(apiKeys.revokedAt)));
  return total;
}

/** Counted calls of one key to one deprecated operation on one UTC day. */
export interface DeprecatedCallCount {
  apiKeyId: string;
  tenantId: string;
  operationId: string;
  sunset: string;
  changelog: string;
  day: string;
  calls: number;
  lastCalledAt: Date;
}

/** Adds a batch of counts in one statement. */
export async function addDeprecatedCalls(db: Db, counts: DeprecatedCallCount[]): Promise<void> {
  if (counts.length === 0) return;
  await db
    .insert(deprecatedCalls)
    .values(counts)
    .onConflictDoUpdate({
      target: [deprecatedCalls.apiKeyId, deprecatedCalls.day, deprecatedCalls.operationId],
      set: {
        calls: sql`${deprecatedCalls.calls} + excluded.calls`,
        lastCalledAt: sql`greatest(${deprecatedCalls.lastCalledAt}, excluded.last_called_at)`,
        sunset: sql`excluded.sunset`,
        changelog: sql`excluded.changelog`,
      },
    });
}

/** Per key and operation: the calls since `firstDay` (YYYY-MM-DD, UTC), newest call first. */
export function recentDeprecatedCalls(db: Db, apiKeyIds: string[], firstDay: string) {
  return db
    .select({
      apiKeyId: deprecatedCalls.apiKeyId,
      operationId: deprecatedCalls.operationId,
      calls: sql<number>`sum(${deprecatedCalls.calls})::int`,
      lastCalledAt: sql<Date>`max(${deprecatedCalls.lastCalledAt})`.mapWith((value) => new Date(value)),
      sunset: sql<string>`max(${deprecatedCalls.sunset})`,
      changelog: sql<string>`max(${deprecatedCalls.changelog})`,
    })
    .from(deprecatedCalls)
    .where(and(inArray(deprecatedCalls.apiKeyId, apiKeyIds), gte(deprecatedCalls.day, firstDay)))
    .groupBy(deprecatedCalls.apiKeyId, deprecatedCalls.operationId)
    .orderBy(sql`max(${deprecatedCalls.lastCalledAt}) desc`, deprecatedCalls.operationId);
}

export async function deleteDeprecatedCallsBefore(db: Db, firstDay: string): Promise<void> {
  await db.delete(deprecatedCalls).where(lt(deprecatedCalls.day, firstDay));
}
