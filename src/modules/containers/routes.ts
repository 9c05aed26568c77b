import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireAuth } from '../../http/context.js';
import { CommonCodes } from '../../lib/errors.js';
import { ContainerErrors } from './errors.js';
import { RequestPowerupErrors } from '../request-powerups/errors.js';
import { listPage } from '../../http/pagination.js';
import { errorResponses, listEnvelope, PaginationQuery, withMeta } from '../../http/schemas.js';
import {
  Container,
  ContainerIdParams,
  CreateContainerBody,
  LogsQuery,
  RequestLog,
  STATE_MACHINE,
  TaggingServerLogs,
  TaggingServerLogsQuery,
  UpdateContainerBody,
  Usage,
  UsageQuery,
  type ContainerAction,
} from './schemas.js';

/** Start, stop and restart share their answer: 202 with the transitional state, or 409 naming the allowed actions. */
function actionSchema(operationId: string, summary: string) {
  return {
    operationId,
    summary,
    description:
      'Returns 202 with the transitional state; the worker completes the transition. 409 names the actions the current state allows.',
    tags: ['Containers'],
    params: ContainerIdParams,
    response: {
      202: withMeta(Container),
      ...errorResponses(
        CommonCodes.resourceMissing,
        CommonCodes.invalidTransition,
        ContainerErrors.orchestratorUnavailable,
      ),
    },
  };
}

