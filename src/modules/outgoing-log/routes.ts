import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAuth } from '../../http/context.js';
import { CommonCodes } from '../../lib/errors.js';
import { listPage } from '../../http/pagination.js';
import { errorResponses, listEnvelope } from '../../http/schemas.js';
import { ContainerIdParams } from '../containers/schemas.js';
import { OutgoingLogEntry, OutgoingLogQuery } from './schemas.js';

export const outgoingLogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const outgoingLog = app.services.outgoingLog;

  app.get('/api/containers/:id/outgoing-log/', {
    schema: {
      operationId: 'listOutgoingLog',
      summary: 'What the container sent to GA4 and Meta, and what they answered',
      description:
        "Every forward of the built-in runtime once delivered or given up, newest first: the destination (`ga4 G-…`, `meta <pixel id>`), the event name and id, a summary of the request (access tokens masked), the vendor's HTTP status and message, attempts and latency. Filter by `vendor`, `status`, `event_name` (any case), `event_id` and `since`. Kept for the plan's `outgoing_log_retention_days`.",
      tags: ['Containers'],
      params: ContainerIdParams,
      querystring: OutgoingLogQuery,
      response: {
        200: listEnvelope(OutgoingLogEntry, 'A page of the outgoing log.'),
        ...errorResponses(CommonCodes.resourceMissing),
      },
    },
    handler: async (request) =>
      listPage(request, (window) =>
        outgoingLog.list(requireAuth(request).tenantId, request.params.id, request.query, window),
      ),
  });
};
