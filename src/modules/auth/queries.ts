import { and, eq, gt, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.js';
import { prepareOnce } from '../../db/prepared.js';
import { memberships, sessions, setupTokens, tenants, users } from '../../db/schema.js';
import type { Role } from '../../http/context.js';

export type UserRow = typeof users.$inferSelect;

export interface SessionCredential {
  sessionId: string;
  userId: string;
  tenantId: string;
  tenantStatus: string;
  role: Role;
  expiresAt: Date;
  /** The tenant requires two-factor sign-in and the user has not set it up. */
  enrollmentRequired: boolean;
}

const sessionByHash = prepareOnce((db) =>
  db
    .select({
      sessionId: sessions.id,
      userId: sessions.userId,
      tenantId: sessions.tenantId,
      tenantStatus: tenants.status,
      role: memberships.role,
      expiresAt: sessions.expiresAt,
      enrollmentRequired: sql<boolean>`${tenants.requireTwoFactor} and ${users.totpSecretSealed} is null`,
    })
    .from(sessions)
    .innerJoin(tenants, eq(tenants.id, sessions.tenantId))
    .innerJoin(users, eq(users.id, sessions.userId))
    .innerJoin(memberships, and(eq(memberships.userId, sessions.userId), eq(memberships.tenantId, sessions.tenantId)))
    .where(and(eq(sessions.tokenHash, sql.placeholder('tokenHash')), gt(sessions.expiresAt, sql`now()`)))
    .limit(1)
    .prepare('session_credential_by_hash'),
);

/** The live session behind a cookie token's hash, read on every request its credential is not cached. */
export async function findSessionByHash(db: Db, tokenHash: string): Promise<SessionCredential | null> {
  const [row] = await sessionByHash(db).execute({ tokenHash });
  return row;
}

export async function findUserByEmail(db: Db, email: string) {
  const rows = await db.select().from(users).where(eq(users.email, email)).limit(1);
  return rows[0] ?? null;
}

export async function membershipsOf(db: Db, userId: string) {
  return db
    .select({
      tenantId: memberships.tenantId,
      role: memberships.role,
      tenantName: tenants.name,
      tenantStatus: tenants.status,
    })
    .from(memberships)
    .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
    .where(eq(memberships.userId, userId))
    .orderBy(memberships.createdAt);
}

export async function insertSession(db: Db, row: typeof sessions.$inferInsert) {
  await db.insert(sessions).values(row);
}

export async function deleteSession(db: Db, sessionId: string) {
  await db.delete(sessions).where(eq(sessions.id, sessionId));
}

export async function anyUser(db: Db): Promise<boolean> {
  const rows = await db.select({ id: users.id }).from(users).limit(1);
  return rows.length > 0;
}

export async function anyTenant(db: Db): Promise<boolean> {
  const rows = await db.select({ id: tenants.id }).from(tenants).limit(1);
  return rows.length > 0;
}

/** Stores a set-up token's hash and drops expired ones. */
export async function insertSetupToken(db: Db, row: typeof setupTokens.$inferInsert) {
  await db.delete(setupTokens).where(lte(setupTokens.expiresAt, sql`now()`));
  await db.insert(setupTokens).values(row);
}

export async function isValidSetupToken(db: Db, tokenHash: string): Promise<boolean> {
  const rows = await db
    .select({ tokenHash: setupTokens.tokenHash })
    .from(setupTokens)
    .where(and(eq(setupTokens.tokenHash, tokenHash), gt(setupTokens.expiresAt, sql`now()`)))
    .limit(1);
  return rows.length > 0;
}

/** Once set-up has happened every token is spent. */
export async function deleteSetupTokens(db: Db) {
  await db.delete(setupTokens);
}

export async function findUser(db: Db, userId: string) {
  const rows = await db.select().from(users).where(eq(users.id, userId)).limit(1);
  return rows[0] ?? null;
}

const failedCodesWindowOpen = (windowSeconds: number) =>
  sql`${users.failedCodesSince} >= now() - make_interval(secs => ${windowSeconds})`;

/**
 * Counts a wrong two-factor code at sign-in for the account, in the database so that every IP and instance adds to
 * the same count: a window starts with the first failure and lasts `windowSeconds`.
 */
export async function countFailedCode(db: Db, userId: string, windowSeconds: number): Promise<void> {
  const open = failedCodesWindowOpen(windowSeconds);
  await db
    .update(users)
    .set({
      failedCodes: sql`case when ${open} then ${users.failedCodes} + 1 else 1 end`,
      failedCodesSince: sql`case when ${open} then ${users.failedCodesSince} else now() end`,
    })
    .where(eq(users.id, userId));
}

export async function clearFailedCodes(db: Db, userId: string): Promise<void> {
  await db.update(users).set({ failedCodes: 0, failedCodesSince: null }).where(eq(users.id, userId));
}
