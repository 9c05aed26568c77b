import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** Typed configuration. The only module that reads process.env. */
export interface Config {
  host: string;
  port: number;
  /** Absolute base URL used in pagination links; derived from the request when unset. */
  publicBaseUrl: string | null;
  /** PostgreSQL connection string; when null the embedded PGlite database is used. */
  databaseUrl: string | null;
  /** Directory of the embedded PGlite database; 'memory://' keeps it in memory. */
  pgliteDataDir: string;
  databasePoolSize: number;
  /** Redis connection string; when set, rate limits are shared through Redis. */
  redisUrl: string | null;
  rateLimitPerMinute: number;
  /** Requests per minute for unauthenticated traffic, counted per IP. */
  anonymousRateLimitPerMinute: number;
  /** Scans per hour per IP on the public tracking checker (no API key). */
  publicScansPerHour: number;
  bodyLimitBytes: number;
  logLevel: string;
  /** Session cookie is marked Secure (set this behind https). */
  secureCookies: boolean;
  sessionTtlHours: number;
  /**
   * Secret for signing cookies (CSRF secret cookie): COOKIE_SECRET, required outside development. In development
   * without it, a random secret of this process until the runtime replaces it with the one in `cookieSecretFile`.
   */
  cookieSecret: string;
  /** Development without COOKIE_SECRET: the file that keeps the secret generated for this data directory. */
  cookieSecretFile: string | null;
  /**
   * The proxies in front of the service (addresses, CIDR ranges, or proxy-addr's names `loopback`,
   * `linklocal`, `uniquelocal`) whose X-Forwarded-* headers are believed; false believes none.
   */
  trustProxy: false | string[];
  /** How often buffered `last_used_at` values are written, in ms. */
  lastUsedFlushMs: number;
  /** How long a verified API key stays in the in-memory cache, in ms. */
  authCacheTtlMs: number;
  runMigrations: boolean;
  /** Test-only: let scans (and other outbound requests) reach loopback and private addresses. */
  allowPrivateNetworks: boolean;
  scanner: {
    chromiumPath: string;
    /** Chromium --host-resolver-rules; unset in production (the SSRF guard filters every request). */
    hostResolverRules: string | null;
    concurrency: number;
    scanTimeoutMs: number;
    /** How long a synchronous scan request waits for a worker beyond the scan cap (the queue wait), then 503. */
    syncWaitMs: number;
  };
  monitoring: { tickMs: number; batchSize: number; maxInFlight: number; retentionDays: number };
  webhooks: { retryBaseMs: number; maxAttempts: number; timeoutMs: number };
  /** The job engine (pg-boss on the same database). */
  jobs: {
    /** How often idle workers poll for deferred and retried jobs; new jobs wake them at once (LISTEN/NOTIFY). */
    pollMs: number;
    /** How often workers retry jobs whose worker died (missed heartbeats) and expire stuck ones. */
    superviseSeconds: number;
  };
  /** What this process does: `api` (HTTP API and web), `gateway` (container traffic), `worker` (jobs and scans). */
  roles: ProcessRole[];
  /** How long a stopping process waits for requests and jobs in flight before handing them back. */
  shutdownTimeoutMs: number;
  /** Extra CA certificates trusted by outbound monitor and webhook requests (tests' throw-away CA). */
  outboundCaCertificates: string[];
  gateway: {
    port: number;
    /** Containers get `<id>.<baseDomain>` as default hostname. */
    baseDomain: string;
    /** Public IPs of the gateway, offered as A records for custom domains. */
    publicIps: string[];
    flushMs: number;
    logSampleRate: number;
    upstreamTimeoutMs: number;
    /** The TLS listener's port (SNI-chosen certificates, HTTP/2); null: plain HTTP only, no redirect. */
    tlsPort?: number | null;
    /** Wildcard certificate and key files (PEM) for `*.<baseDomain>`; null: a self-signed one made at start. */
    tlsCertFile?: string | null;
    tlsKeyFile?: string | null;
  };
  /** ACME certificates for custom domains; null when ACME_DIRECTORY_URL is unset (no certificate is requested). */
  acme: AcmeConfig | null;
  /** 32-byte key (base64 or hex) encrypting secrets at rest (certificate keys); null when unset. */
  secretsKey: Buffer | null;
  containerTransitionDelayMs: number;
  dns: { resolvers: string[]; timeoutMs: number; recheckIntervalMs: number };
  /** A custom domain not verified within this many hours is released, so it cannot hold a hostname forever. */
  domainPendingTtlHours: number;
  /** How often Tagport checks its own components for the status page. */
  statusCheckMs: number;
  /** Run jobs (monitor checks, webhooks, scans, …) in this process when it has the worker role. */
  runWorkers: boolean;
  /** OpenAI-compatible chat completions for AI summaries; the built-in writer is used when unset. */
  ai: { baseUrl: string; model: string; apiKey: string } | null;
}

