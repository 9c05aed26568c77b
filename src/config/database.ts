import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { DATABASE_ENGINES, type DatabaseEngine } from '../db/embedded-postgres.js';
import { bool, ConfigError, type Env, oneOf } from './env.js';

/** Which database runs without DATABASE_URL, and the development cookie secret kept beside its data. */

export const COOKIE_SECRET_MIN_LENGTH = 32;
let processCookieSecret: string | undefined;

/**
 * Outside development (NODE_ENV=production or SECURE_COOKIES=true) COOKIE_SECRET is required. In development a
 * secret is generated per data directory and kept beside it; with DATABASE_URL in `data/cookie-secret` under the
 * working directory, so instances started from one checkout share it; with an in-memory database per process.
 */
export function cookieSecret(
  env: Env,
  pgliteDataDir: string,
  databaseUrl: string | null,
): { cookieSecret: string; cookieSecretFile: string | null } {
  const secret = env.COOKIE_SECRET;
  if (secret) return { cookieSecret: secret, cookieSecretFile: null };
  if (env.NODE_ENV === 'production' || bool(env, 'SECURE_COOKIES', false)) {
    throw new ConfigError(
      `COOKIE_SECRET must be set to a random value of at least ${COOKIE_SECRET_MIN_LENGTH} characters when NODE_ENV=production or SECURE_COOKIES=true (for example: openssl rand -base64 48)`,
    );
  }
  processCookieSecret ??= randomBytes(32).toString('base64url');
  const file = databaseUrl
    ? path.resolve('data', 'cookie-secret')
    : pgliteDataDir.startsWith('memory://')
      ? null
      : `${pgliteDataDir}.cookie-secret`;
  return { cookieSecret: processCookieSecret, cookieSecretFile: file };
}

/**
 * DATABASE_ENGINE when set. Otherwise embedded PostgreSQL (it holds load: `npm run bench embedded`), except where PGlite
 * is asked for (PGLITE_DATA_DIR set) or already holds this installation's data (a database in the PGlite directory),
 * so that an upgrade never starts on an empty database.
 */
export function databaseEngineOf(env: Env, pgliteDataDir: string): DatabaseEngine {
  if (env.DATABASE_ENGINE) return oneOf(env, 'DATABASE_ENGINE', DATABASE_ENGINES);
  if (env.PGLITE_DATA_DIR || fs.existsSync(path.join(pgliteDataDir, 'PG_VERSION'))) return 'pglite';
  return 'embedded-postgres';
}
