import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireAuth } from '../../http/context.js';
import { listPage } from '../../http/pagination.js';
import { errorResponses, listEnvelope, PaginationQuery, Timestamp } from '../../http/schemas.js';

const Event = Type.Object(
  {
    id: Type.String({ description: 'Event id (`evt_…`).' }),
    type: Type.String({ description: 'e.g. `container.status_changed`, `domain.verified`.' }),
    object_type: Type.String(),
    object_id: Type.String(),
    data: Type.Record(Type.String(), Type.Unknown()),
    created_at: Timestamp('When it happened.'),
  },
  { $id: 'Event', additionalProperties: false },
);

export const eventRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/api/events/', {
    schema: {
      operationId: 'listEvents',
      summary: 'List events',
      description:
        'What happened to your objects, newest first: every container state transition and domain verification outcome.',
      tags: ['Events'],
      querystring: Type.Object({
        ...PaginationQuery.properties,
        object_id: Type.Optional(Type.String({ maxLength: 64 })),
        type: Type.Optional(Type.String({ maxLength: 64 })),
      }),
      response: { 200: listEnvelope(Event, 'A page of events.'), ...errorResponses() },
    },
    handler: async (request) => {
      return listPage(request, (window) =>
        app.services.events.list(
          requireAuth(request).tenantId,
          { objectId: request.query.object_id, type: request.query.type },
          window,
        ),
      );
    },
  });
};
