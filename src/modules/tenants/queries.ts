import { and, asc, count, eq, or, type Placeholder, sql, type SQL } from 'drizzle-orm';
import { type SelectedFields, unionAll } from 'drizzle-orm/pg-core';
import { readWindow } from '../../db/keyset.js';
import { countLimit } from '../../lib/count-bound.js';
import type { ListWindow } from '../../lib/list-window.js';
import type { Db } from '../../db/index.js';
import { prepareOnce } from '../../db/prepared.js';
import { rowsOf } from '../../db/rows.js';
import { plans, type TenantRow, tenants } from '../../db/schema.js';

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
  planId: TenantRow['planId'];
  parentId: string | null;
  status: TenantRow['status'];
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

/** The list's order (oldest first) and scope, for cursors. */
const listOrder = (tenantId: string, statusIs: SQL | undefined) => ({
  table: tenants,
  scope: and(visibleTo(tenantId), statusIs),
  sortKey: tenants.createdAt,
  id: tenants.id,
  descending: false,
});

type Bound = number | Placeholder;

/**
 * The caller and its clients, oldest first. Two index reads, the caller by id and the first `reach` (offset + limit)
 * of its clients in (parent_id, status?, created_at, id) order (from the cursor on, for a window by cursor), in a
 * UNION ALL that sorts only those: one OR would fetch and sort every client.
 */
function visibleWindow(
  db: Db,
  tenantId: string | Placeholder,
  statusIs: SQL | undefined,
  window: { cursor: SQL | undefined; orderBy: SQL[]; limit: Bound; offset: Bound; reach: Bound },
  columns: SelectedFields,
) {
  const visible = (condition: SQL) =>
    db
      .select(columns)
      .from(tenants)
      .innerJoin(plans, eq(plans.id, tenants.planId))
      .where(and(condition, statusIs, window.cursor));
  return unionAll(
    visible(eq(tenants.id, tenantId)),
    visible(eq(tenants.parentId, tenantId))
      .orderBy(...window.orderBy)
      .limit(window.reach),
  )
    .orderBy(...window.orderBy)
    .limit(window.limit)
    .offset(window.offset);
}

/** The active tenants the caller sees, exactly, from its row: itself (when active) and its `client_count` (a trigger keeps it). */
const activeVisibleCount = (tenantId: string | Placeholder) =>
  sql<number>`(select caller.client_count + (caller.status = 'active')::int from tenants as caller where caller.id = ${tenantId})`;

/**
 * Pages by number (the list every dashboard and API client reads), one prepared statement per status filter. The
 * active list's rows also carry the list's exact count, so that page costs one statement.
 */
const preparedPage = (status: TenantStatusFilter) =>
  prepareOnce((db) =>
    visibleWindow(
      db,
      sql.placeholder('tenantId'),
      statusCondition(status),
      {
        cursor: undefined,
        orderBy: [asc(tenants.createdAt), asc(tenants.id)],
        limit: sql.placeholder('limit'),
        offset: sql.placeholder('offset'),
        reach: sql.placeholder('reach'),
      },
      status === 'active'
        ? { ...tenantWithPlan, visibleCount: activeVisibleCount(sql.placeholder('tenantId')) }
        : tenantWithPlan,
    ).prepare(`tenants_visible_page_${status}`),
  );
const pageByOffset = { active: preparedPage('active'), archived: preparedPage('archived'), all: preparedPage('all') };

const activeCountAlone = prepareOnce((db) =>
  db
    .select({ total: activeVisibleCount(sql.placeholder('tenantId')) })
    .from(sql`(values (1)) as one`)
    .prepare('tenants_active_visible_count'),
);

/** How many tenants of `status` the caller sees: exact for active ones, else counted up to the bound (src/lib/count-bound.ts). */
async function countVisibleTenants(db: Db, tenantId: string, status: TenantStatusFilter, window: ListWindow) {
  if (status === 'active') {
    const [row] = await activeCountAlone(db).execute({ tenantId });
    return { total: Number(row?.total ?? 0), exact: true };
  }
  const statusIs = statusCondition(status);
  const upTo = countLimit(window.limit, window.offset);
  const [{ total }] = await db.select({ total: count() }).from(
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
  );
  return { total: Math.min(total, upTo), exact: false };
}

