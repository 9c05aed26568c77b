import type { Database } from '../../db/index.js';
import type { ApiKeyRow } from '../../db/schema.js';
import type { AuthContext, Role } from '../../http/context.js';
import { requireRole } from '../../http/roles.js';
import { newId } from '../../lib/ids.js';
import { generateApiToken, sha256Hex, tokenHint } from '../../lib/tokens.js';
import type { AuthService } from '../auth/credentials.js';
import type { DeprecatedCallLog } from './deprecated-calls.js';
import { ApiKeyErrors } from './errors.js';
import * as queries from './queries.js';
import type { ApiKeyDto, CreateApiKeyInput, DeprecatedCallDto } from './schemas.js';
import type { ListWindow } from '../../lib/list-window.js';

const MAX_ACTIVE_KEYS_PER_TENANT = 100;

export class ApiKeyService {
  private readonly database: Database;
  private readonly auth: AuthService;
  private readonly deprecatedCalls: DeprecatedCallLog;

  constructor({
    database,
    auth,
    deprecatedCalls,
  }: { database: Database; auth: AuthService; deprecatedCalls: DeprecatedCallLog }) {
    this.database = database;
    this.auth = auth;
    this.deprecatedCalls = deprecatedCalls;
  }

  toDto(row: ApiKeyRow, deprecatedCalls: DeprecatedCallDto[] = []): ApiKeyDto {
    const pending = this.auth.pendingLastUsedAt(row.id);
    const lastUsed = pending && (!row.lastUsedAt || pending > row.lastUsedAt) ? pending : row.lastUsedAt;
    const status = row.revokedAt
      ? 'revoked'
      : row.expiresAt && row.expiresAt.getTime() <= Date.now()
        ? 'expired'
        : 'active';
    return {
      id: row.id,
      tenant_id: row.tenantId,
      name: row.name,
      token_start: row.tokenStart,
      token_last4: row.tokenLast4,
      role: row.role,
      status,
      created_at: row.createdAt.toISOString(),
      expires_at: row.expiresAt?.toISOString() ?? null,
      last_used_at: lastUsed?.toISOString() ?? null,
      revoked_at: row.revokedAt?.toISOString() ?? null,
      deprecated_calls: deprecatedCalls,
    };
  }

  /** The keys with the deprecated operations each called lately (the dashboard warns about them). */
  private async toDtos(rows: ApiKeyRow[]): Promise<ApiKeyDto[]> {
    const calls = await this.deprecatedCalls.recent(rows.map((row) => row.id));
    return rows.map((row) => this.toDto(row, calls.get(row.id)));
  }

  async list(auth: AuthContext, window: ListWindow) {
    const { rows, total } = await queries.listKeys(this.database.db, auth.tenantId, window);
    return { results: await this.toDtos(rows), total };
  }

  /** Operator path (CLI, tests): no caller whose role limits the key's. */
  async create(tenantId: string, input: CreateApiKeyInput): Promise<ApiKeyDto & { token: string }> {
    let expiresAt: Date | null = null;
    if (input.expires_at !== undefined) {
      expiresAt = new Date(input.expires_at);
      if (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= Date.now()) {
        throw ApiKeyErrors.expiryNotInFuture();
      }
    }
    if ((await queries.countActiveKeys(this.database.db, tenantId)) >= MAX_ACTIVE_KEYS_PER_TENANT) {
      throw ApiKeyErrors.tooManyApiKeys(MAX_ACTIVE_KEYS_PER_TENANT);
    }
    const token = generateApiToken();
    const hint = tokenHint(token);
    const row = await queries.insertKey(this.database.db, {
      id: newId('apiKey'),
      tenantId,
      name: input.name.trim(),
      tokenHash: sha256Hex(token),
      tokenStart: hint.start,
      tokenLast4: hint.last4,
      role: input.role ?? 'admin',
      expiresAt,
    });
    return { ...this.toDto(row), token };
  }

  /** Who may create keys at all is the role policy's (src/http/roles.ts); nobody hands out a role above their own. */
  async createFor(auth: AuthContext, input: CreateApiKeyInput) {
    const role: Role = input.role ?? 'admin';
    requireRole(auth, role, `Creating an API key with the ${role} role`);
    return this.create(auth.tenantId, { ...input, role });
  }

  /** Revokes a key; it fails at once on every instance. Revoking a revoked key returns it unchanged. */
  async revoke(tenantId: string, keyId: string): Promise<ApiKeyDto> {
    const revoked = await queries.revokeKey(this.database.db, tenantId, keyId);
    if (revoked) {
      await this.auth.invalidate({ kind: 'api_key', id: keyId });
      return (await this.toDtos([revoked]))[0];
    }
    const existing = await queries.findKey(this.database.db, tenantId, keyId);
    if (!existing) throw ApiKeyErrors.notFound(keyId);
    return (await this.toDtos([existing]))[0];
  }

  /** Nobody revokes a key with a role above their own (an admin cannot cut off the owner's automation). */
  async revokeFor(auth: AuthContext, keyId: string) {
    const key = await queries.findKey(this.database.db, auth.tenantId, keyId);
    if (!key) throw ApiKeyErrors.notFound(keyId);
    requireRole(auth, key.role, `Revoking an API key with the ${key.role} role`);
    return this.revoke(auth.tenantId, keyId);
  }
}
