import { and, eq, gte, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.js';
import { readList } from '../../db/keyset.js';
import { outgoingLog } from '../../db/schema.js';
import type { ListWindow } from '../../lib/list-window.js';

export type NewOutgoingLogRow = typeof outgoingLog.$inferInsert;

export interface OutgoingLogQueryFilter {
  vendor?: string;
  status?: string;
  eventName?: string;
  eventId?: string;
  since?: Date;
}

export async function insertOutgoing(db: Db, rows: NewOutgoingLogRow[]): Promise<void> {
  if (rows.length > 0) await db.insert(outgoingLog).values(rows);
}

export function listOutgoing(db: Db, containerId: string, filter: OutgoingLogQueryFilter, window: ListWindow) {
  const where = and(
    eq(outgoingLog.containerId, containerId),
    filter.vendor ? eq(outgoingLog.vendor, filter.vendor) : undefined,
    filter.status ? eq(outgoingLog.status, filter.status) : undefined,
    filter.eventName ? sql`lower(${outgoingLog.eventName}) = lower(${filter.eventName})` : undefined,
    filter.eventId ? eq(outgoingLog.eventId, filter.eventId) : undefined,
    filter.since ? gte(outgoingLog.at, filter.since) : undefined,
  );
  return readList(
    db,
    window,
    { table: outgoingLog, scope: where, sortKey: outgoingLog.at, id: outgoingLog.id, descending: true },
    (page) =>
      db
        .select()
        .from(outgoingLog)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
}

/**
 * One batch of retention: up to `batchSize` rows older than their tenant's `outgoing_log_retention_days` (tenant
 * override, else plan, else `defaultDays`), found container by container along the (container_id, at) index.
 * Returns how many went.
 */
export async function deleteExpiredBatch(db: Db, now: Date, defaultDays: number, batchSize: number): Promise<number> {
  const days = sql`coalesce(
    (tenants.feature_overrides ->> 'outgoing_log_retention_days')::int,
    (plans.features ->> 'outgoing_log_retention_days')::int,
    ${defaultDays}::int)`;
  const result = (await db.execute(sql`with deleted as (
      delete from outgoing_log where ctid = any(array(
        select expired.ctid
        from containers
        join tenants on tenants.id = containers.tenant_id
        join plans on plans.id = tenants.plan_id
        cross join lateral (
          select outgoing_log.ctid from outgoing_log
          where outgoing_log.container_id = containers.id
            and outgoing_log.at < ${now.toISOString()}::timestamptz - make_interval(days => ${days})
          order by outgoing_log.at
          limit ${batchSize}
        ) as expired
        limit ${batchSize}))
      returning 1)
    select count(*)::int as deleted from deleted`)) as unknown as { rows: Array<{ deleted: number | string }> };
  return Number(result.rows[0]?.deleted ?? 0);
}
