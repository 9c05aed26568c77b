import { aliasedTable, and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/index.js';
import { invitations, memberships, sessions, tenants, users } from '../../db/schema.js';
import type { Role } from '../../http/context.js';
import { readList } from '../../db/keyset.js';
import type { ListWindow } from '../../lib/list-window.js';

const memberColumns = {
  id: memberships.id,
  userId: memberships.userId,
  role: memberships.role,
  createdAt: memberships.createdAt,
  email: users.email,
  name: users.name,
  twoFactor: sql<boolean>`${users.totpSecretSealed} is not null`,
};

export type MemberRow = {
  id: string;
  userId: string;
  role: Role;
  createdAt: Date;
  email: string;
  name: string;
  twoFactor: boolean;
};

export async function listMembers(
  db: Db,
  tenantId: string,
  window: ListWindow,
): Promise<{ rows: MemberRow[]; total: number }> {
  const where = eq(memberships.tenantId, tenantId);
  const { rows, total } = await readList(
    db,
    window,
    { table: memberships, scope: where, sortKey: memberships.createdAt, id: memberships.id, descending: false },
    (page) =>
      db
        .select(memberColumns)
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
  return { rows, total };
}

export async function findMember(db: Db, tenantId: string, id: string): Promise<MemberRow | null> {
  const rows = await db
    .select(memberColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

/** The tenant's owner memberships, locked until the transaction ends: two demotions cannot both see another owner. */
export async function lockOwners(tx: Db, tenantId: string): Promise<string[]> {
  const rows = await tx
    .select({ id: memberships.id })
    .from(memberships)
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.role, 'owner')))
    .for('update');
  return rows.map((row) => row.id);
}

export async function setRole(tx: Db, tenantId: string, id: string, role: Role) {
  await tx
    .update(memberships)
    .set({ role })
    .where(and(eq(memberships.tenantId, tenantId), eq(memberships.id, id)));
}

export async function deleteMembership(tx: Db, tenantId: string, id: string) {
  await tx.delete(memberships).where(and(eq(memberships.tenantId, tenantId), eq(memberships.id, id)));
}

/** Ends the user's sessions in the tenant; answers their ids, so caches can drop them. */
export async function deleteSessionsIn(tx: Db, userId: string, tenantId: string): Promise<string[]> {
  const rows = await tx
    .delete(sessions)
    .where(and(eq(sessions.userId, userId), eq(sessions.tenantId, tenantId)))
    .returning({ id: sessions.id });
  return rows.map((row) => row.id);
}

export async function sessionIdsIn(db: Db, userId: string, tenantId: string): Promise<string[]> {
  const rows = await db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.userId, userId), eq(sessions.tenantId, tenantId)));
  return rows.map((row) => row.id);
}

export async function isMemberByEmail(db: Db, tenantId: string, email: string): Promise<boolean> {
  const rows = await db
    .select({ id: memberships.id })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.tenantId, tenantId), eq(users.email, email)))
    .limit(1);
  return rows.length > 0;
}

export async function findUserByEmail(db: Db, email: string) {
  const rows = await db.select().from(users).where(eq(users.email, email)).limit(1);
  return rows[0] ?? null;
}

export async function findUserName(db: Db, userId: string): Promise<string | null> {
  const rows = await db.select({ name: users.name }).from(users).where(eq(users.id, userId)).limit(1);
  return rows[0]?.name ?? null;
}

export async function tenantName(db: Db, tenantId: string): Promise<string | null> {
  const rows = await db.select({ name: tenants.name }).from(tenants).where(eq(tenants.id, tenantId)).limit(1);
  return rows[0]?.name ?? null;
}

const inviter = aliasedTable(users, 'inviter');
const invitationColumns = {
  id: invitations.id,
  tenantId: invitations.tenantId,
  email: invitations.email,
  role: invitations.role,
  createdAt: invitations.createdAt,
  expiresAt: invitations.expiresAt,
  acceptedAt: invitations.acceptedAt,
  revokedAt: invitations.revokedAt,
  invitedByName: inviter.name,
};

