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
      description:
        'The database answers and every role of this process can take work (`api`; `gateway`: listening; `worker`: running jobs); 503 otherwise, also while the process shuts down. `checks` has one entry per role.',
      tags,
      security: [],
      response: { 200: withMeta(Health), ...errorResponses(), 503: withMeta(Health) },
    },
    handler: async (_request, reply) => {
      const database = await app.database.ping().then(
        () => 'ok',
        () => 'unreachable',
      );
      const checks = { database, ...app.services.readiness() };
      if (Object.values(checks).every((state) => state === 'ok')) return { status: 'ok' as const, checks };
      return reply.code(503).send({ status: 'unavailable' as const, checks });
    },
  });
};
