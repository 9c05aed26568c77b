import { and, asc, count, eq, or, sql, type SQL } from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/pg-core';
import { countLimit } from '../../lib/count-bound.js';
import type { Db } from '../../db/index.js';
import { plans, tenants } from '../../db/schema.js';

const tenantWithPlan = {
  id: tenants.id,
  name: tenants.name,
  planId: tenants.planId,
  parentId: tenants.parentId,
  status: tenants.status,
  planFeatures: plans.features,
  featureOverrides: tenants.featureOverrides,
  requireTwoFactor: tenants.requireTwoFactor,
  createdAt: tenants.createdAt,
  updatedAt: tenants.updatedAt,
  archivedAt: tenants.archivedAt,
};

export type TenantRecord = {
  id: string;
  name: string;
  planId: string;
  parentId: string | null;
  status: string;
  planFeatures: Record<string, number | boolean>;
  featureOverrides: Record<string, number | boolean>;
  requireTwoFactor: boolean;
  createdAt: Date;
  updatedAt: Date;
  archivedAt: Date | null;
};

export type TenantStatusFilter = 'active' | 'archived' | 'all';

/** A tenant sees itself and its client tenants. */
const visibleTo = (tenantId: string) => or(eq(tenants.id, tenantId), eq(tenants.parentId, tenantId));

function statusCondition(status: TenantStatusFilter): SQL | undefined {
  return status === 'all' ? undefined : eq(tenants.status, status);
}

/**
 * The caller and its clients, oldest first. Two index reads, the caller by id and the first `offset + limit` of its
 * clients in (parent_id, status?, created_at, id) order, in a UNION ALL that sorts only those: one OR would fetch and
 * sort every client. The count stops at its bound (src/lib/count-bound.ts).
 */
export async function listVisibleTenants(
  db: Db,
  tenantId: string,
  status: TenantStatusFilter,
  limit: number,
  offset: number,
) {
  const statusIs = statusCondition(status);
  const visible = (condition: SQL) =>
    db
      .select(tenantWithPlan)
      .from(tenants)
      .innerJoin(plans, eq(plans.id, tenants.planId))
      .where(and(condition, statusIs));
  const [rows, [{ total }]] = await Promise.all([
    unionAll(
      visible(eq(tenants.id, tenantId)),
      visible(eq(tenants.parentId, tenantId))
        .orderBy(asc(tenants.createdAt), asc(tenants.id))
        .limit(offset + limit),
    )
      .orderBy(asc(tenants.createdAt), asc(tenants.id))
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(
      unionAll(
        db
          .select({ one: sql`1` })
          .from(tenants)
          .where(and(eq(tenants.id, tenantId), statusIs)),
        db
          .select({ one: sql`1` })
          .from(tenants)
          .where(and(eq(tenants.parentId, tenantId), statusIs))
          .limit(countLimit(limit, offset)),
      ).as('visible'),
    ),
  ]);
  return { rows: rows as TenantRecord[], total: Math.min(total, countLimit(limit, offset)) };
}

export async function findVisibleTenant(db: Db, callerTenantId: string, id: string): Promise<TenantRecord | null> {
  const rows = await db
    .select(tenantWithPlan)
    .from(tenants)
    .innerJoin(plans, eq(plans.id, tenants.planId))
    .where(and(eq(tenants.id, id), visibleTo(callerTenantId)))
    .limit(1);
  return rows[0] ?? null;
}

export async function findClientTenant(db: Db, parentId: string, id: string) {
  const rows = await db
    .select({ id: tenants.id })
    .from(tenants)
    .where(and(eq(tenants.id, id), eq(tenants.parentId, parentId), eq(tenants.status, 'active')))
    .limit(1);
  return rows[0] ?? null;
}

export async function findTenantById(db: Db, id: string): Promise<TenantRecord | null> {
  const rows = await db
    .select(tenantWithPlan)
    .from(tenants)
    .innerJoin(plans, eq(plans.id, tenants.planId))
    .where(eq(tenants.id, id))
    .limit(1);
  return rows[0] ?? null;
}

export async function insertTenant(db: Db, row: typeof tenants.$inferInsert): Promise<void> {
  await db.insert(tenants).values(row);
}

/**
 * Inserts a client tenant unless the parent already has `limit` active clients. The parent row is locked while
 * counting, so parallel requests cannot both take the last place.
 */
export async function insertClientTenantWithinLimit(
  db: Db,
  row: typeof tenants.$inferInsert & { parentId: string },
  limit: number,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, row.parentId)).for('update');
    const [{ clients }] = await tx
      .select({ clients: count() })
      .from(tenants)
      .where(and(eq(tenants.parentId, row.parentId), eq(tenants.status, 'active')));
    if (clients >= limit) return false;
    await tx.insert(tenants).values(row);
    return true;
  });
}

export async function updateTenant(db: Db, id: string, changes: Partial<typeof tenants.$inferInsert>): Promise<void> {
  await db
    .update(tenants)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(tenants.id, id));
}

export async function listPlanIds(db: Db): Promise<string[]> {
  const rows = await db.select({ id: plans.id }).from(plans);
  return rows.map((row) => row.id);
}
