import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireAuth } from '../../http/context.js';
import { listPage } from '../../http/pagination.js';
import { CommonCodes } from '../../lib/errors.js';
import { errorResponses, listEnvelope, PaginationQuery, Timestamp, withMeta } from '../../http/schemas.js';
import { idPattern } from '../../lib/ids.js';

const Event = Type.Object(
  {
    id: Type.String({ description: 'Event id (`evt_…`), the `id` of its webhook deliveries.' }),
    type: Type.String({
      description: 'The event type, one of the webhook event types (e.g. `monitor.down`, `container.status_changed`).',
    }),
    object_type: Type.String({ description: 'What the event is about (`monitor`, `incident`, `container`, …).' }),
    object_id: Type.String({ description: 'Id of that object.' }),
    data: Type.Record(Type.String(), Type.Unknown(), {
      description: "The event's data, exactly as its webhook deliveries carry it (see `webhooks` for each type).",
    }),
    created_at: Timestamp('When it happened; the `created_at` of its webhook deliveries.'),
  },
  {
    $id: 'Event',
    additionalProperties: false,
    description: 'Something that happened to an object of the tenant; every webhook delivery is one of these.',
  },
);

const EventIdParams = Type.Object({
  id: Type.String({ pattern: idPattern('event'), description: 'Event id (`evt_…`).' }),
});

export const eventRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/api/events/', {
    schema: {
      operationId: 'listEvents',
      summary: 'List events',
      description:
        'What happened to your objects, newest first: every event a webhook can receive (monitors, incidents, containers, domains and their certificates, reports, scans, members), whether or not a webhook is subscribed to it.',
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

  app.get('/api/events/:id/', {
    schema: {
      operationId: 'getEvent',
      summary: 'Get an event',
      description:
        'One event by its id: look up the `evt_…` id of a webhook delivery (its `id` field and `Tagport-Event-Id` header) to get the same type, time and data.',
      tags: ['Events'],
      params: EventIdParams,
      response: { 200: withMeta(Event), ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request) => app.services.events.get(requireAuth(request).tenantId, request.params.id),
  });
};
