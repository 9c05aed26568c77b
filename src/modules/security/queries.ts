import { and, desc, eq, gt, isNull, or, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.js';
import { memberships, sessions, tenants, users } from '../../db/schema.js';

export async function findUser(db: Db, userId: string) {
  const rows = await db.select().from(users).where(eq(users.id, userId)).limit(1);
  return rows[0] ?? null;
}

export async function setPendingSecret(db: Db, userId: string, sealed: string | null) {
  await db.update(users).set({ totpPendingSealed: sealed }).where(eq(users.id, userId));
}

export async function enableTwoFactor(
  db: Db,
  userId: string,
  change: { sealed: string; step: number; recoveryCodeHashes: string[] },
) {
  await db
    .update(users)
    .set({
      totpSecretSealed: change.sealed,
      totpPendingSealed: null,
      totpEnabledAt: sql`now()`,
      totpLastStep: change.step,
      recoveryCodeHashes: change.recoveryCodeHashes,
    })
    .where(eq(users.id, userId));
}

export async function disableTwoFactor(db: Db, userId: string) {
  await db
    .update(users)
    .set({
      totpSecretSealed: null,
      totpPendingSealed: null,
      totpEnabledAt: null,
      totpLastStep: null,
      recoveryCodeHashes: [],
    })
    .where(eq(users.id, userId));
}

/** Records the time step a code was accepted for; false when it (or a later one) was used already: a replay. */
export async function takeTimeStep(db: Db, userId: string, step: number): Promise<boolean> {
  const rows = await db
    .update(users)
    .set({ totpLastStep: step })
    .where(and(eq(users.id, userId), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
    .returning({ id: users.id });
  return rows.length === 1;
}

/** Spends a recovery code once, also against a concurrent sign-in with the same code. */
export async function takeRecoveryCode(db: Db, userId: string, hash: string): Promise<boolean> {
  const rows = await db
    .update(users)
    .set({ recoveryCodeHashes: sql`${users.recoveryCodeHashes} - ${hash}::text` })
    .where(and(eq(users.id, userId), sql`${users.recoveryCodeHashes} @> jsonb_build_array(${hash}::text)`))
    .returning({ id: users.id });
  return rows.length === 1;
}

export async function requiredByAnyTenant(db: Db, userId: string): Promise<boolean> {
  const rows = await db
    .select({ id: tenants.id })
    .from(memberships)
    .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
    .where(and(eq(memberships.userId, userId), eq(tenants.requireTwoFactor, true), eq(tenants.status, 'active')))
    .limit(1);
  return rows.length > 0;
}

export async function markSessionTwoFactor(db: Db, sessionId: string) {
  await db.update(sessions).set({ twoFactor: true }).where(eq(sessions.id, sessionId));
}

export async function openSessions(db: Db, userId: string) {
  return db
    .select()
    .from(sessions)
    .where(and(eq(sessions.userId, userId), gt(sessions.expiresAt, sql`now()`)))
    .orderBy(desc(sessions.createdAt))
    .limit(100);
}

export async function deleteSession(db: Db, userId: string, sessionId: string): Promise<boolean> {
  const rows = await db
    .delete(sessions)
    .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId)))
    .returning({ id: sessions.id });
  return rows.length === 1;
}
