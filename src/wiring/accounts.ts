import type { LimiterFactory } from '../http/rate-limit.js';
import { userSecretsBox } from '../lib/secrets.js';
import { ApiKeyCredentials } from '../modules/api-keys/credentials.js';
import { DeprecatedCallLog } from '../modules/api-keys/deprecated-calls.js';
import { ApiKeyService } from '../modules/api-keys/service.js';
import { AuthService } from '../modules/auth/credentials.js';
import { UserService } from '../modules/auth/service.js';
import { InvitationService } from '../modules/members/invitations.js';
import { MemberService } from '../modules/members/service.js';
import { SecurityService } from '../modules/security/service.js';
import { TenantService } from '../modules/tenants/service.js';
import type { Shared } from './shared.js';

/** Tenants, people and credentials: who may call what. */
export function buildAccounts(
  { database, config, invalidations, events, mailer }: Shared,
  createLimiter: LimiterFactory,
) {
  const auth = new AuthService(
    { database, invalidations, apiKeys: new ApiKeyCredentials({ database }) },
    { cacheTtlMs: config.authCacheTtlMs, lastUsedFlushMs: config.lastUsedFlushMs },
  );
  // Counted like last_used_at: in memory, written in one statement per flush.
  const deprecatedCalls = new DeprecatedCallLog({ database }, { flushMs: config.lastUsedFlushMs });
  const security = new SecurityService({ database, auth, box: userSecretsBox(config) });
  return {
    auth,
    deprecatedCalls,
    security,
    tenants: new TenantService({ database, invalidations }, { cacheTtlMs: config.authCacheTtlMs }),
    apiKeys: new ApiKeyService({ database, auth, deprecatedCalls }),
    users: new UserService({ database, auth, security, createLimiter }, { sessionTtlHours: config.sessionTtlHours }),
    members: new MemberService({ database, auth, events }),
    invitations: new InvitationService({ database, events, mailer }),
  };
}
