import type { Database, Db } from '../../db/index.js';
import type { AuthContext, Role } from '../../http/context.js';
import { requireRole } from '../../http/roles.js';
import type { AuthService } from '../auth/credentials.js';
import type { EventLog } from '../events/service.js';
import { MemberErrors } from './errors.js';
import * as queries from './queries.js';
import type { MemberDto } from './schemas.js';
import type { ListWindow } from '../../lib/list-window.js';

/** Who made a change, for the audit events. */
export const actorOf = (auth: AuthContext) => ({ actor_user_id: auth.userId, actor_api_key_id: auth.apiKeyId });

function toDto(row: queries.MemberRow): MemberDto {
  return {
    id: row.id,
    user_id: row.userId,
    email: row.email,
    name: row.name,
    role: row.role,
    two_factor: row.twoFactor,
    created_at: row.createdAt.toISOString(),
  };
}

/**
 * The people of a tenant and their roles. Only owners touch the owner role, and the last owner can be neither
 * demoted nor removed (checked under a lock on the owners, so two concurrent changes cannot both pass). Every
 * change is an audit event; a changed or removed member's sessions in the tenant are dropped on every instance.
 */
export class MemberService {
  private readonly database: Database;
  private readonly auth: AuthService;
  private readonly events: EventLog;

  constructor({ database, auth, events }: { database: Database; auth: AuthService; events: EventLog }) {
    this.database = database;
    this.auth = auth;
    this.events = events;
  }

  async list(tenantId: string, window: ListWindow) {
    const { rows, total } = await queries.listMembers(this.database.db, tenantId, window);
    return { results: rows.map(toDto), total };
  }

  async changeRole(auth: AuthContext, id: string, role: Role): Promise<MemberDto> {
    const member = await this.find(auth.tenantId, id);
    if (member.role === 'owner' || role === 'owner')
      requireRole(auth, 'owner', member.role === 'owner' ? "Changing an owner's role" : 'Granting the owner role');
    if (member.role === role) return toDto(member);
    await this.database.db.transaction(async (tx) => {
      await this.ownersKept(tx, auth.tenantId, id);
      await queries.setRole(tx, auth.tenantId, id, role);
    });
    // Sessions carry the role in the credential cache: drop them so the new role applies at once.
    for (const sessionId of await queries.sessionIdsIn(this.database.db, member.userId, auth.tenantId))
      await this.auth.invalidate({ kind: 'session', id: sessionId });
    await this.events.record(
      auth.tenantId,
      'member.role_changed',
      { type: 'membership', id },
      { user_id: member.userId, email: member.email, role, previous_role: member.role, ...actorOf(auth) },
    );
    return toDto({ ...member, role });
  }

  /** Removes the person from the tenant; their sessions in it stop working at once. */
  async remove(auth: AuthContext, id: string): Promise<MemberDto> {
    const member = await this.find(auth.tenantId, id);
    if (member.role === 'owner') requireRole(auth, 'owner', 'Removing an owner');
    const sessionIds = await this.database.db.transaction(async (tx) => {
      await this.ownersKept(tx, auth.tenantId, id);
      await queries.deleteMembership(tx, auth.tenantId, id);
      return queries.deleteSessionsIn(tx, member.userId, auth.tenantId);
    });
    for (const sessionId of sessionIds) await this.auth.invalidate({ kind: 'session', id: sessionId });
    await this.events.record(
      auth.tenantId,
      'member.removed',
      { type: 'membership', id },
      { user_id: member.userId, email: member.email, role: member.role, ...actorOf(auth) },
    );
    return toDto(member);
  }

  /** Refuses to take the last owner away; runs in the change's transaction, with the owners locked first. */
  private async ownersKept(tx: Db, tenantId: string, id: string): Promise<void> {
    const owners = await queries.lockOwners(tx, tenantId);
    if (owners.length <= 1 && owners.includes(id)) throw MemberErrors.lastOwner();
  }

  private async find(tenantId: string, id: string) {
    const member = await queries.findMember(this.database.db, tenantId, id);
    if (!member) throw MemberErrors.memberNotFound(id);
    return member;
  }
}
