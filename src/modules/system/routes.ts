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
        'The database answers and every role of this process can take work (`api`; `gateway`: listening; `worker`: running jobs); 503 otherwise, also while the process shuts down. `checks` has one entry per role, and `redis` when REDIS_URL is set: reported, not required (while it is unreachable the rate limits count per instance).',
      tags,
      security: [],
      response: { 200: withMeta(Health), ...errorResponses(), 503: withMeta(Health) },
    },
    handler: async (_request, reply) => {
      const [database, redis] = await Promise.all([
        app.database.ping().then(
          () => 'ok',
          () => 'unreachable',
        ),
        app.rateLimits.redisState(),
      ]);
      const checks = { database, ...app.services.readiness() };
      // Reported, not required: without Redis the rate limits count per instance, and the instance still serves.
      const reported = redis ? { ...checks, redis } : checks;
      if (Object.values(checks).every((state) => state === 'ok')) return { status: 'ok' as const, checks: reported };
      return reply.code(503).send({ status: 'unavailable' as const, checks: reported });
    },
  });
};
