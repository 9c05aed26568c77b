import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.js';
import { readList } from '../../db/keyset.js';
import { rowsOf } from '../../db/rows.js';
import {
  containers,
  type DelayedRequestRow,
  delayedRequests,
  type ScheduleRunRow,
  scheduleRuns,
} from '../../db/schema.js';
import type { ListWindow } from '../../lib/list-window.js';

export type NewDelayedRequest = typeof delayedRequests.$inferInsert;

/** Stores a held request unless its container already has `cap` pending; returns whether it was stored. */
export async function insertHeld(db: Db, row: NewDelayedRequest, cap: number): Promise<boolean> {
  const result = await db.execute(sql`
    insert into ${delayedRequests} (id, container_id, method, path, headers, body, delay_minutes, status, due_at, next_attempt_at)
    select ${row.id}, ${row.containerId}, ${row.method}, ${row.path}, ${JSON.stringify(row.headers)}::jsonb, ${row.body}::bytea,
           ${row.delayMinutes}, 'pending', ${row.dueAt.toISOString()}::timestamptz, ${row.dueAt.toISOString()}::timestamptz
     where (select count(*) from (select 1 from ${delayedRequests}
              where container_id = ${row.containerId} and status = 'pending' limit ${cap}) as held) < ${cap}
    returning id`);
  return rowsOf(result).length === 1;
}

/** A claimed delayed request with where it goes. */
export interface ClaimedRequest {
  id: string;
  method: string;
  path: string;
  headers: string[];
  body: Buffer;
  delayMinutes: number;
  dueAt: Date;
  attempts: number;
  hostname: string;
}

/** A claimed row as the raw statement returns it: jsonb may come back as text, bytea as bytes, numbers as text. */
interface ClaimedRow {
  id: string;
  method: string;
  path: string;
  headers: string[] | string;
  body: Uint8Array;
  delay_minutes: number | string;
  due_at: string | Date;
  attempts: number | string;
  default_hostname: string;
}

/**
 * Claims up to `limit` pending requests due at `now`: each one's next attempt moves to `now + leaseMs` and its attempts
 * count up, so that another worker takes it only if this one died before settling it. SKIP LOCKED: concurrent claims
 * take disjoint rows.
 */
export async function claimDue(db: Db, now: Date, leaseMs: number, limit: number): Promise<ClaimedRequest[]> {
  const at = now.toISOString();
  const result = await db.execute(sql`
    with due as (
      select id from ${delayedRequests}
       where status = 'pending' and next_attempt_at <= ${at}::timestamptz
       order by next_attempt_at limit ${limit}
         for update skip locked)
    update ${delayedRequests} d
       set next_attempt_at = ${at}::timestamptz + make_interval(secs => ${leaseMs / 1000}), attempts = d.attempts + 1
      from due, ${containers} c
     where d.id = due.id and c.id = d.container_id
    returning d.id, d.method, d.path, d.headers, d.body, d.delay_minutes, d.due_at, d.attempts, c.default_hostname`);
  return rowsOf<ClaimedRow>(result).map((row) => ({
    id: row.id,
    method: row.method,
    path: row.path,
    headers: typeof row.headers === 'string' ? (JSON.parse(row.headers) as string[]) : row.headers,
    body: Buffer.from(row.body),
    delayMinutes: Number(row.delay_minutes),
    dueAt: new Date(row.due_at),
    attempts: Number(row.attempts),
    hostname: row.default_hostname,
  }));
}

/** Settles an attempt: delivered, failed for good, or pending again until `retryAt`. */
export async function settle(
  db: Db,
  id: string,
  outcome: { status: 'delivered' | 'failed' | 'pending'; httpStatus: number | null; error: string | null },
  at: Date,
  retryAt: Date | null,
): Promise<void> {
  await db
    .update(delayedRequests)
    .set({
      status: outcome.status,
      httpStatus: outcome.httpStatus,
      error: outcome.error,
      ...(outcome.status === 'pending' ? { nextAttemptAt: retryAt ?? at } : { finishedAt: at }),
    })
    .where(and(eq(delayedRequests.id, id), eq(delayedRequests.status, 'pending')));
}

