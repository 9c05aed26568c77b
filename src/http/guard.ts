import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, SESSION_COOKIE } from './auth.js';
import type { AuthContext } from './context.js';
import { registerRolePolicy } from './roles.js';

/** Probes and the static icon browsers fetch with every fresh page (like /assets/, served from memory). */
export const UNLIMITED_PATHS = new Set(['/healthz', '/readyz', '/favicon.ico', '/favicon.svg']);

type Done = (error?: Error) => void;

/** What a browser loads as a page: everything outside the API, and the API console under /api/docs. */
export const isPage = (path: string) => !path.startsWith('/api/') || path.startsWith('/api/docs');

function needsCredentials(request: FastifyRequest, path: string): boolean {
  if (isPage(path)) return false;
  const route = request.routeOptions; // a getter that builds an object: read it once
  return route.url !== undefined && !route.config.public;
}

/** Counts the request against its rate limit, then ends the hook with the earlier failure, if any. */
function limitThenFinish(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  failure: unknown,
  done: Done,
  pageSession: string | null = null,
): void {
  app.rateLimits.apply(request, reply, pageSession).then(
    () => done(failure as Error | undefined),
    (limited: Error) => done(limited),
  );
}

/** The signed-in session a browser sends with a page outside the API (null without one, or when not valid). */
function pageSession(app: FastifyInstance, request: FastifyRequest): Promise<string | null> | null {
  const cookie = request.cookies[SESSION_COOKIE];
  if (!cookie) return null;
  return app.services.auth.verifySession(cookie).then(
    (session) => session?.sessionId ?? null,
    () => null,
  );
}

/**
 * The one onRequest hook every request passes: the X-Request-Id header, credentials for /api/ routes,
 * and the rate limit (per credential, or per IP for anonymous and failed requests, which are counted
 * before their 401). Callback style with a synchronous path for cached credentials and no closures
 * created per request, because its cost is paid by every call.
 */
export function registerRequestGuard(app: FastifyInstance): void {
  registerRolePolicy(app);
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: Done) => {
    reply.header('x-request-id', request.id);
    const queryAt = request.url.indexOf('?');
    const path = queryAt === -1 ? request.url : request.url.slice(0, queryAt);
    if (UNLIMITED_PATHS.has(path) || path.startsWith('/assets/')) return done();

    if (isPage(path)) {
      const session = pageSession(app, request);
      if (!session) return limitThenFinish(app, request, reply, undefined, done);
      return void session.then((id) => limitThenFinish(app, request, reply, undefined, done, id));
    }
    let context: AuthContext | Promise<AuthContext> | null;
    try {
      context = needsCredentials(request, path) ? authenticate(app, request, reply) : null;
    } catch (failure) {
      return limitThenFinish(app, request, reply, failure, done);
    }
    if (!(context instanceof Promise)) {
      request.authContext = context;
      return limitThenFinish(app, request, reply, undefined, done);
    }
    context.then(
      (resolved) => {
        request.authContext = resolved;
        limitThenFinish(app, request, reply, undefined, done);
      },
      (failure: unknown) => limitThenFinish(app, request, reply, failure, done),
    );
  });
}