export interface AcmeConfig {
  directoryUrl: string;
  email: string | null;
  /** Extra CA certificates (PEM) trusted for the ACME directory's own TLS: a test CA such as Pebble's. */
  caCertificates: string[];
  /** Renew when this fraction of the certificate's lifetime has passed. */
  renewAfterFraction: number;
  /** First retry delay after a failed order, doubled per attempt up to `retryMaxMs`. */
  retryBaseMs: number;
  retryMaxMs: number;
  pollMs: number;
}

type Env = Record<string, string | undefined>;

export const PROCESS_ROLES = ['api', 'gateway', 'worker'] as const;
export type ProcessRole = (typeof PROCESS_ROLES)[number];

/** `api,gateway,worker` → the roles, in their canonical order; throws ConfigError on an unknown or empty list. */
export function parseRoles(value: string): ProcessRole[] {
  const given = value
    .split(',')
    .map((role) => role.trim())
    .filter(Boolean);
  const unknown = given.filter((role) => !PROCESS_ROLES.includes(role as ProcessRole));
  if (unknown.length || given.length === 0)
    throw new ConfigError(`roles must be a comma-separated list of ${PROCESS_ROLES.join(', ')}`);
  return PROCESS_ROLES.filter((role) => given.includes(role));
}

export class ConfigError extends Error {}

function integer(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min)
    throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function list(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function optional(env: Env, name: string): string | null {
  const raw = env[name]?.trim();
  return raw ? raw : null;
}

/** SECRETS_KEY: 32 bytes, as 64 hex digits or base64 (standard or url-safe). */
function secretsKey(env: Env): Buffer | null {
  const raw = optional(env, 'SECRETS_KEY');
  if (!raw) return null;
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32)
    throw new ConfigError(
      'SECRETS_KEY must be 32 bytes, written as 64 hex digits or base64 (for example: openssl rand -base64 32)',
    );
  return key;
}

function fraction(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!(value > 0 && value < 1)) throw new ConfigError(`${name} must be a number between 0 and 1, got "${raw}"`);
  return value;
}

/** A PEM file named by `name`, read once at start; for test CAs (Pebble's directory certificate). */
function pemFile(env: Env, name: string): string[] {
  const file = optional(env, name);
  if (!file) return [];
  try {
    return [fs.readFileSync(file, 'utf8')];
  } catch {
    throw new ConfigError(`${name}: cannot read the PEM file ${file}`);
  }
}

function acmeConfig(env: Env, key: Buffer | null): AcmeConfig | null {
  const directoryUrl = optional(env, 'ACME_DIRECTORY_URL');
  if (!directoryUrl) return null;
  if (!key)
    throw new ConfigError(
      'SECRETS_KEY must be set when ACME_DIRECTORY_URL is: certificate keys are stored encrypted with it (for example: openssl rand -base64 32)',
    );
  return {
    directoryUrl,
    email: optional(env, 'ACME_EMAIL'),
    caCertificates: pemFile(env, 'ACME_CA_FILE'),
    renewAfterFraction: fraction(env, 'ACME_RENEW_AFTER_FRACTION', 2 / 3),
    retryBaseMs: integer(env, 'ACME_RETRY_BASE_MS', 60_000, 10),
    retryMaxMs: integer(env, 'ACME_RETRY_MAX_MS', 6 * 3_600_000, 10),
    pollMs: integer(env, 'ACME_POLL_MS', 10_000, 10),
  };
}

