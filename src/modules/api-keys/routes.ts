import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAuth } from '../../http/context.js';
import { CommonCodes } from '../../lib/errors.js';
import { listPage } from '../../http/pagination.js';
import { errorResponses, listEnvelope, PaginationQuery, withMeta } from '../../http/schemas.js';
import { ApiKey, ApiKeyIdParams, CreateApiKeyBody, CreatedApiKey } from './schemas.js';
import { ApiKeyErrors } from './errors.js';

export const apiKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const keys = app.services.apiKeys;
  const tags = ['API keys'];

  app.get('/api/api-keys/', {
    schema: {
      operationId: 'listApiKeys',
      summary: 'List API keys',
      description: 'Keys of the tenant, newest first, with revoked and expired ones. Tokens are never shown here.',
      tags,
      querystring: PaginationQuery,
      response: { 200: listEnvelope(ApiKey, 'A page of API keys.'), ...errorResponses() },
    },
    handler: async (request) => {
      return listPage(request, (window) => keys.list(requireAuth(request), window));
    },
  });

  app.post('/api/api-keys/', {
    schema: {
      operationId: 'createApiKey',
      summary: 'Create an API key',
      description: 'Creates a key for the tenant. The response is the only time the token is shown.',
      tags,
      body: CreateApiKeyBody,
      response: {
        201: withMeta(CreatedApiKey),
        ...errorResponses(ApiKeyErrors.expiryNotInFuture, ApiKeyErrors.tooManyApiKeys, CommonCodes.insufficientRole),
      },
    },
    handler: async (request, reply) => reply.code(201).send(await keys.createFor(requireAuth(request), request.body)),
  });

  app.delete('/api/api-keys/:id/', {
    schema: {
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      description: 'The key stops working at once on every instance. Revoking a revoked key returns it unchanged.',
      tags,
      params: ApiKeyIdParams,
      response: { 200: withMeta(ApiKey), ...errorResponses(CommonCodes.resourceMissing, CommonCodes.insufficientRole) },
    },
    handler: async (request) => keys.revokeFor(requireAuth(request), request.params.id),
  });
};
