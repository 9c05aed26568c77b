import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAuth } from '../../http/context.js';
import { HttpCodes } from '../../http/errors.js';
import { listPage } from '../../http/pagination.js';
import { errorResponses, listEnvelope, PaginationQuery, withMeta } from '../../http/schemas.js';
import { ContainerCodes, ContainerErrors } from './errors.js';
import * as queries from './queries.js';
import {
  Container,
  ContainerIdParams,
  CreateContainerBody,
  RequestLog,
  STATE_MACHINE,
  UpdateContainerBody,
  Usage,
  UsageQuery,
  type ContainerAction,
} from './schemas.js';

const DAY_MS = 86_400_000;

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
      return listPage(request, (limit, offset) => containers.list(tenant(request), limit, offset));
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
          HttpCodes.planLimitReached,
          ContainerCodes.invalidConfig,
          HttpCodes.httpsRequired,
          ContainerCodes.upstreamNotAllowed,
        ),
      },
    },
    handler: async (request, reply) => reply.code(201).send(await containers.create(tenant(request), request.body)),
  });

  app.get('/api/containers/:id/', {
    schema: {
      operationId: 'getContainer',
      summary: 'Get a container',
      tags,
      params: ContainerIdParams,
      response: { 200: withMeta(Container), ...errorResponses(HttpCodes.resourceMissing) },
    },
    handler: async (request) => containers.get(tenant(request), request.params.id),
  });

  app.patch('/api/containers/:id/', {
    schema: {
      operationId: 'updateContainer',
      summary: 'Update a container',
      tags,
      params: ContainerIdParams,
      body: UpdateContainerBody,
      response: {
        200: withMeta(Container),
        ...errorResponses(
          HttpCodes.resourceMissing,
          ContainerCodes.containerDeleted,
          ContainerCodes.invalidConfig,
          HttpCodes.httpsRequired,
          ContainerCodes.upstreamNotAllowed,
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
      response: { 202: withMeta(Container), ...errorResponses(HttpCodes.resourceMissing, HttpCodes.invalidTransition) },
    },
    handler: async (request, reply) =>
      reply.code(202).send(await containers.act(tenant(request), request.params.id, 'delete')),
  });

  for (const action of ['start', 'stop', 'restart'] as ContainerAction[]) {
    app.post(`/api/containers/:id/${action}/`, {
      schema: {
        operationId: `${action}Container`,
        summary: `${action[0].toUpperCase()}${action.slice(1)} a container`,
        description: `Returns 202 with the transitional state; the worker completes the transition. 409 names the actions the current state allows.`,
        tags,
        params: ContainerIdParams,
        response: {
          202: withMeta(Container),
          ...errorResponses(HttpCodes.resourceMissing, HttpCodes.invalidTransition),
        },
      },
      handler: async (request, reply) =>
        reply.code(202).send(await containers.act(tenant(request), request.params.id, action)),
    });
  }

  app.get('/api/containers/:id/usage/', {
    schema: {
      operationId: 'getContainerUsage',
      summary: 'Request usage of a container',
      tags,
      params: ContainerIdParams,
      querystring: UsageQuery,
      response: {
        200: withMeta(Usage),
        ...errorResponses(HttpCodes.resourceMissing, HttpCodes.periodReversed, HttpCodes.periodTooLong),
      },
    },
    handler: async (request) => {
      await containers.find(tenant(request), request.params.id);
      await app.services.gateway.flush();
      const to = request.query.to ?? new Date().toISOString().slice(0, 10);
      const from =
        request.query.from ?? new Date(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS).toISOString().slice(0, 10);
      if (from > to) throw ContainerErrors.periodReversed();
      if (Date.parse(to) - Date.parse(from) > 366 * DAY_MS) throw ContainerErrors.periodTooLong();
      const rows = await queries.usage(app.database.db, request.params.id, from, to);
      const sum = (key: (row: (typeof rows)[number]) => string) => {
        const totals = new Map<string, number>();
        for (const row of rows) totals.set(key(row), (totals.get(key(row)) ?? 0) + row.requests);
        return totals;
      };
      const days = [...sum((row) => row.day)].sort().map(([day, requests]) => ({ day, requests }));
      return {
        container_id: request.params.id,
        from,
        to,
        total_requests: rows.reduce((total, row) => total + row.requests, 0),
        days,
        by_hostname: [...sum((row) => row.hostname)]
          .map(([hostname, requests]) => ({ hostname, requests }))
          .sort((a, b) => b.requests - a.requests),
        by_status_class: Object.fromEntries(sum((row) => row.statusClass)),
      };
    },
  });

  app.get('/api/containers/:id/logs/', {
    schema: {
      operationId: 'listContainerLogs',
      summary: 'Sampled request logs of a container',
      description:
        'A sample of the requests through the gateway (see `GATEWAY_LOG_SAMPLE_RATE`), newest first; the newest 1000 per container are kept.',
      tags,
      params: ContainerIdParams,
      querystring: PaginationQuery,
      response: {
        200: listEnvelope(RequestLog, 'A page of request logs.'),
        ...errorResponses(HttpCodes.resourceMissing),
      },
    },
    handler: async (request) => {
      await containers.find(tenant(request), request.params.id);
      await app.services.gateway.flush();
      return listPage(request, async (limit, offset) => {
        const { rows, total } = await queries.listRequestLogs(app.database.db, request.params.id, limit, offset);
        return {
          results: rows.map((row) => ({
            id: row.id,
            at: row.at.toISOString(),
            hostname: row.hostname,
            method: row.method,
            path: row.path,
            status_code: row.statusCode,
            duration_ms: row.durationMs,
          })),
          total,
        };
      });
    },
  });
};