const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const TRUST_PROXY_CHOICES =
  'Set TRUST_PROXY to the addresses or CIDR ranges of your proxies, e.g. TRUST_PROXY=127.0.0.1 for a proxy on the same host or TRUST_PROXY=10.0.0.0/8,fd00::/8 ' +
  '(loopback, linklocal and uniquelocal name the usual private ranges), or leave it unset when clients connect directly.';

function isAddressOrRange(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = net.isIP(address);
  if (!family || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/**
 * TRUST_PROXY: which peers may set the client address with X-Forwarded-For. Only a list of proxy addresses
 * is accepted: `true` would let every client pick its own address (and escape the per-IP limits), and a hop
 * count cannot tell a proxy from a client that connects directly (Fastify 5 ignores hop counts for that reason).
 */
function trustProxy(env: Env): Config['trustProxy'] {
  const raw = env.TRUST_PROXY?.trim() ?? '';
  if (raw === '' || /^(false|no|off|0)$/i.test(raw)) return false;
  if (/^(true|yes|on)$/i.test(raw)) {
    throw new ConfigError(
      `TRUST_PROXY=${raw} would believe X-Forwarded-For from any client, so anyone could pick their own address and escape the per-IP limits. ${TRUST_PROXY_CHOICES}`,
    );
  }
  if (/^\d+$/.test(raw)) {
    throw new ConfigError(
      `TRUST_PROXY=${raw}: a hop count cannot tell a proxy from a client that connects directly and sends its own X-Forwarded-For. ${TRUST_PROXY_CHOICES}`,
    );
  }
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const invalid = entries.filter((entry) => !isAddressOrRange(entry));
  if (invalid.length > 0)
    throw new ConfigError(
      `TRUST_PROXY has entries that are not IP addresses or CIDR ranges: ${invalid.join(', ')}. ${TRUST_PROXY_CHOICES}`,
    );
  return entries.length > 0 ? entries : false;
}

function aiConfig(env: Env): Config['ai'] {
  const baseUrl = optional(env, 'AI_BASE_URL');
  const model = optional(env, 'AI_MODEL');
  if (!baseUrl && !model) return null;
  if (!baseUrl || !model)
    throw new ConfigError('Set both AI_BASE_URL and AI_MODEL (and AI_API_KEY) to use an AI provider');
  return { baseUrl: baseUrl.replace(/\/+$/, ''), model, apiKey: env.AI_API_KEY ?? '' };
}

const COOKIE_SECRET_MIN_LENGTH = 32;
let processCookieSecret: string | undefined;

/**
 * Outside development (NODE_ENV=production or SECURE_COOKIES=true) COOKIE_SECRET is required. In development a
 * secret is generated per data directory and kept beside it; with DATABASE_URL in `data/cookie-secret` under the
 * working directory, so instances started from one checkout share it; with an in-memory database per process.
 */
function cookieSecret(
  env: Env,
  pgliteDataDir: string,
  databaseUrl: string | null,
): Pick<Config, 'cookieSecret' | 'cookieSecretFile'> {
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

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const key = secretsKey(env);
  const databaseUrl = optional(env, 'DATABASE_URL');
  const pgliteDataDir = env.PGLITE_DATA_DIR || path.resolve('data', 'pglite');
  const config: Config = {
    host: env.HOST || '127.0.0.1',
    port: integer(env, 'PORT', 3000),
    publicBaseUrl: optional(env, 'PUBLIC_BASE_URL')?.replace(/\/+$/, '') ?? null,
    databaseUrl,
    pgliteDataDir,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1),
    redisUrl: optional(env, 'REDIS_URL'),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 100, 1),
    anonymousRateLimitPerMinute: integer(env, 'ANONYMOUS_RATE_LIMIT_PER_MINUTE', 60, 1),
    publicScansPerHour: integer(env, 'PUBLIC_SCANS_PER_HOUR', 10, 1),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024),
    logLevel: env.LOG_LEVEL || 'info',
    secureCookies: bool(env, 'SECURE_COOKIES', false),
    sessionTtlHours: integer(env, 'SESSION_TTL_HOURS', 12, 1),
    ...cookieSecret(env, pgliteDataDir, databaseUrl),
    trustProxy: trustProxy(env),
    lastUsedFlushMs: integer(env, 'LAST_USED_FLUSH_MS', 15_000, 10),
    authCacheTtlMs: integer(env, 'AUTH_CACHE_TTL_MS', 60_000, 0),
    runMigrations: bool(env, 'RUN_MIGRATIONS', true),
    allowPrivateNetworks: bool(env, 'ALLOW_PRIVATE_NETWORKS', false),
    scanner: {
      chromiumPath: env.SCANNER_CHROMIUM_PATH || '/usr/lib/chromium/chromium',
      hostResolverRules: optional(env, 'SCANNER_HOST_RESOLVER_RULES'),
      concurrency: integer(env, 'SCANNER_CONCURRENCY', 2, 1),
      scanTimeoutMs: integer(env, 'SCAN_TIMEOUT_MS', 45_000, 1000),
      syncWaitMs: integer(env, 'SCAN_SYNC_WAIT_MS', 60_000, 0),
    },
    ai: aiConfig(env),
    monitoring: {
      tickMs: integer(env, 'MONITOR_TICK_MS', 1000, 10),
      batchSize: integer(env, 'MONITOR_BATCH_SIZE', 20, 1),
      maxInFlight: integer(env, 'MONITOR_MAX_IN_FLIGHT', 50, 1),
      retentionDays: integer(env, 'MONITOR_RETENTION_DAYS', 30, 1),
    },
    webhooks: {
      retryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 30_000, 1),
      maxAttempts: integer(env, 'WEBHOOK_MAX_ATTEMPTS', 8, 1),
      timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100),
    },
    jobs: {
      pollMs: integer(env, 'JOB_POLL_MS', 2000, 500),
      superviseSeconds: integer(env, 'JOB_SUPERVISE_SECONDS', 10, 1),
    },
    roles: parseRoles(env.TAGPORT_ROLES || PROCESS_ROLES.join(',')),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 100),
    outboundCaCertificates: [],
    runWorkers: bool(env, 'RUN_WORKERS', true),
    statusCheckMs: integer(env, 'STATUS_CHECK_MS', 30_000, 100),
    gateway: {
      port: integer(env, 'GATEWAY_PORT', 3001),
      baseDomain: (env.GATEWAY_BASE_DOMAIN || 'containers.tagport.localhost').toLowerCase(),
      publicIps: list(env, 'GATEWAY_PUBLIC_IPS'),
      flushMs: integer(env, 'GATEWAY_FLUSH_MS', 5000, 10),
      logSampleRate: Number(env.GATEWAY_LOG_SAMPLE_RATE ?? 0.1),
      upstreamTimeoutMs: integer(env, 'GATEWAY_UPSTREAM_TIMEOUT_MS', 15_000, 100),
      tlsPort: optional(env, 'GATEWAY_TLS_PORT') === null ? null : integer(env, 'GATEWAY_TLS_PORT', 0),
      tlsCertFile: optional(env, 'GATEWAY_TLS_CERT'),
      tlsKeyFile: optional(env, 'GATEWAY_TLS_KEY'),
    },
    acme: acmeConfig(env, key),
    secretsKey: key,
    containerTransitionDelayMs: integer(env, 'CONTAINER_TRANSITION_DELAY_MS', 2000, 0),
    dns: {
      resolvers: list(env, 'DNS_RESOLVERS'),
      timeoutMs: integer(env, 'DNS_TIMEOUT_MS', 3000, 100),
      recheckIntervalMs: integer(env, 'DOMAIN_RECHECK_INTERVAL_MS', 600_000, 100),
    },
    domainPendingTtlHours: integer(env, 'DOMAIN_PENDING_TTL_HOURS', 168, 1),
    ...overrides,
  };
  if (Boolean(config.gateway.tlsCertFile) !== Boolean(config.gateway.tlsKeyFile))
    throw new ConfigError('Set both GATEWAY_TLS_CERT and GATEWAY_TLS_KEY (PEM files), or neither');
  if (config.cookieSecret.length < COOKIE_SECRET_MIN_LENGTH)
    throw new ConfigError(`COOKIE_SECRET must be at least ${COOKIE_SECRET_MIN_LENGTH} characters`);
  return config;
}
