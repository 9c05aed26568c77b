import type { Config } from '../config.js';
import type { Database } from '../db/index.js';
import type { RateLimits } from './rate-limit.js';

export type Role = 'owner' | 'admin' | 'member';

export interface AuthContext {
  kind: 'api_key' | 'session';
  /** The tenant the request acts on: the credential's tenant, or one of its clients via `Tagport-Tenant`. */
  tenantId: string;
  /** The tenant that owns the credential. */
  credentialTenantId: string;
  apiKeyId: string | null;
  userId: string | null;
  sessionId: string | null;
  /** The session user's role in the tenant, or the API key's role (src/http/roles.ts). */
  role: Role;
  /** A session whose tenant requires two-factor sign-in the user has not set up: only enrolment is allowed. */
  twoFactorEnrollmentRequired?: boolean;
}

// The instance's `services` are declared where the app is built (src/app.ts): the modules' services import this file.
declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    database: Database;
    rateLimits: RateLimits;
  }
  interface FastifyRequest {
    authContext: AuthContext | null;
  }
  interface FastifyContextConfig {
    /** Route needs no credentials (rate limited per IP). */
    public?: boolean;
  }
}

export function requireAuth(request: import('fastify').FastifyRequest): AuthContext {
  if (!request.authContext) throw new Error('route reached without authentication');
  return request.authContext;
}
