import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Database, Db } from '../../db/index.js';
import { memberships, tenants, users } from '../../db/schema.js';
import type { LimiterFactory } from '../../http/rate-limit.js';
import type { Role } from '../../http/context.js';
import type { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import { sha256Hex } from '../../lib/tokens.js';
import type { AuthService } from './credentials.js';
import { SecurityErrors } from '../security/errors.js';
import type { SecurityService } from '../security/service.js';
import { AuthErrors } from './errors.js';
import { assertStrongPassword, normaliseEmail } from './policy.js';
import * as queries from './queries.js';
import { isEmail, SETUP_TOKEN_PREFIX } from './schemas.js';
import type { PlanIdValue } from '../tenants/schemas.js';

const LOGIN_ATTEMPTS = 10;
// Advisory lock key that serialises first-run set-ups (an arbitrary constant of our own).
const SETUP_LOCK = 7_301_455_211;
const LOGIN_WINDOW_SECONDS = 15 * 60;
/** Wrong two-factor codes per account in a window, from any IP and instance: past it even the right code waits. */
const CODE_ATTEMPTS_PER_ACCOUNT = 10;
const CODE_WINDOW_SECONDS = 15 * 60;
// Compared against when the email is unknown, so both paths take the same time.
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

/** How long a set-up token works. */
const SETUP_TOKEN_TTL_MS = 60 * 60_000;

export type SetupState = 'open' | 'token_required' | 'done';

export class UserService {
  /** Failed sign-ins per email and IP; in Redis when configured, so every instance counts the same attempts. */
  private readonly failedLogins: RateLimiterAbstract;

  private readonly database: Database;
  private readonly auth: AuthService;
  private readonly security: SecurityService;
  private readonly sessionTtlHours: number;

  constructor(
    dependencies: {
      database: Database;
      auth: AuthService;
      /** Checks the second factor of accounts that have one. */
      security: SecurityService;
      /** The app passes its rate limits' factory, so the login throttle is shared through Redis too. */
      createLimiter: LimiterFactory;
    },
    { sessionTtlHours }: { sessionTtlHours: number },
  ) {
    const { database, auth, security, createLimiter } = dependencies;
    this.database = database;
    this.auth = auth;
    this.security = security;
    this.sessionTtlHours = sessionTtlHours;
    this.failedLogins = createLimiter('login', LOGIN_ATTEMPTS, LOGIN_WINDOW_SECONDS);
  }

  /** True while the database has no users: the first-run set-up page is shown. */
  async needsSetup(): Promise<boolean> {
    return !(await queries.anyUser(this.database.db));
  }

  /**
   * `open` on an empty database; `token_required` when it has tenants (provisioned with the CLI) but no user yet,
   * so set-up needs a one-time token; `done` once any user exists.
   */
  async setupState(): Promise<SetupState> {
    if (await queries.anyUser(this.database.db)) return 'done';
    return (await queries.anyTenant(this.database.db)) ? 'token_required' : 'open';
  }

  /** A one-time set-up token (`tagport setup-token`, and logged at start); only its hash is stored. */
  async createSetupToken(): Promise<{ token: string; expires_at: string }> {
    if (await queries.anyUser(this.database.db)) throw AuthErrors.alreadySetUp();
    const token = SETUP_TOKEN_PREFIX + randomBytes(24).toString('base64url');
    const expiresAt = new Date(Date.now() + SETUP_TOKEN_TTL_MS);
    await queries.insertSetupToken(this.database.db, { tokenHash: sha256Hex(token), expiresAt });
    return { token, expires_at: expiresAt.toISOString() };
  }

  /**
   * First-run set-up: the first tenant and its owner. Refused (409) once any user exists. On a database that already
   * has tenants it needs a valid set-up token, and succeeding spends every token. The checks and the inserts run in
   * one transaction under an advisory lock, so of two simultaneous set-ups (on any instances) exactly one succeeds.
   */
  async setup(input: {
    organisation: string;
    plan?: PlanIdValue;
    name: string;
    email: string;
    password: string;
    setup_token?: string;
  }) {
    assertStrongPassword(input.password);
    const passwordHash = await hashPassword(input.password);
    const tenantId = newId('tenant');
    const userId = newId('user');
    await this.database.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${SETUP_LOCK})`);
      if (await queries.anyUser(tx)) throw AuthErrors.alreadySetUp();
      if (await queries.anyTenant(tx)) await requireSetupToken(tx, input.setup_token);
      await tx
        .insert(tenants)
        .values({ id: tenantId, name: input.organisation.trim(), planId: input.plan ?? 'agency' });
      await tx
        .insert(users)
        .values({ id: userId, email: normaliseEmail(input.email), name: input.name.trim(), passwordHash });
      await tx.insert(memberships).values({ id: newId('membership'), userId, tenantId, role: 'owner' });
      await queries.deleteSetupTokens(tx);
    });
    return { tenant_id: tenantId, user_id: userId };
  }

  /** Operator path (CLI): a new user with one membership. An email that is taken is refused; nothing is changed then. */
  async createUser(input: { email: string; name: string; password: string; tenantId: string; role: Role }) {
    if (!isEmail(input.email)) throw AuthErrors.invalidEmail(input.email);
    assertStrongPassword(input.password);
    const email = normaliseEmail(input.email);
    const userId = newId('user');
    const passwordHash = await hashPassword(input.password);
    await this.database.db.transaction(async (tx) => {
      const inserted = await tx
        .insert(users)
        .values({ id: userId, email, name: input.name, passwordHash })
        .onConflictDoNothing()
        .returning({ id: users.id });
      if (inserted.length === 0) throw AuthErrors.emailTaken(email);
      await tx
        .insert(memberships)
        .values({ id: newId('membership'), userId, tenantId: input.tenantId, role: input.role });
    });
    return { id: userId, email, name: input.name, tenant_id: input.tenantId, role: input.role };
  }

  /**
   * Checks the password and, for accounts with two-factor sign-in, the code (failures of either are throttled per
   * email and IP), then opens a session; returns the cookie token once.
   */
  async login(
    input: { email: string; password: string; tenant_id?: string; code?: string },
    client: { ip: string; userAgent?: string },
  ) {
    const email = normaliseEmail(input.email);
    const throttleKey = `${email}|${client.ip}`;
    const state = await this.failedLogins.get(throttleKey);
    if (state && state.consumedPoints >= LOGIN_ATTEMPTS) throw tooManyAttempts(state);
    const user = await queries.findUserByEmail(this.database.db, email);
    const valid = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_HASH);
    if (!user || !valid) throw await this.failedLogin(throttleKey, AuthErrors.invalidLogin());
    const twoFactor = Boolean(user.totpSecretSealed);
    if (twoFactor) await this.checkSecondFactor(user, input.code, throttleKey);
    await this.failedLogins.delete(throttleKey);
    const tenants = await queries.membershipsOf(this.database.db, user.id);
    const active = tenants.filter((membership) => membership.tenantStatus === 'active');
    const chosen = input.tenant_id ? active.find((membership) => membership.tenantId === input.tenant_id) : active[0];
    if (!chosen) throw input.tenant_id ? AuthErrors.tenantNotFound(input.tenant_id) : AuthErrors.noActiveTenant();
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + this.sessionTtlHours * 3600_000);
    await queries.insertSession(this.database.db, {
      id: newId('session'),
      tokenHash: sha256Hex(token),
      userId: user.id,
      tenantId: chosen.tenantId,
      expiresAt,
      ip: client.ip,
      userAgent: client.userAgent?.slice(0, 500) ?? null,
      twoFactor,
    });
    return { token, expiresAt };
  }

  /**
   * The sign-in code of an account with two-factor sign-in. Wrong codes count per email and IP (with wrong passwords)
   * and per account in the database, so that many addresses or instances together get no more guesses than one.
   */
  private async checkSecondFactor(user: queries.UserRow, code: string | undefined, throttleKey: string) {
    if (!code) throw SecurityErrors.twoFactorRequired();
    const lockedFor = accountLockSeconds(user);
    if (lockedFor > 0) throw AuthErrors.tooManyLoginAttempts(lockedFor);
    if (await this.security.verifySignInCode(user, code)) {
      if (user.failedCodes > 0) await queries.clearFailedCodes(this.database.db, user.id);
      return;
    }
    await queries.countFailedCode(this.database.db, user.id, CODE_WINDOW_SECONDS);
    throw await this.failedLogin(throttleKey, SecurityErrors.invalidTwoFactorCode());
  }

  /** Counts a failed sign-in; answers the error to throw (429 once the attempts are used up). */
  private async failedLogin(throttleKey: string, error: AppError): Promise<AppError> {
    try {
      await this.failedLogins.consume(throttleKey);
      return error;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return tooManyAttempts(rejection);
      throw rejection;
    }
  }

  async logout(sessionId: string): Promise<void> {
    await queries.deleteSession(this.database.db, sessionId);
    await this.auth.invalidate({ kind: 'session', id: sessionId });
  }

  async describe(userId: string, tenantId: string, role: Role, enrollmentRequired = false) {
    const user = await queries.findUser(this.database.db, userId);
    if (!user) throw AuthErrors.sessionUserGone();
    const tenants = await queries.membershipsOf(this.database.db, userId);
    return {
      user: { id: user.id, email: user.email, name: user.name },
      tenant_id: tenantId,
      role,
      two_factor: { enabled: Boolean(user.totpSecretSealed), enrollment_required: enrollmentRequired },
      memberships: tenants.map((membership) => ({
        tenant_id: membership.tenantId,
        tenant_name: membership.tenantName,
        role: membership.role,
      })),
    };
  }
}

async function requireSetupToken(db: Db, token: string | undefined): Promise<void> {
  if (!token) {
    throw AuthErrors.setupTokenRequired();
  }
  if (!(await queries.isValidSetupToken(db, sha256Hex(token)))) {
    throw AuthErrors.invalidSetupToken();
  }
}

/** Seconds until the account takes two-factor codes again; 0 while it has wrong codes left in its window. */
function accountLockSeconds(user: queries.UserRow): number {
  if (user.failedCodes < CODE_ATTEMPTS_PER_ACCOUNT || !user.failedCodesSince) return 0;
  const endsAt = user.failedCodesSince.getTime() + CODE_WINDOW_SECONDS * 1000;
  return Math.max(0, Math.ceil((endsAt - Date.now()) / 1000));
}

function tooManyAttempts(state: RateLimiterRes): AppError {
  const seconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  return AuthErrors.tooManyLoginAttempts(seconds);
}
