import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, StringEnum, withMeta } from '../../http/schemas.js';

const Health = Type.Object(
  {
    status: StringEnum(['ok', 'unavailable'] as const),
    checks: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { $id: 'Health', additionalProperties: false },
);

export const systemRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['System'];
  app.get('/healthz', {
    config: { public: true },
    schema: {
      operationId: 'health',
      summary: 'Liveness',
      description: 'The process is up.',
      tags,
      security: [],
      response: { 200: withMeta(Health), ...errorResponses() },
    },
    handler: async () => ({ status: 'ok' as const }),
  });

  app.get('/readyz', {
    config: { public: true },
    schema: {
      operationId: 'readiness',
      summary: 'Readiness',
      description: 'The database answers; 503 otherwise.',
      tags,
      security: [],
      response: { 200: withMeta(Health), ...errorResponses(), 503: withMeta(Health) },
    },
    handler: async (_request, reply) => {
      try {
        await app.database.ping();
        return { status: 'ok' as const, checks: { database: 'ok' } };
      } catch {
        return reply.code(503).send({ status: 'unavailable' as const, checks: { database: 'unreachable' } });
      }
    },
  });
};