export type InvitationRow = {
  id: string;
  tenantId: string;
  email: string;
  role: Role;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
  invitedByName: string | null;
};

export async function insertInvitation(db: Db, row: typeof invitations.$inferInsert) {
  await db.insert(invitations).values(row);
}

/** Revokes the pending invitations to an address (a new invitation replaces them); answers their ids. */
export async function revokePendingFor(db: Db, tenantId: string, email: string): Promise<string[]> {
  const rows = await db
    .update(invitations)
    .set({ revokedAt: sql`now()` })
    .where(
      and(
        eq(invitations.tenantId, tenantId),
        eq(invitations.email, email),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
        gt(invitations.expiresAt, sql`now()`),
      ),
    )
    .returning({ id: invitations.id });
  return rows.map((row) => row.id);
}

export async function listInvitations(
  db: Db,
  tenantId: string,
  window: ListWindow,
): Promise<{ rows: InvitationRow[]; total: number }> {
  const where = eq(invitations.tenantId, tenantId);
  const { rows, total } = await readList(
    db,
    window,
    { table: invitations, scope: where, sortKey: invitations.createdAt, id: invitations.id, descending: true },
    (page) =>
      db
        .select(invitationColumns)
        .from(invitations)
        .leftJoin(inviter, eq(inviter.id, invitations.invitedBy))
        .where(page.where)
        .orderBy(...page.orderBy)
        .limit(page.limit)
        .offset(page.offset),
  );
  return { rows, total };
}

export async function findInvitation(db: Db, tenantId: string, id: string): Promise<InvitationRow | null> {
  const rows = await db
    .select(invitationColumns)
    .from(invitations)
    .leftJoin(inviter, eq(inviter.id, invitations.invitedBy))
    .where(and(eq(invitations.tenantId, tenantId), eq(invitations.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

/** Revokes one invitation if it is still pending; false when it was not. */
export async function revokeInvitation(db: Db, tenantId: string, id: string): Promise<boolean> {
  const rows = await db
    .update(invitations)
    .set({ revokedAt: sql`now()` })
    .where(
      and(
        eq(invitations.tenantId, tenantId),
        eq(invitations.id, id),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
      ),
    )
    .returning({ id: invitations.id });
  return rows.length === 1;
}

export async function findInvitationByHash(db: Db, tokenHash: string) {
  const rows = await db
    .select({ ...invitationColumns, tenantName: tenants.name, tenantStatus: tenants.status })
    .from(invitations)
    .innerJoin(tenants, eq(tenants.id, invitations.tenantId))
    .leftJoin(inviter, eq(inviter.id, invitations.invitedBy))
    .where(eq(invitations.tokenHash, tokenHash))
    .limit(1);
  return (rows[0] as (InvitationRow & { tenantName: string; tenantStatus: string }) | undefined) ?? null;
}

/** Marks a pending, unexpired invitation accepted by the user; false when another request took it first. */
export async function claimInvitation(tx: Db, id: string, userId: string): Promise<boolean> {
  const rows = await tx
    .update(invitations)
    .set({ acceptedAt: sql`now()`, acceptedBy: userId })
    .where(
      and(
        eq(invitations.id, id),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
        gt(invitations.expiresAt, sql`now()`),
      ),
    )
    .returning({ id: invitations.id });
  return rows.length === 1;
}

export async function insertUser(tx: Db, row: typeof users.$inferInsert): Promise<boolean> {
  const rows = await tx.insert(users).values(row).onConflictDoNothing().returning({ id: users.id });
  return rows.length === 1;
}

export async function insertMembership(tx: Db, row: typeof memberships.$inferInsert): Promise<boolean> {
  const rows = await tx.insert(memberships).values(row).onConflictDoNothing().returning({ id: memberships.id });
  return rows.length === 1;
}
