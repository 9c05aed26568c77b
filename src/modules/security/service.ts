import { randomBytes } from 'node:crypto';
import type { Database } from '../../db/index.js';
import type { SecretBox } from '../../lib/secrets.js';
import { sha256Hex } from '../../lib/tokens.js';
import type { AuthService } from '../auth/credentials.js';
import { SecurityErrors } from './errors.js';
import * as queries from './queries.js';
import type { SessionInfoDto, TwoFactorEnrollmentDto, TwoFactorStatusDto } from './schemas.js';

const ISSUER = 'Tagport';
/** The secret's purpose, bound into its sealing: a sealed secret cannot be moved to another column. */
const SEAL_PURPOSE = 'totp-secret';
const RECOVERY_CODES = 10;
/** One 30-second step either side, for clocks a little off (RFC 6238 §6). */
const EPOCH_TOLERANCE_SECONDS = 30;

/** The user a sign-in checks a second factor for: what the auth module's user row carries. */
export interface TwoFactorUser {
  id: string;
  totpSecretSealed: string | null;
  totpLastStep: number | null;
}

/** `abcde-fghij`: 50 bits from a base32 alphabet without look-alike characters. */
function newRecoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const bytes = randomBytes(10);
  const chars = [...bytes].map((byte) => alphabet[byte % alphabet.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

const normaliseRecoveryCode = (code: string) => code.toLowerCase().replace(/[^a-z0-9]/g, '');
const isTotpCode = (code: string) => /^\d{6}$/.test(code.replace(/\s/g, ''));

/**
 * Two-factor sign-in (TOTP, RFC 6238, with otplib) and the user's sessions. Secrets are sealed at rest; a code is
 * accepted once (its time step is recorded), recovery codes are stored as hashes and work once each.
 */
export class SecurityService {
  private readonly database: Database;
  private readonly auth: AuthService;
  private readonly box: SecretBox;

  constructor({ database, auth, box }: { database: Database; auth: AuthService; box: SecretBox }) {
    this.database = database;
    this.auth = auth;
    this.box = box;
  }

  /** The answer to a session that must enrol first (src/http/auth.ts asks, so it need not know the catalogue). */
  enrollmentRequiredError() {
    return SecurityErrors.enrollmentRequired();
  }

  async status(userId: string): Promise<TwoFactorStatusDto> {
    const db = this.database.db;
    const [user, required] = await Promise.all([queries.findUser(db, userId), queries.requiredByAnyTenant(db, userId)]);
    return {
      enabled: Boolean(user?.totpSecretSealed),
      enabled_at: user?.totpEnabledAt?.toISOString() ?? null,
      recovery_codes_left: user?.recoveryCodeHashes.length ?? 0,
      required_by_tenant: required,
    };
  }

  /** A new secret for the user's app; it takes effect once a code from the app confirms it. */
  async startEnrollment(userId: string): Promise<TwoFactorEnrollmentDto> {
    const user = await queries.findUser(this.database.db, userId);
    if (!user) throw SecurityErrors.notEnabled();
    if (user.totpSecretSealed) throw SecurityErrors.alreadyEnabled();
    const [{ generateSecret, generateURI }, { default: QRCode }] = await Promise.all([
      import('otplib'),
      import('qrcode'),
    ]);
    const secret = generateSecret();
    await queries.setPendingSecret(this.database.db, userId, this.box.seal(secret, SEAL_PURPOSE));
    const otpauth_uri = generateURI({ issuer: ISSUER, label: user.email, secret });
    const qr_svg = await QRCode.toString(otpauth_uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    return { secret, otpauth_uri, qr_svg };
  }

  /** Turns two-factor sign-in on with a code from the app; returns the recovery codes, once. */
  async confirmEnrollment(userId: string, sessionId: string | null, code: string) {
    const user = await queries.findUser(this.database.db, userId);
    if (!user) throw SecurityErrors.notEnabled();
    if (user.totpSecretSealed) throw SecurityErrors.alreadyEnabled();
    if (!user.totpPendingSealed) throw SecurityErrors.enrollmentNotStarted();
    const step = await this.matchingStep(this.box.open(user.totpPendingSealed, SEAL_PURPOSE), code, null);
    if (step === null) throw SecurityErrors.incorrectCode();
    const recovery_codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    await queries.enableTwoFactor(this.database.db, userId, {
      sealed: user.totpPendingSealed,
      step,
      recoveryCodeHashes: recovery_codes.map((recovery) => sha256Hex(normaliseRecoveryCode(recovery))),
    });
    if (sessionId) {
      await queries.markSessionTwoFactor(this.database.db, sessionId);
      await this.auth.invalidate({ kind: 'session', id: sessionId });
    }
    return { recovery_codes };
  }

  /** Turns it off with a current code (or a recovery code), unless a tenant of the user requires it. */
  async disable(userId: string, code: string): Promise<TwoFactorStatusDto> {
    const user = await queries.findUser(this.database.db, userId);
    if (!user?.totpSecretSealed) throw SecurityErrors.notEnabled();
    if (await queries.requiredByAnyTenant(this.database.db, userId)) throw SecurityErrors.requiredByTenant();
    if (!(await this.verifySignInCode(user, code))) throw SecurityErrors.incorrectCode();
    await queries.disableTwoFactor(this.database.db, userId);
    return this.status(userId);
  }

  /** The sign-in's second step: a current code not used before, or an unused recovery code (spent by this). */
  async verifySignInCode(user: TwoFactorUser, code: string): Promise<boolean> {
    if (!user.totpSecretSealed) return false;
    if (!isTotpCode(code)) {
      return queries.takeRecoveryCode(this.database.db, user.id, sha256Hex(normaliseRecoveryCode(code)));
    }
    const secret = this.box.open(user.totpSecretSealed, SEAL_PURPOSE);
    const step = await this.matchingStep(secret, code, user.totpLastStep);
    return step !== null && (await queries.takeTimeStep(this.database.db, user.id, step));
  }

  async sessions(userId: string, currentSessionId: string | null): Promise<SessionInfoDto[]> {
    const rows = await queries.openSessions(this.database.db, userId);
    return rows.map((row) => ({
      id: row.id,
      created_at: row.createdAt.toISOString(),
      expires_at: row.expiresAt.toISOString(),
      user_agent: row.userAgent,
      ip: row.ip,
      two_factor: row.twoFactor,
      current: row.id === currentSessionId,
    }));
  }

  /** Signs one of the user's sessions out everywhere at once (the invalidation reaches every instance's cache). */
  async revokeSession(userId: string, sessionId: string): Promise<void> {
    if (!(await queries.deleteSession(this.database.db, userId, sessionId)))
      throw SecurityErrors.sessionNotFound(sessionId);
    await this.auth.invalidate({ kind: 'session', id: sessionId });
  }

  private async matchingStep(secret: string, code: string, lastStep: number | null): Promise<number | null> {
    const token = code.replace(/\s/g, '');
    if (!isTotpCode(token)) return null;
    // otplib loads on the first code checked, not at start (as qrcode, on the first enrolment).
    const { verify } = await import('otplib');
    const result = await verify({
      secret,
      token,
      epochTolerance: EPOCH_TOLERANCE_SECONDS,
      ...(lastStep === null ? {} : { afterTimeStep: lastStep }),
    }).catch(() => ({ valid: false as const }));
    return result.valid && 'timeStep' in result ? result.timeStep : null;
  }
}
