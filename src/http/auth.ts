import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Database, Unlisten } from '../db/index.js';
import { findCredentialByHash, writeLastUsed, type KeyCredential } from '../modules/api-keys/queries.js';
import { findSessionByHash, type SessionCredential } from '../modules/auth/queries.js';
import { findClientTenant } from '../modules/tenants/queries.js';
import { isWellFormedApiToken, sha256Hex } from '../lib/tokens.js';
import type { AuthContext } from './context.js';
import { notFound, unauthenticated } from './errors.js';

export const SESSION_COOKIE = 'tgp_session';
export const TENANT_HEADER = 'tagport-tenant';
const AUTH_CHANNEL = 'tagport_auth';
const CACHE_LIMIT = 10_000;
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const BEARER = /^bearer[ \t]+([^\s]+)[ \t]*$/i;

interface CacheEntry<T> {
  value: T;
  loadedAt: number;
}

type Invalidation = { kind: 'api_key' | 'session' | 'tenant'; id: string };

/**
 * Verifies API keys and sessions. Verified credentials are cached in memory; revocations and tenant
 * archives are broadcast with LISTEN/NOTIFY so every instance drops its copy at once.
 * `last_used_at` is buffered in memory and written in batches, never once per request.
 */
export class AuthService {
  private readonly keys = new Map<string, CacheEntry<KeyCredential>>();
  private readonly sessions = new Map<string, CacheEntry<SessionCredential>>();
  private readonly pendingLastUsed = new Map<string, Date>();
  private unlisten: Unlisten | null = null;
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly database: Database,
    private readonly config: Config,
  ) {}

  async start(): Promise<void> {
    this.unlisten = await this.database.listen(AUTH_CHANNEL, (payload) => this.evict(JSON.parse(payload) as Invalidation));
    this.flushTimer = setInterval(() => void this.flushLastUsed().catch(() => {}), this.config.lastUsedFlushMs);
    this.flushTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.flushTimer) clearInterval(this.flushTimer);
    await this.unlisten?.().catch(() => {});
    await this.flushLastUsed();
  }

  /** Drops cached credentials here and on every other instance. */
  async invalidate(invalidation: Invalidation): Promise<void> {
    this.evict(invalidation);
    await this.database.notify(AUTH_CHANNEL, JSON.stringify(invalidation));
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

  async verifyApiKey(token: string): Promise<KeyCredential> {
    if (!isWellFormedApiToken(token)) throw unauthenticated('invalid_api_key', 'The API key is malformed or its checksum does not match.');
    const hash = sha256Hex(token);
    const credential = await this.cached(this.keys, hash, () => findCredentialByHash(this.database.db, hash));
    if (!credential) throw unauthenticated('invalid_api_key', 'The API key is not valid.');
    if (credential.revokedAt) throw unauthenticated('api_key_revoked', 'The API key has been revoked.');
    if (credential.expiresAt && credential.expiresAt.getTime() <= Date.now()) throw unauthenticated('api_key_expired', 'The API key has expired.');
    if (credential.tenantStatus !== 'active') throw unauthenticated('tenant_archived', 'The tenant of this API key is archived.');
    this.pendingLastUsed.set(credential.keyId, new Date());
    return credential;
  }

  async verifySession(token: string): Promise<SessionCredential | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const hash = sha256Hex(token);
    const session = await this.cached(this.sessions, hash, () => findSessionByHash(this.database.db, hash));
    if (!session || session.expiresAt.getTime() <= Date.now() || session.tenantStatus !== 'active') return null;
    return session;
  }

  private async cached<T>(cache: Map<string, CacheEntry<T>>, hash: string, load: () => Promise<T | null>): Promise<T | null> {
    const hit = cache.get(hash);
    if (hit && Date.now() - hit.loadedAt < this.config.authCacheTtlMs) return hit.value;
    const value = await load();
    cache.delete(hash);
    if (value) {
      if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
      cache.set(hash, { value, loadedAt: Date.now() });
    }
    return value;
  }

  private evict({ kind, id }: Invalidation): void {
    for (const [hash, entry] of this.keys) {
      if ((kind === 'api_key' && entry.value.keyId === id) || (kind === 'tenant' && entry.value.tenantId === id)) this.keys.delete(hash);
    }
    for (const [hash, entry] of this.sessions) {
      if ((kind === 'session' && entry.value.sessionId === id) || (kind === 'tenant' && entry.value.tenantId === id)) this.sessions.delete(hash);
    }
  }
}

function csrfCheck(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  return new Promise((resolve, reject) => {
    app.csrfProtection.call(app, request, reply, (error?: Error) => (error ? reject(error) : resolve()));
  });
}

/** Resolves the request's credentials: a bearer API key, or the web UI's session cookie (+ CSRF for unsafe methods). */
export async function authenticate(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<AuthContext> {
  const header = request.headers.authorization;
  let context: AuthContext;
  if (header !== undefined) {
    const match = BEARER.exec(header.trim());
    if (!match) throw unauthenticated('invalid_authorization_header', 'Use the header "Authorization: Bearer tgp_…".');
    const key = await app.auth.verifyApiKey(match[1]);
    context = { kind: 'api_key', tenantId: key.tenantId, credentialTenantId: key.tenantId, apiKeyId: key.keyId, userId: null, sessionId: null, role: null };
  } else {
    const cookie = request.cookies[SESSION_COOKIE];
    const session = cookie ? await app.auth.verifySession(cookie) : null;
    if (!session) throw unauthenticated('missing_credentials', 'Send an API key in the header "Authorization: Bearer tgp_…".');
    if (UNSAFE_METHODS.has(request.method)) await csrfCheck(app, request, reply);
    context = {
      kind: 'session',
      tenantId: session.tenantId,
      credentialTenantId: session.tenantId,
      apiKeyId: null,
      userId: session.userId,
      sessionId: session.sessionId,
      role: session.role,
    };
  }
  const actingTenant = request.headers[TENANT_HEADER];
  if (typeof actingTenant === 'string' && actingTenant.trim() !== '' && actingTenant.trim() !== context.credentialTenantId) {
    const client = await findClientTenant(app.database.db, context.credentialTenantId, actingTenant.trim());
    if (!client) throw notFound('tenant', actingTenant.trim());
    context.tenantId = client.id;
  }
  return context;
}
