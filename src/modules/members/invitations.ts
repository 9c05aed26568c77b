import { randomBytes } from 'node:crypto';
import type { Database } from '../../db/index.js';
import type { AuthContext } from '../../http/context.js';
import { requireRole } from '../../http/roles.js';
import { newId } from '../../lib/ids.js';
import type { Mailer } from '../../lib/mail.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import { sha256Hex } from '../../lib/tokens.js';
import { AuthErrors } from '../auth/errors.js';
import { assertStrongPassword, normaliseEmail } from '../auth/policy.js';
import type { EventLog } from '../events/service.js';
import { MemberErrors } from './errors.js';
import * as queries from './queries.js';
import type {
  AcceptedInvitationDto,
  CreatedInvitationDto,
  InvitationDto,
  InvitationPreviewDto,
  InvitationStatus,
} from './schemas.js';
import { actorOf } from './service.js';
import type { ListWindow } from '../../lib/list-window.js';

const TOKEN_PREFIX = 'tgi_';
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;

function statusOf(row: queries.InvitationRow, now = Date.now()): InvitationStatus {
  if (row.acceptedAt) return 'accepted';
  if (row.revokedAt) return 'revoked';
  return row.expiresAt.getTime() <= now ? 'expired' : 'pending';
}

function toDto(row: queries.InvitationRow): InvitationDto {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    status: statusOf(row),
    invited_by: row.invitedByName,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    accepted_at: row.acceptedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

/**
 * Invitations to a tenant: a link with a random token (only its SHA-256 is stored) that works once, for 7 days,
 * unless revoked. Accepting makes an account for a new address or asks an existing account for its password.
 */
export class InvitationService {
  private readonly database: Database;
  private readonly events: EventLog;
  private readonly mailer: Mailer;

  constructor({ database, events, mailer }: { database: Database; events: EventLog; mailer: Mailer }) {
    this.database = database;
    this.events = events;
    this.mailer = mailer;
  }

  /**
   * Invites `email` to the tenant the request acts for. The link is emailed only with PUBLIC_BASE_URL (`publicBaseUrl`):
   * a link in mail never comes from the request's Host. Without it the inviter gets the link, on the origin they used,
   * to share themselves.
   */
  async create(
    auth: AuthContext,
    input: { email: string; role: InvitationDto['role'] },
    links: { publicBaseUrl: string | null; requestOrigin: string },
  ): Promise<CreatedInvitationDto> {
    if (input.role === 'owner') requireRole(auth, 'owner', 'Inviting an owner');
    const db = this.database.db;
    const email = normaliseEmail(input.email);
    if (await queries.isMemberByEmail(db, auth.tenantId, email)) throw MemberErrors.alreadyMember(email);
    const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const id = newId('invitation');
    for (const replaced of await queries.revokePendingFor(db, auth.tenantId, email))
      await this.record(auth, 'member.invitation_revoked', replaced, { email, replaced_by: id });
    await queries.insertInvitation(db, {
      id,
      tenantId: auth.tenantId,
      email,
      role: input.role,
      tokenHash: sha256Hex(token),
      invitedBy: auth.userId,
      expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
    });
    await this.record(auth, 'member.invited', id, { email, role: input.role });
    const row = (await queries.findInvitation(db, auth.tenantId, id))!;
    const accept_url = `${links.publicBaseUrl ?? links.requestOrigin}/invite/${token}`;
    if (links.publicBaseUrl === null) return { ...toDto(row), accept_url, email_sent: false };
    const outcome = await this.mailer.send(await this.invitationMail(auth.tenantId, row, accept_url));
    return { ...toDto(row), accept_url, email_sent: outcome.sent };
  }

  async list(tenantId: string, window: ListWindow) {
    const { rows, total } = await queries.listInvitations(this.database.db, tenantId, window);
    return { results: rows.map(toDto), total };
  }

  /** Withdraws a pending invitation: its link stops working at once. */
  async revoke(auth: AuthContext, id: string): Promise<InvitationDto> {
    const db = this.database.db;
    const row = await queries.findInvitation(db, auth.tenantId, id);
    if (!row) throw MemberErrors.invitationNotFound(id);
    if (row.role === 'owner') requireRole(auth, 'owner', 'Revoking an invitation to the owner role');
    const status = statusOf(row);
    if (status !== 'pending' || !(await queries.revokeInvitation(db, auth.tenantId, id)))
      throw MemberErrors.invitationNotPending(status === 'pending' ? 'no longer pending' : status);
    await this.record(auth, 'member.invitation_revoked', id, { email: row.email, role: row.role });
    return toDto((await queries.findInvitation(db, auth.tenantId, id))!);
  }

  /** What a link offers, for the acceptance page; refuses links that no longer work and says why. */
  async preview(token: string): Promise<InvitationPreviewDto> {
    const invitation = await this.pendingByToken(token);
    const account = await queries.findUserByEmail(this.database.db, invitation.email);
    return {
      tenant_name: invitation.tenantName,
      email: invitation.email,
      role: invitation.role,
      expires_at: invitation.expiresAt.toISOString(),
      account_exists: account !== null,
    };
  }

  /**
   * Accepts once: a new address gets an account with `name` and `password`; an existing account confirms with its
   * password. Claiming the invitation, creating the account and the membership are one transaction.
   */
  async accept(input: { token: string; name?: string; password: string }): Promise<AcceptedInvitationDto> {
    const invitation = await this.pendingByToken(input.token);
    const db = this.database.db;
    const existing = await queries.findUserByEmail(db, invitation.email);
    let newUser: { id: string; name: string; passwordHash: string } | null = null;
    if (existing) {
      if (!(await verifyPassword(input.password, existing.passwordHash))) throw MemberErrors.incorrectPassword();
    } else {
      const name = input.name?.trim();
      if (!name) throw MemberErrors.nameRequired();
      assertStrongPassword(input.password);
      newUser = { id: newId('user'), name, passwordHash: await hashPassword(input.password) };
    }
    const userId = existing?.id ?? newUser!.id;
    const membershipId = newId('membership');
    await db.transaction(async (tx) => {
      if (newUser && !(await queries.insertUser(tx, { ...newUser, email: invitation.email })))
        throw AuthErrors.emailTaken(invitation.email);
      if (!(await queries.claimInvitation(tx, invitation.id, userId))) throw MemberErrors.invitationUsed();
      const joined = await queries.insertMembership(tx, {
        id: membershipId,
        userId,
        tenantId: invitation.tenantId,
        role: invitation.role,
      });
      if (!joined) throw MemberErrors.alreadyMember(invitation.email);
    });
    await this.events.record(
      invitation.tenantId,
      'member.joined',
      { type: 'membership', id: membershipId },
      { user_id: userId, email: invitation.email, role: invitation.role, invitation_id: invitation.id },
    );
    return {
      tenant_id: invitation.tenantId,
      tenant_name: invitation.tenantName,
      user_id: userId,
      email: invitation.email,
      role: invitation.role,
      account_created: newUser !== null,
    };
  }

  private async pendingByToken(token: string) {
    const invitation = token.startsWith(TOKEN_PREFIX)
      ? await queries.findInvitationByHash(this.database.db, sha256Hex(token))
      : null;
    if (invitation?.tenantStatus !== 'active') throw MemberErrors.invitationNotFound();
    const status = statusOf(invitation);
    if (status === 'accepted') throw MemberErrors.invitationUsed();
    if (status === 'revoked') throw MemberErrors.invitationRevoked();
    if (status === 'expired') throw MemberErrors.invitationExpired();
    return invitation;
  }

  private async invitationMail(tenantId: string, row: queries.InvitationRow, url: string) {
    const tenant = (await queries.tenantName(this.database.db, tenantId)) ?? 'a tenant';
    const who = row.invitedByName ?? 'Someone';
    return {
      to: row.email,
      subject: `${who} invited you to ${tenant} on Tagport`,
      paragraphs: [
        `${who} invited you to join ${tenant} on Tagport as ${row.role === 'admin' ? 'an admin' : `a ${row.role}`}.`,
        `The link works once and until ${row.expiresAt.toUTCString()}.`,
      ],
      action: { label: 'Accept the invitation', url },
      footer: 'If you did not expect this invitation, you can ignore this email.',
    };
  }

  private async record(
    auth: AuthContext,
    type: 'member.invited' | 'member.invitation_revoked',
    id: string,
    data: object,
  ) {
    await this.events.record(auth.tenantId, type, { type: 'invitation', id }, { ...data, ...actorOf(auth) });
  }
}