/** Deletes up to `limit` settled requests of `status` finished before `before`; returns how many. */
export async function deleteSettled(db: Db, status: string, before: Date, limit: number): Promise<number> {
  const result = await db.execute(sql`
    delete from ${delayedRequests} where id in (
      select id from ${delayedRequests} where status = ${status} and finished_at < ${before.toISOString()}::timestamptz
      limit ${limit})
    returning 1`);
  return rowsOf(result).length;
}

export function listDelayed(
  db: Db,
  containerId: string,
  status: DelayedRequestRow['status'] | undefined,
  window: ListWindow,
) {
  const where = and(
    eq(delayedRequests.containerId, containerId),
    status ? eq(delayedRequests.status, status) : undefined,
  );
  return readList(
    db,
    window,
    {
      table: delayedRequests,
      scope: where,
      sortKey: delayedRequests.createdAt,
      id: delayedRequests.id,
      descending: true,
    },
    (page) =>
      db
        .select({
          id: delayedRequests.id,
          method: delayedRequests.method,
          path: delayedRequests.path,
          bodyBytes: sql<number>`octet_length(${delayedRequests.body})`,
          bodyStart: sql<Buffer>`substring(${delayedRequests.body} from 1 for 64)`,
          delayMinutes: delayedRequests.delayMinutes,
          status: delayedRequests.status,
          dueAt: delayedRequests.dueAt,
          attempts: delayedRequests.attempts,
          httpStatus: delayedRequests.httpStatus,
          error: delayedRequests.error,
          finishedAt: delayedRequests.finishedAt,
          createdAt: delayedRequests.createdAt,
        })
        .from(delayedRequests)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
}

/** Running containers with at least one scheduled request, with their default hostname and settings. */
export function scheduledContainers(db: Db) {
  return db
    .select({ id: containers.id, hostname: containers.defaultHostname, settings: containers.settings })
    .from(containers)
    .where(
      and(
        eq(containers.status, 'running'),
        sql`jsonb_array_length(coalesce(${containers.settings} -> 'schedule' -> 'requests', '[]'::jsonb)) > 0`,
      ),
    );
}

/** Records that a schedule's run for `dueAt` starts; false when a run for it exists already (another worker's). */
export async function startRun(db: Db, run: typeof scheduleRuns.$inferInsert): Promise<boolean> {
  const inserted = await db.insert(scheduleRuns).values(run).onConflictDoNothing().returning({ id: scheduleRuns.id });
  return inserted.length === 1;
}

export async function finishRun(
  db: Db,
  id: string,
  outcome: { status: ScheduleRunRow['status']; httpStatus: number | null; error: string | null; durationMs: number },
): Promise<void> {
  await db.update(scheduleRuns).set(outcome).where(eq(scheduleRuns.id, id));
}

/** Keeps the newest `keep` runs of a schedule. */
export async function trimRuns(db: Db, containerId: string, name: string, keep: number): Promise<void> {
  const older = db
    .select({ id: scheduleRuns.id })
    .from(scheduleRuns)
    .where(and(eq(scheduleRuns.containerId, containerId), eq(scheduleRuns.scheduleName, name)))
    .orderBy(sql`${scheduleRuns.dueAt} desc`)
    .offset(keep);
  await db.delete(scheduleRuns).where(inArray(scheduleRuns.id, older));
}

/** Runs still `running` that started before `before`: their worker stopped mid-request; they are failed. */
export async function failAbandonedRuns(db: Db, before: Date): Promise<void> {
  await db
    .update(scheduleRuns)
    .set({ status: 'failed', error: 'The worker sending it stopped before an answer came.' })
    .where(and(eq(scheduleRuns.status, 'running'), lt(scheduleRuns.startedAt, before)));
}

/** Deletes runs started before `before` (those of schedules since renamed or removed are trimmed by nothing else). */
export async function deleteOldRuns(db: Db, before: Date): Promise<void> {
  await db.delete(scheduleRuns).where(lt(scheduleRuns.startedAt, before));
}

export function listRuns(db: Db, containerId: string, name: string | undefined, window: ListWindow) {
  const where = and(eq(scheduleRuns.containerId, containerId), name ? eq(scheduleRuns.scheduleName, name) : undefined);
  return readList(
    db,
    window,
    { table: scheduleRuns, scope: where, sortKey: scheduleRuns.startedAt, id: scheduleRuns.id, descending: true },
    (page) =>
      db
        .select()
        .from(scheduleRuns)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
}
