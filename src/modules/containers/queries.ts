import { and, count, desc, eq, gte, inArray, like, lt, lte, ne, notInArray, type SQL, sql } from 'drizzle-orm';
import { type BatchedDelete, deleteInBatches } from '../../db/batched-delete.js';
import { rowsOf } from '../../db/rows.js';
import type { Db } from '../../db/index.js';
import {
  containerRequestLogs,
  containerRuntimeUsage,
  containers,
  containerUsage,
  type ContainerRow,
} from '../../db/schema.js';
import { type ContainerStatus, REMOVED_STATUSES } from './schemas.js';
import type { ContainerRuntimeKind } from './settings.js';
import { readList } from '../../db/keyset.js';
import type { ListWindow } from '../../lib/list-window.js';

export async function insertContainer(db: Db, row: typeof containers.$inferInsert): Promise<ContainerRow> {
  const [created] = await db.insert(containers).values(row).returning();
  return created;
}

export async function countLiveContainers(db: Db, tenantId: string): Promise<number> {
  const [{ total }] = await db
    .select({ total: count() })
    .from(containers)
    .where(and(eq(containers.tenantId, tenantId), ne(containers.status, 'deleted')));
  return total;
}

export async function listContainers(db: Db, tenantId: string, window: ListWindow) {
  const where = and(eq(containers.tenantId, tenantId), ne(containers.status, 'deleted'));
  const { rows, total } = await readList(
    db,
    window,
    { table: containers, scope: where, sortKey: containers.createdAt, id: containers.id, descending: true },
    (page) =>
      db
        .select()
        .from(containers)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
  return { rows, total };
}

/** Default hostnames of the tenant's containers among `ids`, in one statement. */
export async function findDefaultHostnames(db: Db, tenantId: string, ids: string[]) {
  if (ids.length === 0) return [];
  return db
    .select({ id: containers.id, defaultHostname: containers.defaultHostname })
    .from(containers)
    .where(and(eq(containers.tenantId, tenantId), inArray(containers.id, ids)));
}

export async function findContainer(db: Db, tenantId: string, id: string): Promise<ContainerRow | null> {
  const rows = await db
    .select()
    .from(containers)
    .where(and(eq(containers.id, id), eq(containers.tenantId, tenantId)))
    .limit(1);
  return rows[0] ?? null;
}

export async function findContainerById(db: Db, id: string): Promise<ContainerRow | null> {
  const rows = await db.select().from(containers).where(eq(containers.id, id)).limit(1);
  return rows[0] ?? null;
}

/** Moves a container from one of `from` to `to` atomically; null when it was not in one of `from`. */
export async function transition(
  db: Db,
  id: string,
  from: ContainerStatus[],
  changes: Partial<typeof containers.$inferInsert> & { status: ContainerStatus },
): Promise<ContainerRow | null> {
  const rows = await db
    .update(containers)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(eq(containers.id, id), inArray(containers.status, from)))
    .returning();
  return rows[0] ?? null;
}

export async function updateContainer(
  db: Db,
  tenantId: string,
  id: string,
  changes: Partial<typeof containers.$inferInsert>,
): Promise<ContainerRow | null> {
  const rows = await db
    .update(containers)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(
      and(
        eq(containers.id, id),
        eq(containers.tenantId, tenantId),
        notInArray(containers.status, [...REMOVED_STATUSES]),
      ),
    )
    .returning();
  return rows[0] ?? null;
}

/** Running containers on a runtime (runtime `sgtm`: the ones whose tagging servers are watched). */
export function runningContainersOnRuntime(db: Db, runtime: ContainerRuntimeKind): Promise<ContainerRow[]> {
  return db
    .select()
    .from(containers)
    .where(and(eq(containers.status, 'running'), eq(containers.runtime, runtime)));
}

export async function transitionalContainers(db: Db): Promise<string[]> {
  const rows = await db
    .select({ id: containers.id })
    .from(containers)
    .where(
      sql`${containers.status} in ('provisioning', 'starting', 'stopping', 'deleting') or (${containers.status} = 'stopped' and ${containers.pendingAction} is not null)`,
    );
  return rows.map((row) => row.id);
}

export async function usage(db: Db, containerId: string, from: string, to: string) {
  return db
    .select({
      day: containerUsage.day,
      hostname: containerUsage.hostname,
      statusClass: containerUsage.statusClass,
      requests: containerUsage.requests,
      requestBytes: containerUsage.requestBytes,
      responseBytes: containerUsage.responseBytes,
    })
    .from(containerUsage)
    .where(
      and(eq(containerUsage.containerId, containerId), gte(containerUsage.day, from), lte(containerUsage.day, to)),
    );
}

