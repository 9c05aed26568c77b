import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { requireAuth } from '../../http/context.js';
import { CommonCodes } from '../../lib/errors.js';
import { errorResponses, withMeta } from '../../http/schemas.js';
import { AuthErrors } from '../auth/errors.js';
import { SecurityErrors } from './errors.js';
import {
  CodeBody,
  RecoveryCodes,
  SessionIdParams,
  SessionList,
  TwoFactorEnrollment,
  TwoFactorStatus,
} from './schemas.js';

/** These operations concern the signed-in person, so they take the session cookie only, never an API key. */
function sessionUser(request: FastifyRequest) {
  const auth = requireAuth(request);
  if (auth.kind !== 'session' || !auth.userId) throw AuthErrors.sessionRequired();
  return { userId: auth.userId, sessionId: auth.sessionId };
}

export const securityRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const security = app.services.security;
  const tags = ['Web sessions'];
  const session = [{ session: [] }];

  app.get('/api/auth/two-factor/', {
    schema: {
      operationId: 'getTwoFactor',
      summary: 'Two-factor sign-in status',
      description:
        'Whether the signed-in user signs in with a second factor, since when, how many recovery codes are left, and whether a tenant they belong to requires it.',
      tags,
      security: session,
      response: { 200: withMeta(TwoFactorStatus), ...errorResponses(AuthErrors.sessionRequired) },
    },
    handler: async (request) => security.status(sessionUser(request).userId),
  });

  app.post('/api/auth/two-factor/enrollment/', {
    schema: {
      operationId: 'startTwoFactorEnrollment',
      summary: 'Start two-factor enrolment',
      description:
        'A new TOTP secret (RFC 6238: SHA-1, 6 digits, 30 s) as a QR code and as text, for an authenticator app. Nothing changes until a code from the app confirms it; starting again replaces the unconfirmed secret.',
      tags,
      security: session,
      response: {
        201: withMeta(TwoFactorEnrollment),
        ...errorResponses(AuthErrors.sessionRequired, SecurityErrors.alreadyEnabled),
      },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await security.startEnrollment(sessionUser(request).userId)),
  });

  app.post('/api/auth/two-factor/confirm/', {
    schema: {
      operationId: 'confirmTwoFactorEnrollment',
      summary: 'Turn two-factor sign-in on',
      description:
        'Confirms the enrolment with a current code from the app. Answers the one-time recovery codes, shown once: each signs in once without the app.',
      tags,
      security: session,
      body: CodeBody,
      response: {
        200: withMeta(RecoveryCodes),
        ...errorResponses(
          AuthErrors.sessionRequired,
          SecurityErrors.incorrectCode,
          SecurityErrors.alreadyEnabled,
          SecurityErrors.enrollmentNotStarted,
        ),
      },
    },
    handler: async (request) => {
      const { userId, sessionId } = sessionUser(request);
      return security.confirmEnrollment(userId, sessionId, request.body.code);
    },
  });

  app.delete('/api/auth/two-factor/', {
    schema: {
      operationId: 'disableTwoFactor',
      summary: 'Turn two-factor sign-in off',
      description:
        'Needs a current code (or a recovery code). Refused while a tenant the user belongs to requires two-factor sign-in.',
      tags,
      security: session,
      body: CodeBody,
      response: {
        200: withMeta(TwoFactorStatus),
        ...errorResponses(
          AuthErrors.sessionRequired,
          SecurityErrors.incorrectCode,
          SecurityErrors.notEnabled,
          SecurityErrors.requiredByTenant,
        ),
      },
    },
    handler: async (request) => security.disable(sessionUser(request).userId, request.body.code),
  });

  app.get('/api/auth/sessions/', {
    schema: {
      operationId: 'listSessions',
      summary: 'List my sessions',
      description: "The signed-in user's open web sessions, with the browser and address that opened each.",
      tags,
      security: session,
      response: { 200: withMeta(SessionList), ...errorResponses(AuthErrors.sessionRequired) },
    },
    handler: async (request) => {
      const { userId, sessionId } = sessionUser(request);
      return { results: await security.sessions(userId, sessionId) };
    },
  });

  app.delete('/api/auth/sessions/:id/', {
    schema: {
      operationId: 'revokeSession',
      summary: 'Sign a session out',
      description: 'Ends one of your sessions at once on every instance; revoking the current one signs you out.',
      tags,
      security: session,
      params: SessionIdParams,
      response: {
        200: withMeta(Type.Object({ revoked: Type.Boolean() }, { additionalProperties: false })),
        ...errorResponses(AuthErrors.sessionRequired, CommonCodes.resourceMissing),
      },
    },
    handler: async (request) => {
      await security.revokeSession(sessionUser(request).userId, request.params.id);
      return { revoked: true };
    },
  });
};
