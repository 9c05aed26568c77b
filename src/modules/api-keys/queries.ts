import { and, count, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.js';
import type { Role } from '../../http/context.js';
import { apiKeys, tenants, type ApiKeyRow } from '../../db/schema.js';
import { readList } from '../../db/keyset.js';
import type { ListWindow } from '../../lib/list-window.js';

export interface KeyCredential {
  keyId: string;
  tenantId: string;
  tenantStatus: string;
  role: Role;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export async function findCredentialByHash(db: Db, tokenHash: string): Promise<KeyCredential | null> {
  const rows = await db
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
    .where(eq(apiKeys.tokenHash, tokenHash))
    .limit(1);
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
