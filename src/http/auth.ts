import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Database } from '../db/index.js';
import type { InvalidationBus } from '../db/invalidation.js';
import { ReadThroughCache } from '../lib/cache.js';
import { findCredentialByHash, writeLastUsed, type KeyCredential } from '../modules/api-keys/queries.js';
import { findSessionByHash, type SessionCredential } from '../modules/auth/queries.js';
import { findClientTenant } from '../modules/tenants/queries.js';
import { isWellFormedApiToken, sha256Hex } from '../lib/tokens.js';
import type { AuthContext } from './context.js';
import { HttpCodes, notFound, unauthenticated } from './errors.js';

export const SESSION_COOKIE = 'tgp_session';
export const TENANT_HEADER = 'tagport-tenant';
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const BEARER = /^bearer[ \t]+([^\s]+)[ \t]*$/i;

/**
 * Verifies API keys and sessions. Verified credentials are cached in memory; revocations and tenant
 * archives go through the invalidation bus (LISTEN/NOTIFY), so every instance drops its copy at once.
 * `last_used_at` is buffered in memory and written in batches, never once per request.
 */
export class AuthService {
  private readonly keys: ReadThroughCache<KeyCredential | null>;
  private readonly sessions: ReadThroughCache<SessionCredential | null>;
  private readonly pendingLastUsed = new Map<string, Date>();
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly database: Database,
    private readonly config: Config,
    private readonly invalidations: InvalidationBus,
  ) {
    this.keys = new ReadThroughCache(config.authCacheTtlMs);
    this.sessions = new ReadThroughCache(config.authCacheTtlMs);
    invalidations.subscribe(({ kind, id }) => {
      if (kind === 'api_key') this.keys.clear((_hash, key) => key?.keyId === id);
      if (kind === 'session') this.sessions.clear((_hash, session) => session?.sessionId === id);
      if (kind === 'all') for (const cache of [this.keys, this.sessions]) cache.clear();
      if (kind === 'tenant') {
        this.keys.clear((_hash, key) => key?.tenantId === id);
        this.sessions.clear((_hash, session) => session?.tenantId === id);
      }
    });
  }

  start(): void {
    this.flushTimer = setInterval(() => void this.flushLastUsed().catch(() => {}), this.config.lastUsedFlushMs);
    this.flushTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.flushTimer) clearInterval(this.flushTimer);
    await this.flushLastUsed();
  }

  /** Drops cached credentials here and on every other instance. */
  async invalidate(invalidation: { kind: 'api_key' | 'session' | 'tenant'; id: string }): Promise<void> {
    await this.invalidations.publish(invalidation);
  }

  pendingLastUsedAt(keyId: string): Date | undefined {
    return this.pendingLastUsed.get(keyId);
  }

  async flushLastUsed(): Promise<void> {
    if (this.pendingLastUsed.size === 0) return;
    const batch = [...this.pendingLastUsed.entries()];
    this.pendingLastUsed.clear();
    try {
      await writeLastUsed(this.database.db, batch);
    } catch (error) {
      for (const [id, at] of batch) if (!this.pendingLastUsed.has(id)) this.pendingLastUsed.set(id, at);
      throw error;
    }
  }

  /**
   * Verifies an API token. A cached credential is answered synchronously: this runs on every API call,
   * and the promise chain of an async lookup is a measurable part of a cached request.
   */
  verifyApiKey(token: string): KeyCredential | Promise<KeyCredential> {
    if (!isWellFormedApiToken(token))
      throw unauthenticated(HttpCodes.invalidApiKey, 'The API key is malformed or its checksum does not match.');
    const hash = sha256Hex(token);
    const cached = this.keys.peek(hash);
    if (cached !== undefined) return this.acceptKey(cached);
    return this.keys
      .get(hash, () => findCredentialByHash(this.database.db, hash))
      .then((credential) => this.acceptKey(credential));
  }

  private acceptKey(credential: KeyCredential | null): KeyCredential {
    if (!credential) throw unauthenticated(HttpCodes.invalidApiKey, 'The API key is not valid.');
    if (credential.revokedAt) throw unauthenticated(HttpCodes.apiKeyRevoked, 'The API key has been revoked.');
    if (credential.expiresAt && credential.expiresAt.getTime() <= Date.now())
      throw unauthenticated(HttpCodes.apiKeyExpired, 'The API key has expired.');
    if (credential.tenantStatus !== 'active')
      throw unauthenticated(HttpCodes.credentialTenantArchived, 'The tenant of this API key is archived.');
    this.pendingLastUsed.set(credential.keyId, new Date());
    return credential;
  }

  async verifySession(token: string): Promise<SessionCredential | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const hash = sha256Hex(token);
    const session = await this.sessions.get(hash, () => findSessionByHash(this.database.db, hash));
    if (!session || session.expiresAt.getTime() <= Date.now() || session.tenantStatus !== 'active') return null;
    return session;
  }
}

function csrfCheck(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  return new Promise((resolve, reject) => {
    app.csrfProtection.call(app, request, reply, (error?: Error) => (error ? reject(error) : resolve()));
  });
}

type MaybePromise<T> = T | Promise<T>;

/**
 * Resolves the request's credentials: a bearer API key, or the web UI's session cookie (+ CSRF for unsafe
 * methods). Synchronous for a cached API key without `Tagport-Tenant`, the common case.
 */
export function authenticate(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
): MaybePromise<AuthContext> {
  const header = request.headers.authorization;
  if (header === undefined)
    return authenticateSession(app, request, reply).then((context) => actingTenant(app, request, context));
  const match = BEARER.exec(header.trim());
  if (!match)
    throw unauthenticated(HttpCodes.invalidAuthorizationHeader, 'Use the header "Authorization: Bearer tgp_…".');
  const key = app.services.auth.verifyApiKey(match[1]);
  if (key instanceof Promise) return key.then((verified) => actingTenant(app, request, apiKeyContext(verified)));
  return actingTenant(app, request, apiKeyContext(key));
}

function apiKeyContext(key: KeyCredential): AuthContext {
  return {
    kind: 'api_key',
    tenantId: key.tenantId,
    credentialTenantId: key.tenantId,
    apiKeyId: key.keyId,
    userId: null,
    sessionId: null,
    role: key.role,
  };
}

async function authenticateSession(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<AuthContext> {
  const cookie = request.cookies[SESSION_COOKIE];
  const session = cookie ? await app.services.auth.verifySession(cookie) : null;
  if (!session)
    throw unauthenticated(HttpCodes.missingCredentials, 'Send an API key in the header "Authorization: Bearer tgp_…".');
  if (UNSAFE_METHODS.has(request.method)) await csrfCheck(app, request, reply);
  return {
    kind: 'session',
    tenantId: session.tenantId,
    credentialTenantId: session.tenantId,
    apiKeyId: null,
    userId: session.userId,
    sessionId: session.sessionId,
    role: session.role,
  };
}

/** Agencies and partners act on a client tenant with the `Tagport-Tenant` header; anyone else's is a 404. */
function actingTenant(app: FastifyInstance, request: FastifyRequest, context: AuthContext): MaybePromise<AuthContext> {
  const header = request.headers[TENANT_HEADER];
  const requested = typeof header === 'string' ? header.trim() : '';
  if (requested === '' || requested === context.credentialTenantId) return context;
  return findClientTenant(app.database.db, context.credentialTenantId, requested).then((client) => {
    if (!client) throw notFound('tenant', requested);
    return { ...context, tenantId: client.id };
  });
}