/** Adds counts from the gateway's in-memory meter; one statement per batch. */
export async function addUsage(db: Db, rows: Array<typeof containerUsage.$inferInsert>): Promise<void> {
  await addCounts(
    db,
    'container_usage',
    [
      arrayColumn('container_id', 'text', rows, (row) => row.containerId),
      arrayColumn('day', 'text', rows, (row) => row.day),
      arrayColumn('hostname', 'text', rows, (row) => row.hostname),
      arrayColumn('status_class', 'text', rows, (row) => row.statusClass),
    ],
    [
      arrayColumn('requests', 'int', rows, (row) => row.requests),
      arrayColumn('request_bytes', 'bigint', rows, (row) => row.requestBytes ?? 0),
      arrayColumn('response_bytes', 'bigint', rows, (row) => row.responseBytes ?? 0),
    ],
  );
}

/** Adds the built-in runtime's counts per container and day, one statement for the batch. */
export async function addRuntimeUsage(db: Db, rows: Array<typeof containerRuntimeUsage.$inferInsert>): Promise<void> {
  const keys = Object.keys(RUNTIME_COLUMNS) as Array<keyof typeof RUNTIME_COLUMNS>;
  await addCounts(
    db,
    'container_runtime_usage',
    [
      arrayColumn('container_id', 'text', rows, (row) => row.containerId),
      arrayColumn('day', 'text', rows, (row) => row.day),
    ],
    keys.map((key) => arrayColumn(RUNTIME_COLUMNS[key], 'int', rows, (row) => row[key] ?? 0)),
  );
}

interface ArrayColumn {
  name: string;
  type: 'text' | 'int' | 'bigint' | 'timestamptz';
  values: unknown[];
}

function arrayColumn<Row>(name: string, type: ArrayColumn['type'], rows: Row[], pick: (row: Row) => unknown) {
  return { name, type, values: rows.map(pick) };
}

/**
 * Inserts counters, or adds them to the row with the same key, in one statement with one array parameter per column
 * (`unnest`): a multi-row VALUES takes a parameter per value, and PostgreSQL refuses a statement with more than
 * 65,535 (a flush of spread traffic counts 10,000 hostnames, 70,000 values, and was refused every time). The table
 * and column names are this module's constants.
 */
async function addCounts(db: Db, table: string, keys: ArrayColumn[], counts: ArrayColumn[]): Promise<void> {
  if (keys[0].values.length === 0) return;
  const added = sql.raw(counts.map(({ name }) => `${name} = ${table}.${name} + excluded.${name}`).join(', '));
  await db.execute(sql`${unnestInsert(table, [...keys, ...counts])}
    on conflict (${columnNames(keys)}) do update set ${added}`);
}

const columnNames = (columns: ArrayColumn[]) => sql.raw(columns.map(({ name }) => name).join(', '));

/** `insert into table (columns) select * from unnest(arrays)`: one array parameter per column, whatever the rows. */
function unnestInsert(table: string, columns: ArrayColumn[]): SQL {
  const arrays = sql.join(
    columns.map(({ type, values }) => sql`${sql.param(values)}::${sql.raw(type)}[]`),
    sql`, `,
  );
  return sql`insert into ${sql.raw(table)} (${columnNames(columns)}) select * from unnest(${arrays})`;
}

const RUNTIME_COLUMNS = {
  hitsReceived: 'hits_received',
  ga4Forwarded: 'ga4_forwarded',
  metaForwarded: 'meta_forwarded',
  forwardsFailed: 'forwards_failed',
  hitsRefused: 'hits_refused',
  botsDropped: 'bots_dropped',
  cookiesRestored: 'cookies_restored',
} as const;

export async function runtimeUsage(db: Db, containerId: string, from: string, to: string) {
  return db
    .select()
    .from(containerRuntimeUsage)
    .where(
      and(
        eq(containerRuntimeUsage.containerId, containerId),
        gte(containerRuntimeUsage.day, from),
        lte(containerRuntimeUsage.day, to),
      ),
    )
    .orderBy(containerRuntimeUsage.day);
}

/**
 * One statement with one array parameter per column (`unnest`), not one parameter per value: on PGlite,
 * which runs in the gateway's thread, 1000 rows take ~10 ms this way against ~50 ms as a multi-row VALUES.
 */
