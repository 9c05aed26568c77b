import { and, count, eq, gt, inArray, lt, min, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.js';
import { CommonCodes } from '../../lib/errors.js';
import { scans, tenants, type ScanRow } from '../../db/schema.js';
import { TrackingCheckerErrors } from './errors.js';
import { readList } from '../../db/keyset.js';
import type { ListWindow } from '../../lib/list-window.js';

export interface QuotaUsage {
  used: number;
  oldest: Date | null;
}

export const INTERRUPTED = 'interrupted';
/**
 * Stored with a scan whose target the network guard refused (an asynchronous one: a synchronous one is deleted):
 * the same code as the API's error, `CommonCodes.urlNotAllowed`.
 */
export const REFUSED = CommonCodes.urlNotAllowed.code;

/**
 * Every scan of the window counts, except those that did no complete work: one interrupted by a crash, one refused
 * by the network guard, one whose page could not be loaded (422 target_unreachable), and a partial one (its browser
 * stage produced nothing: `partial` in the result). They give their slot back.
 */
const countsTowardQuota = sql`coalesce(${scans.error} ->> 'code', '') not in (${INTERRUPTED}, ${REFUSED}, ${TrackingCheckerErrors.targetUnreachable.code}) and (${scans.result} -> 'partial') is null`;

export type ScanFailure = NonNullable<ScanRow['error']>;

/** The scans of the last hour that count toward the tenant's quota. */
export async function quotaUsage(db: Pick<Db, 'select'>, tenantId: string): Promise<QuotaUsage> {
  const [usage] = await db
    .select({ used: count(), oldest: min(scans.createdAt) })
    .from(scans)
    .where(and(eq(scans.tenantId, tenantId), gt(scans.createdAt, sql`now() - interval '1 hour'`), countsTowardQuota));
  return { used: usage.used, oldest: usage.oldest ? new Date(usage.oldest) : null };
}

/**
 * Reserves a scan slot exactly: the tenant row is locked, the scans of the last hour are counted and the
 * new scan row is inserted in one transaction, so parallel requests cannot both take the last slot.
 */
export async function reserveScan(
  db: Db,
  row: typeof scans.$inferInsert,
  hourlyQuota: number,
): Promise<{ reserved: boolean; usage: QuotaUsage }> {
  return db.transaction(async (tx) => {
    await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, row.tenantId)).for('update');
    const current = await quotaUsage(tx, row.tenantId);
    if (current.used >= hourlyQuota) return { reserved: false, usage: current };
    await tx.insert(scans).values(row);
    return { reserved: true, usage: { used: current.used + 1, oldest: current.oldest ?? new Date() } };
  });
}

export async function completeScan(db: Db, id: string, result: NonNullable<ScanRow['result']>): Promise<void> {
  await db
    .update(scans)
    .set({ status: 'completed', stage: null, result, completedAt: sql`now()` })
    .where(eq(scans.id, id));
}

export async function failScan(db: Db, id: string, error: ScanFailure): Promise<void> {
  await db.update(scans).set({ status: 'failed', stage: null, error, completedAt: sql`now()` }).where(eq(scans.id, id));
}

/** Takes a queued scan to running; also a running one whose worker died (its job is retried). Null: already ended. */
export async function startScan(db: Db, id: string): Promise<ScanRow | null> {
  const rows = await db
    .update(scans)
    .set({ status: 'running', stage: 'scanning', startedAt: sql`now()` })
    .where(and(eq(scans.id, id), inArray(scans.status, ['queued', 'running'])))
    .returning();
  return rows[0] ?? null;
}

export async function setScanStage(db: Db, id: string, stage: NonNullable<ScanRow['stage']>): Promise<void> {
  await db
    .update(scans)
    .set({ stage })
    .where(and(eq(scans.id, id), eq(scans.status, 'running')));
}

export async function findScanById(db: Db, id: string): Promise<ScanRow | null> {
  const rows = await db.select().from(scans).where(eq(scans.id, id)).limit(1);
  return rows[0] ?? null;
}

/**
 * Marks scans still `running` after `olderThanMs` (by the database clock) as failed: the process running them is
 * gone. Each row is taken by one caller only, also with several instances sweeping at once.
 */
export async function failStaleScans(db: Db, olderThanMs: number, error: { code: string; message: string }) {
  return db
    .update(scans)
    .set({ status: 'failed', error, completedAt: sql`now()` })
    .where(
      and(
        eq(scans.status, 'running'),
        lt(
          sql`coalesce(${scans.startedAt}, ${scans.createdAt})`,
          sql`now() - ${`${olderThanMs} milliseconds`}::interval`,
        ),
      ),
    )
    .returning({ id: scans.id, tenantId: scans.tenantId, url: scans.url });
}

/** A refused target did no work: its reservation is given back. */
export async function releaseScan(db: Db, id: string): Promise<void> {
  await db.delete(scans).where(eq(scans.id, id));
}

export async function listScans(db: Db, tenantId: string, window: ListWindow) {
  const where = eq(scans.tenantId, tenantId);
  const { rows, total } = await readList(
    db,
    window,
    { table: scans, scope: where, sortKey: scans.createdAt, id: scans.id, descending: true },
    (page) =>
      db
        .select({
          id: scans.id,
          url: scans.url,
          language: scans.language,
          options: scans.options,
          status: scans.status,
          stage: scans.stage,
          error: scans.error,
          createdAt: scans.createdAt,
          completedAt: scans.completedAt,
          trackerCount: sql<number | null>`jsonb_array_length(${scans.result} -> 'trackers')`,
        })
        .from(scans)
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
  return { rows, total };
}

export async function findScan(db: Db, tenantId: string, id: string): Promise<ScanRow | null> {
  const rows = await db
    .select()
    .from(scans)
    .where(and(eq(scans.id, id), eq(scans.tenantId, tenantId)))
    .limit(1);
  return rows[0] ?? null;
}
