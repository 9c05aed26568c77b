import { and, eq, gte, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.js';
import { readList } from '../../db/keyset.js';
import { rowsOf } from '../../db/rows.js';
import { outgoingLog } from '../../db/schema.js';
import type { ListWindow } from '../../lib/list-window.js';

export type NewOutgoingLogRow = typeof outgoingLog.$inferInsert;

export interface OutgoingLogQueryFilter {
  vendor?: NewOutgoingLogRow['vendor'];
  status?: NewOutgoingLogRow['status'];
  eventName?: string;
  eventId?: string;
  since?: Date;
}

/**
 * Writes a batch as one JSON parameter unpacked by the database (`jsonb_to_recordset`): one statement planned once
 * whatever the batch size, where a multi-row VALUES list makes the ORM build and bind 13 parameters a row. The
 * gateway's process pays for that building on every forwarded hit (with PGlite, for the insert itself too).
 */
export async function insertOutgoing(db: Db, rows: NewOutgoingLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  const records = JSON.stringify(
    rows.map((row) => ({
      id: row.id,
      container_id: row.containerId,
      vendor: row.vendor,
      destination: row.destination,
      event_name: row.eventName,
      event_id: row.eventId ?? null,
      request: row.request,
      status: row.status,
      http_status: row.httpStatus ?? null,
      error: row.error ?? null,
      attempts: row.attempts,
      latency_ms: row.latencyMs ?? null,
      at: row.at,
    })),
  );
  await db.execute(sql`
    insert into outgoing_log (id, container_id, vendor, destination, event_name, event_id, request, status,
      http_status, error, attempts, latency_ms, at)
    select id, container_id, vendor, destination, event_name, event_id, request, status,
      http_status, error, attempts, latency_ms, at
    from jsonb_to_recordset(${records}::jsonb) as batch(id text, container_id text, vendor text, destination text,
      event_name text, event_id text, request jsonb, status text, http_status integer, error text, attempts integer,
      latency_ms integer, at timestamptz)`);
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
  const result = await db.execute(sql`with deleted as (
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
    select count(*)::int as deleted from deleted`);
  return Number(rowsOf<{ deleted: number | string }>(result)[0]?.deleted ?? 0);
}
