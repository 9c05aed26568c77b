import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SESSION_COOKIE } from '../../http/auth.js';
import { requireAuth } from '../../http/context.js';
import { unauthenticated } from '../../http/errors.js';
import { errorResponses, withMeta } from '../../http/schemas.js';
import { LoginBody, Session } from './schemas.js';
import { Type } from 'typebox';

export const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { users } = app.services;
  const tags = ['Web sessions'];

  app.post('/api/auth/login', {
    config: { public: true },
    schema: {
      operationId: 'login',
      summary: 'Sign in (web UI)',
      description: 'Checks email and password and sets the HttpOnly session cookie used by the web dashboard. Failed attempts are throttled per email and IP.',
      tags,
      security: [],
      body: LoginBody,
      response: { 200: withMeta(Session), ...errorResponses(404, 413, 415) },
    },
    handler: async (request, reply) => {
      const { token, expiresAt } = await users.login(request.body, request.ip);
      reply.setCookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure: app.config.secureCookies, path: '/', expires: expiresAt });
      const session = await app.services.auth.verifySession(token);
      if (!session) throw unauthenticated('missing_credentials', 'The session could not be opened.');
      return { ...(await users.describe(session.userId, session.tenantId, session.role)), csrf_token: reply.generateCsrf() };
    },
  });

  app.get('/api/auth/session', {
    schema: {
      operationId: 'getSession',
      summary: 'Current web session',
      description: 'The signed-in user, tenant and a CSRF token for unsafe requests made with the session cookie.',
      tags,
      security: [{ session: [] }],
      response: { 200: withMeta(Session), ...errorResponses() },
    },
    handler: async (request, reply) => {
      const auth = requireAuth(request);
      if (auth.kind !== 'session' || !auth.userId || !auth.role) throw unauthenticated('session_required', 'This endpoint needs the web session cookie, not an API key.');
      return { ...(await users.describe(auth.userId, auth.tenantId, auth.role)), csrf_token: reply.generateCsrf() };
    },
  });

  app.post('/api/auth/logout', {
    schema: {
      operationId: 'logout',
      summary: 'Sign out (web UI)',
      tags,
      security: [{ session: [] }],
      response: { 200: withMeta(Type.Object({ signed_out: Type.Boolean() }, { additionalProperties: false })), ...errorResponses(403) },
    },
    handler: async (request, reply) => {
      const auth = requireAuth(request);
      if (auth.kind !== 'session' || !auth.sessionId) throw unauthenticated('session_required', 'This endpoint needs the web session cookie, not an API key.');
      await users.logout(auth.sessionId);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return { signed_out: true };
    },
  });
};
