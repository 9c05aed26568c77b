import path from 'node:path';
import { type AiConfig, aiConfig } from './config/ai.js';
import { COOKIE_SECRET_MIN_LENGTH, cookieSecret, databaseEngineOf } from './config/database.js';
import { type NginxGatewayConfig, nginxGatewayConfig } from './config/nginx.js';
import { type TaggingServersConfig, taggingServersConfig } from './config/tagging-servers.js';
import { powerupRequestsConfig } from './config/powerup-requests.js';
import { type RuntimeConfig, runtimeConfig } from './config/runtime.js';
import type { DatabaseEngine } from './db/embedded-postgres.js';
import {
  bool,
  ConfigError,
  type Env,
  fraction,
  integer,
  list,
  optional,
  pemCertificates,
  pemFile,
  type PemCertificates,
  oneOf,
  port,
  trustProxy,
} from './config/env.js';

export { databaseEngineOf };

export { ConfigError };

/** Typed configuration. The only module that reads process.env (with the readers in config/env.ts). */
export interface Config {
  host: string;
  port: number;
  /** Absolute base URL used in pagination links; derived from the request when unset. */
  publicBaseUrl: string | null;
  /** PostgreSQL connection string; when null the embedded PGlite database is used. */
  databaseUrl: string | null;
  /** Directory of the embedded PGlite database; 'memory://' keeps it in memory. */
  pgliteDataDir: string;
  /** Without DATABASE_URL: PGlite in the process, or a PostgreSQL cluster Tagport starts itself (see databaseEngineOf). */
  databaseEngine: DatabaseEngine;
  /** The engine was not chosen (DATABASE_ENGINE unset): when the embedded cluster cannot start here, PGlite is used. */
  databaseEngineFallback: boolean;
  embeddedPostgresDir: string;
  /** EMBEDDED_POSTGRES_PORT: the loopback port the embedded cluster listens on when this process starts it (0: a free one). */
  embeddedPostgresPort: number;
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
    /** SCANNER_EXTRA_CA_CERTS: extra trusted CAs (fetch stage) and their SPKI hashes (Chromium and Lighthouse). */
    extraCaCertificates?: PemCertificates | null;
    concurrency: number;
    scanTimeoutMs: number;
    /** The longest the browser stage keeps watching a page after load (network quiet and due timers end it sooner). */
    observationCapMs: number;
    /** How long a synchronous scan request waits for a worker beyond the scan cap (the queue wait), then 503. */
    syncWaitMs: number;
  };
  monitoring: {
    /** Monitor checks one worker process runs at once (each waits at most its monitor's timeout). */
    concurrency: number;
    retentionDays: number;
    /** Tracking monitor runs one worker process runs at once: each holds a browser slot the API's scans then lack. */
    trackingConcurrency: number;
  };
  /** How long rows that grow with traffic are kept (monitor checks: `monitoring.retentionDays`), and how they go. */
  retention: {
    eventDays: number;
    requestLogDays: number;
    usageDays: number;
    batchSize: number;
    maxBatches: number;
    intervalMs: number;
  };
  webhooks: { retryBaseMs: number; maxAttempts: number; timeoutMs: number };
  /** The job engine (pg-boss on the same database). */
  jobs: {
    /**
     * How often idle workers poll where the database has no LISTEN/NOTIFY, and how late a deferred job's second
     * wake-up comes (the first comes when it is due).
     */
    pollMs: number;
    /**
     * How often idle workers poll anyway: new jobs (NOTIFY) and deferred and retried ones (wake-ups when due) wake
     * them; the poll finds what nothing announced, such as a job deferred by a process that has since stopped.
     */
    backstopPollMs: number;
    /** How often workers retry jobs whose worker died (missed heartbeats) and expire stuck ones. */
    superviseSeconds: number;
  };
  /** What this process does: `api` (HTTP API and web), `gateway` (container traffic), `worker` (jobs and scans). */
  roles: ProcessRole[];
  /** How long a stopping process waits for requests and jobs in flight before handing them back. */
  shutdownTimeoutMs: number;
  /**
   * EXTRA_CA_CERTS: extra CA certificates (PEM) every outbound request trusts besides the system's: the gateway's
   * upstreams, monitors, webhooks, notifications and scans (with SCANNER_EXTRA_CA_CERTS, the scanner's older name).
   */
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
    /**
     * Processes serving the gateway's listeners: node:cluster workers (above 1 needs PostgreSQL), or with the nginx
     * engine nginx's worker processes. Default 1.
     */
    workers?: number;
    /** `node`: the gateway serves its ports itself. `nginx`: nginx does, proxying `upstream` containers natively. */
    engine?: 'node' | 'nginx';
    /** GATEWAY_HIT_LANE: read builtin containers' GA4 GET hits off plain HTTP/1.1 connections below Node's http server. */
    hitLane?: boolean;
  } & NginxGatewayConfig;
  /** The built-in container runtime (src/gateway/runtime/): where Google's scripts and collection live, forwarding. */
  runtime: RuntimeConfig;
  /** GATEWAY_INTERNAL_URL: a gateway's plain port, where delayed and scheduled requests are sent (docs/hosting.md). */
  powerupRequests: { gatewayUrl: string; timeoutMs: number };
  /** Google's tagging servers that `sgtm` containers run on. */
  taggingServers: TaggingServersConfig;
  /** ACME certificates for custom domains; null when ACME_DIRECTORY_URL is unset (no certificate is requested). */
  acme: AcmeConfig | null;
  /** The Graph API the Conversions API sender posts to: tests point the origin at a fixture server. */
  meta: {
    graphOrigin: string;
    graphVersion: string;
    timeoutMs: number;
    deliveryRetentionDays: number;
    /** How long an event waits for others to the same pixel, to go in one request; 0 sends each alone. */
    batchWindowMs: number;
  };
  /** 32-byte key (base64 or hex) encrypting secrets at rest (certificate keys, Meta access tokens); null when unset. */
  secretsKey: Buffer | null;
  containerTransitionDelayMs: number;
  /** DNS_RESOLVERS: the DNS servers every outbound request and the domain checks resolve through (default: the system's). */
  dns: { resolvers: string[]; timeoutMs: number; recheckIntervalMs: number };
  /** A custom domain not verified within this many hours is released, so it cannot hold a hostname forever. */
  domainPendingTtlHours: number;
  /** How often Tagport checks its own components for the status page. */
  statusCheckMs: number;
  /** Consecutive failed self-checks before the status page opens an incident (STATUS_INCIDENT_AFTER_FAILURES). */
  statusFailuresToOpen: number;
  /** Run jobs (monitor checks, webhooks, scans, …) in this process when it has the worker role. */
  runWorkers: boolean;
  /** OpenAI-compatible chat completions for AI summaries; the built-in writer is used when unset. */
  ai: AiConfig | null;
  /** Outgoing email (invitations, alerts); with no SMTP_URL nothing is sent and callers are told so. */
  mail: { smtpUrl: string | null; from: string };
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