/** One window of the tenants the caller sees, and how many there are (`exact` false: a bounded count). */
export async function listVisibleTenants(db: Db, tenantId: string, status: TenantStatusFilter, window: ListWindow) {
  const statusIs = statusCondition(status);
  const page = async () =>
    (await (window.kind === 'offset'
      ? pageByOffset[status](db).execute({
          tenantId,
          limit: window.limit,
          offset: window.offset,
          reach: window.offset + window.limit,
        })
      : readWindow(db, window, listOrder(tenantId, statusIs), ({ cursor, orderBy, limit, offset }) =>
          visibleWindow(
            db,
            tenantId,
            statusIs,
            { cursor, orderBy, limit, offset, reach: offset + limit },
            tenantWithPlan,
          ),
        ))) as Array<TenantRecord & { visibleCount?: number }>;
  if (window.kind === 'offset' && status === 'active') {
    const rows = await page();
    if (rows.length > 0) return { rows, total: Number(rows[0].visibleCount), exact: true };
    return { rows, ...(await countVisibleTenants(db, tenantId, status, window)) };
  }
  const [rows, counted] = await Promise.all([page(), countVisibleTenants(db, tenantId, status, window)]);
  return { rows, ...counted };
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

const tenantById = prepareOnce((db) =>
  db
    .select(tenantWithPlan)
    .from(tenants)
    .innerJoin(plans, eq(plans.id, tenants.planId))
    .where(eq(tenants.id, sql.placeholder('id')))
    .limit(1)
    .prepare('tenant_by_id'),
);

export async function findTenantById(db: Db, id: string): Promise<TenantRecord | null> {
  const rows = await tenantById(db).execute({ id });
  return rows[0] ?? null;
}

export async function insertTenant(db: Db, row: typeof tenants.$inferInsert): Promise<void> {
  await db.insert(tenants).values(row);
}

/**
 * Inserts a client tenant and returns it, in one statement, when the parent may own clients (a top-level tenant whose
 * effective `can_own_clients` is true) and has fewer active clients than its effective `max_client_tenants`; null
 * otherwise. Effective features are the plan's with the tenant's overrides on top, as in `effectiveFeatures`. The
 * parent's row is locked and its `client_count` (kept by a trigger) checked, so parallel requests cannot both take
 * the last place; a request that waited for the lock re-reads the count the other one left.
 */
export async function insertClientTenantWithinLimit(
  db: Db,
  row: { id: string; name: string; planId: string; parentId: string },
): Promise<TenantRecord | null> {
  const feature = (name: string) => sql`coalesce(parent.feature_overrides -> ${name}, plans.features -> ${name})`;
  const result = await db.execute(sql`
    with place as (
      select parent.id from tenants as parent join plans on plans.id = parent.plan_id
      where parent.id = ${row.parentId} and parent.parent_id is null
        and ${feature('can_own_clients')} = 'true'::jsonb
        and parent.client_count < coalesce(${feature('max_client_tenants')}, '0'::jsonb)::numeric
      for update of parent
    ), created as (
      insert into tenants (id, name, plan_id, parent_id)
      select ${row.id}, ${row.name}, ${row.planId}, place.id from place
      returning *
    )
    select created.id, created.name, created.plan_id as "planId", created.parent_id as "parentId", created.status,
      plans.features as "planFeatures", created.feature_overrides as "featureOverrides",
      created.require_two_factor as "requireTwoFactor", created.created_at as "createdAt",
      created.updated_at as "updatedAt", created.archived_at as "archivedAt"
    from created join plans on plans.id = created.plan_id`);
  const [created] = rowsOf<RawTenantRecord>(result);
  return created ? fromDriver(created) : null;
}

/** A tenant row read by raw SQL: timestamps come as text (drizzle maps them only in its own selects). */
type RawTenantRecord = Omit<TenantRecord, 'createdAt' | 'updatedAt' | 'archivedAt'> & {
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
};

const fromDriver = (row: RawTenantRecord): TenantRecord => ({
  ...row,
  createdAt: new Date(row.createdAt),
  updatedAt: new Date(row.updatedAt),
  archivedAt: row.archivedAt === null ? null : new Date(row.archivedAt),
});

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
