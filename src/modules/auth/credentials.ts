import type { Database } from '../../db/index.js';
import type { InvalidationBus } from '../../db/invalidation.js';
import { CommonCodes, unauthenticated } from '../../lib/errors.js';
import { ReadThroughCache } from '../../lib/cache.js';
import { isWellFormedApiToken, sha256Hex } from '../../lib/tokens.js';
import type { ApiKeyCredentials, KeyCredential } from '../api-keys/credentials.js';
import * as queries from './queries.js';
import type { SessionCredential } from './queries.js';

export type { KeyCredential, SessionCredential };

export interface AuthServiceDependencies {
  database: Database;
  invalidations: InvalidationBus;
  /** API-key lookups and last-used writes belong to the api-keys module; this service reaches them here. */
  apiKeys: ApiKeyCredentials;
}

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

  private readonly database: Database;
  private readonly invalidations: InvalidationBus;
  private readonly apiKeys: ApiKeyCredentials;

  constructor(
    { database, invalidations, apiKeys }: AuthServiceDependencies,
    private readonly settings: { cacheTtlMs: number; lastUsedFlushMs: number },
  ) {
    this.database = database;
    this.invalidations = invalidations;
    this.apiKeys = apiKeys;
    this.keys = new ReadThroughCache(settings.cacheTtlMs);
    this.sessions = new ReadThroughCache(settings.cacheTtlMs);
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
    this.flushTimer = setInterval(() => void this.flushLastUsed().catch(() => {}), this.settings.lastUsedFlushMs);
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
      await this.apiKeys.writeLastUsed(batch);
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
      throw unauthenticated(CommonCodes.invalidApiKey, 'The API key is malformed or its checksum does not match.');
    const hash = sha256Hex(token);
    const cached = this.keys.peek(hash);
    if (cached !== undefined) return this.acceptKey(cached);
    return this.keys.get(hash, () => this.apiKeys.findByHash(hash)).then((credential) => this.acceptKey(credential));
  }

  private acceptKey(credential: KeyCredential | null): KeyCredential {
    if (!credential) throw unauthenticated(CommonCodes.invalidApiKey, 'The API key is not valid.');
    if (credential.revokedAt) throw unauthenticated(CommonCodes.apiKeyRevoked, 'The API key has been revoked.');
    if (credential.expiresAt && credential.expiresAt.getTime() <= Date.now())
      throw unauthenticated(CommonCodes.apiKeyExpired, 'The API key has expired.');
    if (credential.tenantStatus !== 'active')
      throw unauthenticated(CommonCodes.credentialTenantArchived, 'The tenant of this API key is archived.');
    this.pendingLastUsed.set(credential.keyId, new Date());
    return credential;
  }

  async verifySession(token: string): Promise<SessionCredential | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const hash = sha256Hex(token);
    const session = await this.sessions.get(hash, () => queries.findSessionByHash(this.database.db, hash));
    if (!session || session.expiresAt.getTime() <= Date.now() || session.tenantStatus !== 'active') return null;
    return session;
  }
}
