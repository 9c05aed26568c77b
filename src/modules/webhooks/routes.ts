import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAuth } from '../../http/context.js';
import { CommonCodes } from '../../lib/errors.js';
import { listPage } from '../../http/pagination.js';
import { errorResponses, listEnvelope, PaginationQuery, withMeta } from '../../http/schemas.js';
import { CreatedWebhook, CreateWebhookBody, Delivery, Webhook, WebhookIdParams } from './schemas.js';

export const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const webhooks = app.services.webhooks;
  const tags = ['Webhooks'];

  app.get('/api/webhooks/', {
    schema: {
      operationId: 'listWebhooks',
      summary: 'List webhooks',
      description: 'Webhook endpoints of the tenant, newest first; their secrets are never shown again.',
      tags,
      querystring: PaginationQuery,
      response: { 200: listEnvelope(Webhook, 'A page of webhooks.'), ...errorResponses() },
    },
    handler: async (request) => {
      return listPage(request, (window) => webhooks.list(requireAuth(request).tenantId, window));
    },
  });

  app.post('/api/webhooks/', {
    schema: {
      operationId: 'createWebhook',
      summary: 'Create a webhook',
      description:
        'Subscribes an https endpoint to event types. Deliveries are POSTed as JSON `{id, type, created_at, tenant_id, data}`, signed in `Tagport-Signature`, and retried with exponential backoff until the endpoint answers 2xx.',
      tags,
      body: CreateWebhookBody,
      response: {
        201: withMeta(CreatedWebhook),
        ...errorResponses(CommonCodes.httpsRequired, CommonCodes.urlNotAllowed),
      },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await webhooks.create(requireAuth(request).tenantId, request.body)),
  });

  app.get('/api/webhooks/:id/', {
    schema: {
      operationId: 'getWebhook',
      summary: 'Get a webhook',
      description: 'One webhook endpoint and the event types it receives; its secret is never shown again.',
      tags,
      params: WebhookIdParams,
      response: { 200: withMeta(Webhook), ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request) => webhooks.get(requireAuth(request).tenantId, request.params.id),
  });

  app.delete('/api/webhooks/:id/', {
    schema: {
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook',
      description: 'Stops deliveries to the endpoint; pending ones are dropped.',
      tags,
      params: WebhookIdParams,
      response: { 200: withMeta(Webhook), ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request) => webhooks.delete(requireAuth(request).tenantId, request.params.id),
  });

  app.get('/api/webhooks/:id/deliveries/', {
    schema: {
      operationId: 'listWebhookDeliveries',
      summary: 'List deliveries of a webhook',
      description:
        'Deliveries to this endpoint, newest first, with their attempts, last status code and the payload sent.',
      tags,
      params: WebhookIdParams,
      querystring: PaginationQuery,
      response: {
        200: listEnvelope(Delivery, 'A page of deliveries, newest first.'),
        ...errorResponses(CommonCodes.resourceMissing),
      },
    },
    handler: async (request) => {
      return listPage(request, (window) =>
        webhooks.deliveries(requireAuth(request).tenantId, request.params.id, window),
      );
    },
  });
};
