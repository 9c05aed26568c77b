import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAuth } from '../../http/context.js';
import { CommonCodes } from '../../lib/errors.js';
import { listPage } from '../../http/pagination.js';
import { errorResponses, listEnvelope } from '../../http/schemas.js';
import { ContainerIdParams } from '../containers/schemas.js';
import { DelayedRequest, DelayedRequestQuery, ScheduleRun, ScheduleRunQuery } from './schemas.js';

export const requestPowerupRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const powerups = app.services.requestPowerups;

  app.get('/api/containers/:id/delayed-requests/', {
    schema: {
      operationId: 'listDelayedRequests',
      summary: 'Requests held by Request Delay',
      description:
        'The requests the container received at `/delay/<minutes>/<path>` (or `/stape/delay/…`) with `settings.request_delay` on, newest first: where and when each is sent, its state, attempts and the last error. Bodies are shown as their size and first 64 bytes only. Filter by `status`. Delivered requests are kept 3 days, failed ones 7.',
      tags: ['Containers'],
      params: ContainerIdParams,
      querystring: DelayedRequestQuery,
      response: {
        200: listEnvelope(DelayedRequest, 'A page of delayed requests.'),
        ...errorResponses(CommonCodes.resourceMissing),
      },
    },
    handler: async (request) =>
      listPage(request, (window) =>
        powerups.delayedRequests(requireAuth(request).tenantId, request.params.id, request.query, window),
      ),
  });

  app.get('/api/containers/:id/schedule-runs/', {
    schema: {
      operationId: 'listScheduleRuns',
      summary: "Runs of the container's scheduled requests",
      description:
        'The requests sent on the schedules of `settings.schedule`, newest first: the due time, the outcome, the HTTP status, the error and how long each took. The newest 20 runs of each schedule are kept. Filter by `schedule` (its name).',
      tags: ['Containers'],
      params: ContainerIdParams,
      querystring: ScheduleRunQuery,
      response: {
        200: listEnvelope(ScheduleRun, 'A page of schedule runs.'),
        ...errorResponses(CommonCodes.resourceMissing),
      },
    },
    handler: async (request) =>
      listPage(request, (window) =>
        powerups.scheduleRuns(requireAuth(request).tenantId, request.params.id, request.query, window),
      ),
  });
};
