import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Database } from '../../db/index.js';
import { memberships, tenants, users } from '../../db/schema.js';
import type { AuthService } from '../../http/auth.js';
import type { LimiterFactory } from '../../http/rate-limit.js';
import type { Role } from '../../http/context.js';
import { ApiError, conflict, invalidRequest, notFound, unauthenticated } from '../../http/errors.js';
import { newId } from '../../lib/ids.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import { sha256Hex } from '../../lib/tokens.js';
import * as queries from './queries.js';

const LOGIN_ATTEMPTS = 10;
// Advisory lock key that serialises first-run set-ups (an arbitrary constant of our own).
const SETUP_LOCK = 7_301_455_211;
const LOGIN_WINDOW_SECONDS = 15 * 60;
// Compared against when the email is unknown, so both paths take the same time.
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

function assertStrongPassword(password: string): void {
  if (password.length < 12) throw invalidRequest('weak_password', 'Passwords need at least 12 characters.', 'password');
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export class UserService {
  /** Failed sign-ins per email and IP; in Redis when configured, so every instance counts the same attempts. */
  private readonly failedLogins: RateLimiterAbstract;

  constructor(
    private readonly database: Database,
    private readonly auth: AuthService,
    private readonly sessionTtlHours: number,
    createLimiter: LimiterFactory,
  ) {
    this.failedLogins = createLimiter('login', LOGIN_ATTEMPTS, LOGIN_WINDOW_SECONDS);
  }

  /** True while the database has no users: the first-run set-up page is open. */
  async needsSetup(): Promise<boolean> {
    return !(await queries.anyUser(this.database.db));
  }

  /**
   * First-run set-up: the first tenant and its owner. Refused (409) once any user exists. The check and the
   * inserts run in one transaction under an advisory lock, so of two simultaneous set-ups (on any instances)
   * exactly one succeeds.
   */
  async setup(input: { organisation: string; plan?: string; name: string; email: string; password: string }) {
    assertStrongPassword(input.password);
    const passwordHash = await hashPassword(input.password);
    const tenantId = newId('tenant');
    const userId = newId('user');
    await this.database.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${SETUP_LOCK})`);
      if ((await tx.select({ id: users.id }).from(users).limit(1)).length > 0) throw conflict('already_set_up', 'Tagport is already set up; sign in instead.');
      await tx.insert(tenants).values({ id: tenantId, name: input.organisation.trim(), planId: input.plan ?? 'agency' });
      await tx.insert(users).values({ id: userId, email: normaliseEmail(input.email), name: input.name.trim(), passwordHash });
      await tx.insert(memberships).values({ id: newId('membership'), userId, tenantId, role: 'owner' });
    });
    return { tenant_id: tenantId, user_id: userId };
  }

  async createUser(input: { email: string; name: string; password: string; tenantId: string; role: Role }) {
    assertStrongPassword(input.password);
    const email = normaliseEmail(input.email);
    const db = this.database.db;
    const userId = (await queries.findUserByEmail(db, email))?.id ?? newId('user');
    const passwordHash = await hashPassword(input.password);
    await db.transaction(async (tx) => {
      await tx.insert(users).values({ id: userId, email, name: input.name, passwordHash }).onConflictDoNothing();
      await tx.insert(memberships).values({ id: newId('membership'), userId, tenantId: input.tenantId, role: input.role }).onConflictDoNothing();
    });
    return { id: userId, email, name: input.name, tenant_id: input.tenantId, role: input.role };
  }

  /** Checks the password (throttled per email and IP) and opens a session; returns the cookie token once. */
  async login(input: { email: string; password: string; tenant_id?: string }, ip: string) {
    const email = normaliseEmail(input.email);
    const throttleKey = `${email}|${ip}`;
    const state = await this.failedLogins.get(throttleKey);
    if (state && state.consumedPoints >= LOGIN_ATTEMPTS) throw tooManyAttempts(state);
    const user = await queries.findUserByEmail(this.database.db, email);
    const valid = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_HASH);
    if (!user || !valid) {
      await this.failedLogins.consume(throttleKey).catch((rejection: unknown) => {
        if (rejection instanceof RateLimiterRes) throw tooManyAttempts(rejection);
        throw rejection;
      });
      throw unauthenticated('invalid_login', 'Email or password is wrong.');
    }
    await this.failedLogins.delete(throttleKey);
    const tenants = await queries.membershipsOf(this.database.db, user.id);
    const active = tenants.filter((membership) => membership.tenantStatus === 'active');
    const chosen = input.tenant_id ? active.find((membership) => membership.tenantId === input.tenant_id) : active[0];
    if (!chosen) throw input.tenant_id ? notFound('tenant', input.tenant_id) : unauthenticated('no_active_tenant', 'This user belongs to no active tenant.');
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + this.sessionTtlHours * 3600_000);
    await queries.insertSession(this.database.db, { id: newId('session'), tokenHash: sha256Hex(token), userId: user.id, tenantId: chosen.tenantId, expiresAt });
    return { token, expiresAt };
  }

  async logout(sessionId: string): Promise<void> {
    await queries.deleteSession(this.database.db, sessionId);
    await this.auth.invalidate({ kind: 'session', id: sessionId });
  }

  async describe(userId: string, tenantId: string, role: Role) {
    const user = await queries.findUser(this.database.db, userId);
    if (!user) throw unauthenticated('missing_credentials', 'The session user no longer exists.');
    const tenants = await queries.membershipsOf(this.database.db, userId);
    return {
      user: { id: user.id, email: user.email, name: user.name },
      tenant_id: tenantId,
      role,
      memberships: tenants.map((membership) => ({ tenant_id: membership.tenantId, tenant_name: membership.tenantName, role: membership.role })),
    };
  }
}

function tooManyAttempts(state: RateLimiterRes): ApiError {
  const seconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  return new ApiError(429, 'rate_limit_error', 'too_many_login_attempts', `Too many failed sign-ins; try again in ${seconds} s.`, {
    headers: { 'retry-after': String(seconds) },
  });
}