export const containerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const containers = app.services.containers;
  const tags = ['Containers'];
  const tenant = (request: Parameters<typeof requireAuth>[0]) => requireAuth(request).tenantId;

  app.get('/api/containers/', {
    schema: {
      operationId: 'listContainers',
      summary: 'List containers',
      description: 'Containers of the tenant, deleted ones left out.',
      tags,
      querystring: PaginationQuery,
      response: { 200: listEnvelope(Container, 'A page of containers.'), ...errorResponses() },
    },
    handler: async (request) => {
      return listPage(request, (window) => containers.list(tenant(request), window));
    },
  });

  app.post('/api/containers/', {
    schema: {
      operationId: 'createContainer',
      summary: 'Create a container',
      description: `Creates a hosted server-side tagging container; it starts in \`provisioning\`. States: ${STATE_MACHINE} The plan's \`max_containers\` applies (402).`,
      tags,
      body: CreateContainerBody,
      response: {
        201: withMeta(Container),
        ...errorResponses(
          CommonCodes.planLimitReached,
          ContainerErrors.invalidConfig,
          CommonCodes.httpsRequired,
          ContainerErrors.upstreamNotAllowed,
          ContainerErrors.upstreamRequired,
          ContainerErrors.invalidLoaderPath,
          RequestPowerupErrors.invalidCron,
          ContainerErrors.invalidFilePath,
          ContainerErrors.runtimeUnavailable,
          ContainerErrors.invalidReplicas,
        ),
      },
    },
    handler: async (request, reply) => reply.code(201).send(await containers.create(tenant(request), request.body)),
  });

  app.get('/api/containers/:id/', {
    schema: {
      operationId: 'getContainer',
      summary: 'Get a container',
      description: 'One container with its state, the actions that state allows and its default hostname.',
      tags,
      params: ContainerIdParams,
      response: { 200: withMeta(Container), ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request) => containers.get(tenant(request), request.params.id),
  });

  app.patch('/api/containers/:id/', {
    schema: {
      operationId: 'updateContainer',
      summary: 'Update a container',
      description:
        'Changes the name, config, runtime, upstream URL or settings; only the given fields. A deleting or deleted container answers 409 `container_deleted`. On a running `sgtm` container a changed config or `settings.tagging_server` is rolled out to its tagging servers one replica at a time; switching a running container to `sgtm` makes it `starting` until its tagging servers are available.',
      tags,
      params: ContainerIdParams,
      body: UpdateContainerBody,
      response: {
        200: withMeta(Container),
        ...errorResponses(
          CommonCodes.resourceMissing,
          ContainerErrors.notChangeable,
          ContainerErrors.invalidConfig,
          CommonCodes.httpsRequired,
          ContainerErrors.upstreamNotAllowed,
          ContainerErrors.upstreamRequired,
          ContainerErrors.invalidLoaderPath,
          RequestPowerupErrors.invalidCron,
          ContainerErrors.invalidFilePath,
          ContainerErrors.runtimeUnavailable,
          ContainerErrors.invalidReplicas,
          CommonCodes.planLimitReached,
          ContainerErrors.orchestratorUnavailable,
        ),
      },
    },
    handler: async (request) => containers.update(tenant(request), request.params.id, request.body),
  });

  app.delete('/api/containers/:id/', {
    schema: {
      operationId: 'deleteContainer',
      summary: 'Delete a container',
      description: 'Returns 202 with status `deleting`; the worker completes it to `deleted`.',
      tags,
      params: ContainerIdParams,
      response: {
        202: withMeta(Container),
        ...errorResponses(CommonCodes.resourceMissing, CommonCodes.invalidTransition),
      },
    },
    handler: async (request, reply) =>
      reply.code(202).send(await containers.act(tenant(request), request.params.id, 'delete')),
  });

  const act =
    (action: ContainerAction) => async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) =>
      reply.code(202).send(await containers.act(tenant(request), request.params.id, action));

  app.post('/api/containers/:id/start/', {
    schema: actionSchema('startContainer', 'Start a container'),
    handler: act('start'),
  });
  app.post('/api/containers/:id/stop/', {
    schema: actionSchema('stopContainer', 'Stop a container'),
    handler: act('stop'),
  });
  app.post('/api/containers/:id/restart/', {
    schema: actionSchema('restartContainer', 'Restart a container'),
    handler: act('restart'),
  });

  app.get('/api/containers/:id/usage/', {
    schema: {
      operationId: 'getContainerUsage',
      summary: 'Request usage of a container',
      description:
        'Requests and body bytes through the gateway per UTC day, hostname and status class (`rows`), with totals per day, hostname and status class. Bodies are counted as sent: compressed bytes stay compressed.',
      tags,
      params: ContainerIdParams,
      querystring: UsageQuery,
      response: {
        200: withMeta(Usage),
        ...errorResponses(CommonCodes.resourceMissing, CommonCodes.periodReversed, CommonCodes.periodTooLong),
      },
    },
    handler: async (request) => containers.usage(tenant(request), request.params.id, request.query),
  });

  app.get('/api/containers/:id/logs/', {
    schema: {
      operationId: 'listContainerLogs',
      summary: 'Sampled request logs of a container',
      description:
        'A sample of the requests through the gateway (see `GATEWAY_LOG_SAMPLE_RATE`), newest first; the newest 1000 per container are kept. Filter by status class, path prefix and time; each log names the upstream asked and how long it took.',
      tags,
      params: ContainerIdParams,
      querystring: LogsQuery,
      response: {
        200: listEnvelope(RequestLog, 'A page of request logs.'),
        ...errorResponses(CommonCodes.resourceMissing, CommonCodes.periodReversed),
      },
    },
    handler: async (request) =>
      listPage(request, (window) => containers.logs(tenant(request), request.params.id, request.query, window)),
  });

  app.get('/api/containers/:id/tagging-server/logs/', {
    schema: {
      operationId: 'getTaggingServerLogs',
      summary: "Logs of a container's tagging servers",
      description:
        "What Google's tagging server printed, per replica (runtime `sgtm`): the newest `lines` of each, oldest first. Empty for other runtimes. The container config never appears: it is redacted.",
      tags,
      params: ContainerIdParams,
      querystring: TaggingServerLogsQuery,
      response: {
        200: withMeta(TaggingServerLogs),
        ...errorResponses(CommonCodes.resourceMissing, ContainerErrors.orchestratorUnavailable),
      },
    },
    handler: async (request) =>
      containers.taggingServerLogs(tenant(request), request.params.id, request.query.lines ?? 100),
  });
};