export async function insertRequestLogs(db: Db, rows: Array<typeof containerRequestLogs.$inferInsert>): Promise<void> {
  if (rows.length === 0) return;
  await db.execute(
    unnestInsert('container_request_logs', [
      arrayColumn('id', 'text', rows, (row) => row.id),
      arrayColumn('container_id', 'text', rows, (row) => row.containerId),
      arrayColumn('at', 'timestamptz', rows, (row) => row.at.toISOString()),
      arrayColumn('hostname', 'text', rows, (row) => row.hostname),
      arrayColumn('method', 'text', rows, (row) => row.method),
      arrayColumn('path', 'text', rows, (row) => row.path),
      arrayColumn('status_code', 'int', rows, (row) => row.statusCode),
      arrayColumn('duration_ms', 'int', rows, (row) => row.durationMs),
      arrayColumn('upstream', 'text', rows, (row) => row.upstream ?? null),
      arrayColumn('upstream_ms', 'int', rows, (row) => row.upstreamMs ?? null),
    ]),
  );
}

/**
 * Of these containers, those with more than `keep` sampled logs, in one statement that reads at most `keep` + 1 index
 * entries of each: a flush touches thousands of containers when traffic is spread over a fleet, and most have fewer.
 */
export async function containersWithLogsBeyond(db: Db, containerIds: string[], keep: number): Promise<string[]> {
  if (containerIds.length === 0) return [];
  const result = await db.execute(sql`select batch.id from unnest(${sql.param(containerIds)}::text[]) as batch(id)
    where exists (select 1 from container_request_logs logs where logs.container_id = batch.id offset ${keep})`);
  return rowsOf<{ id: string }>(result).map((row) => row.id);
}

/**
 * Deletes up to `limit` of one container's sampled logs beyond its newest `keep` (an index range scan, not a pass
 * over the table); returns how many it deleted.
 */
export async function trimRequestLogs(db: Db, containerId: string, keep: number, limit: number): Promise<number> {
  const beyondNewest = db
    .select({ id: containerRequestLogs.id })
    .from(containerRequestLogs)
    .where(eq(containerRequestLogs.containerId, containerId))
    .orderBy(desc(containerRequestLogs.at), desc(containerRequestLogs.id))
    .offset(keep)
    .limit(limit);
  const deleted = await db
    .delete(containerRequestLogs)
    .where(and(eq(containerRequestLogs.containerId, containerId), inArray(containerRequestLogs.id, beyondNewest)))
    .returning({ id: containerRequestLogs.id });
  return deleted.length;
}

export interface RequestLogFilter {
  /** `2xx` … `5xx`. */
  statusClass?: string;
  pathPrefix?: string;
  from?: Date;
  to?: Date;
}

export async function listRequestLogs(db: Db, containerId: string, filter: RequestLogFilter, window: ListWindow) {
  const where = and(
    eq(containerRequestLogs.containerId, containerId),
    filter.statusClass ? statusClassIs(filter.statusClass) : undefined,
    filter.pathPrefix ? like(containerRequestLogs.path, `${escapeLike(filter.pathPrefix)}%`) : undefined,
    filter.from ? gte(containerRequestLogs.at, filter.from) : undefined,
    filter.to ? lt(containerRequestLogs.at, filter.to) : undefined,
  );
  const { rows, total } = await readList(
    db,
    window,
    {
      table: containerRequestLogs,
      scope: where,
      sortKey: containerRequestLogs.at,
      id: containerRequestLogs.id,
      descending: true,
    },
    (page) =>
      db
        .select()
        .from(containerRequestLogs)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
  return { rows, total };
}

function statusClassIs(statusClass: string): SQL {
  const hundreds = Number(statusClass[0]) * 100;
  return and(gte(containerRequestLogs.statusCode, hundreds), lt(containerRequestLogs.statusCode, hundreds + 100))!;
}

/** A LIKE pattern matching `text` literally (`%`, `_` and the escape character itself). */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

/** Requests per container on `day` (YYYY-MM-DD, UTC) and after. */
export async function requestsSince(db: Db, day: string): Promise<Array<{ containerId: string; requests: number }>> {
  return db
    .select({ containerId: containerUsage.containerId, requests: sql<number>`sum(${containerUsage.requests})::int` })
    .from(containerUsage)
    .where(gte(containerUsage.day, day))
    .groupBy(containerUsage.containerId);
}

/** Sampled request logs older than `before`, in batches (the gateway also keeps only the newest per container). */
export function deleteRequestLogsBefore(db: Db, before: Date, batches: BatchedDelete): Promise<number> {
  const { at } = containerRequestLogs;
  return deleteInBatches(db, containerRequestLogs, lt(at, before), at, batches);
}

/** Daily usage rows of days before `day` (YYYY-MM-DD), in batches. */
export function deleteUsageBefore(db: Db, day: string, batches: BatchedDelete): Promise<number> {
  return deleteInBatches(db, containerUsage, lt(containerUsage.day, day), containerUsage.day, batches);
}
