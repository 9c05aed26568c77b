import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KeyCredential } from '../modules/auth/credentials.js';
import type { AuthContext } from './context.js';
import { HttpCodes, notFound, unauthenticated } from './errors.js';

export const SESSION_COOKIE = 'tgp_session';
export const TENANT_HEADER = 'tagport-tenant';
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const BEARER = /^bearer[ \t]+([^\s]+)[ \t]*$/i;

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
  if (session.enrollmentRequired && !ENROLLMENT_OPERATIONS.has(operationOf(request)))
    throw app.services.security.enrollmentRequiredError();
  return {
    kind: 'session',
    tenantId: session.tenantId,
    credentialTenantId: session.tenantId,
    apiKeyId: null,
    userId: session.userId,
    sessionId: session.sessionId,
    role: session.role,
    twoFactorEnrollmentRequired: session.enrollmentRequired,
  };
}

/** What a session may still do while its tenant waits for the user to set up two-factor sign-in. */
const ENROLLMENT_OPERATIONS = new Set([
  'getSession',
  'logout',
  'getTwoFactor',
  'startTwoFactorEnrollment',
  'confirmTwoFactorEnrollment',
  'listSessions',
  'revokeSession',
]);

const operationOf = (request: FastifyRequest): string =>
  ((request.routeOptions.schema as { operationId?: string } | undefined)?.operationId ?? '') as string;

/** Agencies and partners act on a client tenant with the `Tagport-Tenant` header; anyone else's is a 404. */
function actingTenant(app: FastifyInstance, request: FastifyRequest, context: AuthContext): MaybePromise<AuthContext> {
  const header = request.headers[TENANT_HEADER];
  const requested = typeof header === 'string' ? header.trim() : '';
  if (requested === '' || requested === context.credentialTenantId) return context;
  return app.services.tenants.findActiveClient(context.credentialTenantId, requested).then((client) => {
    if (!client) throw notFound('tenant', requested);
    return { ...context, tenantId: client.id };
  });
}
