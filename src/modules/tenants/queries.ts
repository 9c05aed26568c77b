import { and, count, eq, or, sql, type SQL } from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/pg-core';
import { readWindow } from '../../db/keyset.js';
import { countLimit } from '../../lib/count-bound.js';
import type { ListWindow } from '../../lib/list-window.js';
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
 * clients in (parent_id, status?, created_at, id) order (from the cursor on, for a window by cursor), in a UNION ALL
 * that sorts only those: one OR would fetch and sort every client. The count stops at its bound
 * (src/lib/count-bound.ts).
 */
export async function listVisibleTenants(db: Db, tenantId: string, status: TenantStatusFilter, window: ListWindow) {
  const statusIs = statusCondition(status);
  const order = {
    table: tenants,
    scope: and(visibleTo(tenantId), statusIs),
    sortKey: tenants.createdAt,
    id: tenants.id,
    descending: false,
  };
  const visible = (condition: SQL, cursor: SQL | undefined) =>
    db
      .select(tenantWithPlan)
      .from(tenants)
      .innerJoin(plans, eq(plans.id, tenants.planId))
      .where(and(condition, statusIs, cursor));
  const upTo = countLimit(window.limit, window.offset);
  const [rows, [{ total }]] = await Promise.all([
    readWindow(db, window, order, ({ cursor, orderBy, limit, offset }) =>
      unionAll(
        visible(eq(tenants.id, tenantId), cursor),
        visible(eq(tenants.parentId, tenantId), cursor)
          .orderBy(...orderBy)
          .limit(offset + limit),
      )
        .orderBy(...orderBy)
        .limit(limit)
        .offset(offset),
    ),
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
          .limit(upTo),
      ).as('visible'),
    ),
  ]);
  return { rows: rows as TenantRecord[], total: Math.min(total, upTo) };
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
 * Inserts a client tenant unless the parent already has `limit` active clients, in one statement: the parent's row is
 * locked and its `client_count` (kept by a trigger) checked, so parallel requests cannot both take the last place. A
 * request that waited for the lock re-reads the count the other one left.
 */
export async function insertClientTenantWithinLimit(
  db: Db,
  row: { id: string; name: string; planId: string; parentId: string },
  limit: number,
): Promise<boolean> {
  const result = await db.execute(sql`
    with place as (
      select id from tenants where id = ${row.parentId} and client_count < ${limit} for update
    )
    insert into tenants (id, name, plan_id, parent_id)
    select ${row.id}, ${row.name}, ${row.planId}, place.id from place
    returning id`);
  return (result as unknown as { rows: unknown[] }).rows.length === 1;
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