/** SMTP_URL (`smtp://user:pass@host:587`, or `smtps://` for TLS from the start) and MAIL_FROM. */
function mailConfig(env: Env): Config['mail'] {
  const smtpUrl = optional(env, 'SMTP_URL');
  if (smtpUrl !== null) {
    let protocol = '';
    try {
      protocol = new URL(smtpUrl).protocol;
    } catch {
      // reported below, without echoing the URL: it may hold the SMTP password
    }
    if (protocol !== 'smtp:' && protocol !== 'smtps:')
      throw new ConfigError('SMTP_URL must be a URL like smtp://user:password@mail.example.com:587 (or smtps://)');
  }
  return { smtpUrl, from: optional(env, 'MAIL_FROM') ?? 'Tagport <no-reply@localhost>' };
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

function metaConfig(env: Env): Config['meta'] {
  const graphOrigin = (env.META_GRAPH_ORIGIN?.trim() || 'https://graph.facebook.com').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/?#]+$/.test(graphOrigin))
    throw new ConfigError(
      `META_GRAPH_ORIGIN must be an origin such as https://graph.facebook.com, got "${graphOrigin}"`,
    );
  const graphVersion = env.META_GRAPH_VERSION?.trim() || 'v26.0';
  if (!/^v\d+\.\d+$/.test(graphVersion))
    throw new ConfigError(`META_GRAPH_VERSION must look like v26.0, got "${graphVersion}"`);
  return {
    graphOrigin,
    graphVersion,
    timeoutMs: integer(env, 'META_TIMEOUT_MS', 10_000, 100),
    batchWindowMs: integer(env, 'META_BATCH_WINDOW_MS', 20, 0),
    deliveryRetentionDays: integer(env, 'META_DELIVERY_RETENTION_DAYS', 30, 1),
  };
}

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const key = secretsKey(env);
  const databaseUrl = optional(env, 'DATABASE_URL');
  const pgliteDataDir = env.PGLITE_DATA_DIR || path.resolve('data', 'pglite');
  const databaseEngine = databaseEngineOf(env, pgliteDataDir);
  const embeddedPostgresDir = env.EMBEDDED_POSTGRES_DIR || path.resolve('data', 'postgres');
  const config: Config = {
    host: env.HOST || '127.0.0.1',
    port: integer(env, 'PORT', 3000),
    publicBaseUrl: optional(env, 'PUBLIC_BASE_URL')?.replace(/\/+$/, '') ?? null,
    databaseUrl,
    pgliteDataDir,
    databaseEngine,
    databaseEngineFallback: !env.DATABASE_ENGINE && databaseEngine === 'embedded-postgres',
    embeddedPostgresDir,
    embeddedPostgresPort: port(env, 'EMBEDDED_POSTGRES_PORT', 0),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1),
    redisUrl: optional(env, 'REDIS_URL'),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 100, 1),
    anonymousRateLimitPerMinute: integer(env, 'ANONYMOUS_RATE_LIMIT_PER_MINUTE', 60, 1),
    publicScansPerHour: integer(env, 'PUBLIC_SCANS_PER_HOUR', 10, 1),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024),
    logLevel: env.LOG_LEVEL || 'info',
    secureCookies: bool(env, 'SECURE_COOKIES', false),
    sessionTtlHours: integer(env, 'SESSION_TTL_HOURS', 12, 1),
    ...cookieSecret(env, databaseEngine === 'pglite' ? pgliteDataDir : embeddedPostgresDir, databaseUrl),
    trustProxy: trustProxy(env),
    lastUsedFlushMs: integer(env, 'LAST_USED_FLUSH_MS', 15_000, 10),
    authCacheTtlMs: integer(env, 'AUTH_CACHE_TTL_MS', 60_000, 0),
    runMigrations: bool(env, 'RUN_MIGRATIONS', true),
    allowPrivateNetworks: bool(env, 'ALLOW_PRIVATE_NETWORKS', false),
    scanner: {
      chromiumPath: env.SCANNER_CHROMIUM_PATH || '/usr/lib/chromium/chromium',
      hostResolverRules: optional(env, 'SCANNER_HOST_RESOLVER_RULES'),
      extraCaCertificates: pemCertificates(env, 'SCANNER_EXTRA_CA_CERTS'),
      concurrency: integer(env, 'SCANNER_CONCURRENCY', 2, 1),
      scanTimeoutMs: integer(env, 'SCAN_TIMEOUT_MS', 45_000, 1000),
      observationCapMs: integer(env, 'SCANNER_OBSERVATION_CAP_MS', 10_000, 1000),
      syncWaitMs: integer(env, 'SCAN_SYNC_WAIT_MS', 60_000, 0),
    },
    ai: aiConfig(env),
    mail: mailConfig(env),
    monitoring: {
      concurrency: integer(env, 'MONITOR_CONCURRENCY', 200, 1),
      retentionDays: integer(env, 'MONITOR_RETENTION_DAYS', 30, 1),
      trackingConcurrency: integer(env, 'TRACKING_MONITOR_CONCURRENCY', 1, 1),
    },
    retention: {
      eventDays: integer(env, 'EVENT_RETENTION_DAYS', 90, 1),
      requestLogDays: integer(env, 'REQUEST_LOG_RETENTION_DAYS', 30, 1),
      // Usage reports cover up to 366 days: keep a little more than a year.
      usageDays: integer(env, 'USAGE_RETENTION_DAYS', 400, 1),
      batchSize: integer(env, 'RETENTION_BATCH_SIZE', 5000, 1),
      maxBatches: integer(env, 'RETENTION_MAX_BATCHES', 200, 1),
      intervalMs: integer(env, 'RETENTION_INTERVAL_MS', 600_000, 1000),
    },
    webhooks: {
      retryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 30_000, 1),
      maxAttempts: integer(env, 'WEBHOOK_MAX_ATTEMPTS', 8, 1),
      timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100),
    },
    jobs: {
      pollMs: integer(env, 'JOB_POLL_MS', 2000, 500),
      backstopPollMs: integer(env, 'JOB_BACKSTOP_POLL_MS', 10_000, 500),
      superviseSeconds: integer(env, 'JOB_SUPERVISE_SECONDS', 10, 1),
    },
    roles: parseRoles(env.TAGPORT_ROLES || PROCESS_ROLES.join(',')),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 100),
    outboundCaCertificates: pemCertificates(env, 'EXTRA_CA_CERTS')?.pems ?? [],
    runWorkers: bool(env, 'RUN_WORKERS', true),
    statusCheckMs: integer(env, 'STATUS_CHECK_MS', 30_000, 100),
    statusFailuresToOpen: integer(env, 'STATUS_INCIDENT_AFTER_FAILURES', 2, 1),
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
      workers: integer(env, 'GATEWAY_WORKERS', 1, 1),
      engine: oneOf(env, 'GATEWAY_ENGINE', ['node', 'nginx'] as const),
      hitLane: bool(env, 'GATEWAY_HIT_LANE', true),
      ...nginxGatewayConfig(env),
    },
    runtime: runtimeConfig(env),
    powerupRequests: powerupRequestsConfig(env),
    taggingServers: taggingServersConfig(env),
    acme: acmeConfig(env, key),
    meta: metaConfig(env),
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
  const clustered = (config.gateway.workers ?? 1) > 1 && config.gateway.engine !== 'nginx';
  if (clustered && !config.databaseUrl && config.databaseEngine === 'pglite')
    throw new ConfigError(
      'GATEWAY_WORKERS above 1 needs PostgreSQL (DATABASE_URL, or DATABASE_ENGINE=embedded-postgres): PGlite serves one process only',
    );
  if (config.cookieSecret.length < COOKIE_SECRET_MIN_LENGTH)
    throw new ConfigError(`COOKIE_SECRET must be at least ${COOKIE_SECRET_MIN_LENGTH} characters`);
  return config;
}
