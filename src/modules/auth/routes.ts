import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SESSION_COOKIE } from '../../http/auth.js';
import { requireAuth } from '../../http/context.js';
import { CommonCodes } from '../../lib/errors.js';
import { errorResponses, withMeta } from '../../http/schemas.js';
import { AuthErrors } from './errors.js';
import { LoginBody, Session, SetupBody, SetupResult } from './schemas.js';
import { Type } from 'typebox';

export const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { users } = app.services;
  const tags = ['Web sessions'];

  app.post('/api/setup/', {
    config: { public: true },
    schema: {
      operationId: 'firstRunSetup',
      summary: 'First-run set-up',
      description:
        'Creates the first tenant and its owner account while the database has no users; 409 `already_set_up` afterwards. ' +
        'On an empty database it needs nothing else. Once the database has tenants (provisioned with the CLI) it also needs ' +
        '`setup_token`, a one-time token from `tagport setup-token` or from the set-up URL the server logs at start; ' +
        'without it 403 `setup_token_required`, with a wrong, expired or used one 403 `invalid_setup_token`.',
      tags,
      security: [],
      body: SetupBody,
      response: {
        201: withMeta(SetupResult),
        ...errorResponses(
          AuthErrors.weakPassword,
          AuthErrors.setupTokenRequired,
          AuthErrors.invalidSetupToken,
          AuthErrors.alreadySetUp,
        ),
      },
    },
    handler: async (request, reply) => reply.code(201).send(await users.setup(request.body)),
  });

  app.post('/api/auth/login', {
    config: { public: true },
    schema: {
      operationId: 'login',
      summary: 'Sign in (web UI)',
      description:
        'Checks email and password and sets the HttpOnly session cookie used by the web dashboard. Failed attempts are throttled per email and IP.',
      tags,
      security: [],
      body: LoginBody,
      response: {
        200: withMeta(Session),
        ...errorResponses(
          AuthErrors.invalidLogin,
          AuthErrors.noActiveTenant,
          CommonCodes.missingCredentials,
          CommonCodes.resourceMissing,
          AuthErrors.tooManyLoginAttempts,
        ),
      },
    },
    handler: async (request, reply) => {
      const { token, expiresAt } = await users.login(request.body, {
        ip: request.ip,
        userAgent: request.headers['user-agent'],
      });
      reply.setCookie(SESSION_COOKIE, token, {
        httpOnly: true,
        sameSite: 'lax',
        secure: app.config.secureCookies,
        path: '/',
        expires: expiresAt,
      });
      const session = await app.services.auth.verifySession(token);
      if (!session) throw AuthErrors.sessionNotOpened();
      return {
        ...(await users.describe(session.userId, session.tenantId, session.role, session.enrollmentRequired)),
        csrf_token: reply.generateCsrf(),
      };
    },
  });

  app.get('/api/auth/session', {
    schema: {
      operationId: 'getSession',
      summary: 'Current web session',
      description: 'The signed-in user, tenant and a CSRF token for unsafe requests made with the session cookie.',
      tags,
      security: [{ session: [] }],
      response: { 200: withMeta(Session), ...errorResponses(AuthErrors.sessionRequired) },
    },
    handler: async (request, reply) => {
      const auth = requireAuth(request);
      if (auth.kind !== 'session' || !auth.userId || !auth.role) throw AuthErrors.sessionRequired();
      const enrollmentRequired = auth.twoFactorEnrollmentRequired === true;
      const session = await users.describe(auth.userId, auth.tenantId, auth.role, enrollmentRequired);
      return { ...session, csrf_token: reply.generateCsrf() };
    },
  });

  app.post('/api/auth/logout', {
    schema: {
      operationId: 'logout',
      summary: 'Sign out (web UI)',
      description:
        'Ends the web session of the cookie and clears the cookie. Needs the session cookie; an API key gets 401 `session_required`.',
      tags,
      security: [{ session: [] }],
      response: {
        200: withMeta(Type.Object({ signed_out: Type.Boolean() }, { additionalProperties: false })),
        ...errorResponses(AuthErrors.sessionRequired),
      },
    },
    handler: async (request, reply) => {
      const auth = requireAuth(request);
      if (auth.kind !== 'session' || !auth.sessionId) throw AuthErrors.sessionRequired();
      await users.logout(auth.sessionId);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return { signed_out: true };
    },
  });
};
