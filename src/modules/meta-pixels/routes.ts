import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAuth } from '../../http/context.js';
import { CommonCodes } from '../../lib/errors.js';
import { listPage } from '../../http/pagination.js';
import { errorResponses, listEnvelope, PaginationQuery, withMeta } from '../../http/schemas.js';
import { ContainerIdParams } from '../containers/schemas.js';
import { MetaPixelErrors } from './errors.js';
import {
  CreatedMetaPixel,
  CreateMetaPixelBody,
  DeliveriesQuery,
  MetaEventDelivery,
  MetaPixel,
  MetaPixelParams,
  UpdateMetaPixelBody,
} from './schemas.js';

export const metaPixelRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const pixels = app.services.metaPixels;
  const tags = ['Meta pixels'];
  const tenant = (request: Parameters<typeof requireAuth>[0]) => requireAuth(request).tenantId;

  app.post('/api/containers/:id/meta-pixels/', {
    schema: {
      operationId: 'createMetaPixel',
      summary: 'Add a Meta pixel to a container',
      description:
        "The container forwards its events to the pixel through Meta's Conversions API. The access token is stored encrypted with SECRETS_KEY (503 `secrets_key_missing` when the server has none) and shown in this response only.",
      tags,
      params: ContainerIdParams,
      body: CreateMetaPixelBody,
      response: {
        201: withMeta(CreatedMetaPixel),
        ...errorResponses(
          CommonCodes.resourceMissing,
          MetaPixelErrors.exists,
          MetaPixelErrors.tooMany,
          MetaPixelErrors.secretsKeyMissing,
        ),
      },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await pixels.create(tenant(request), request.params.id, request.body)),
  });

  app.get('/api/containers/:id/meta-pixels/', {
    schema: {
      operationId: 'listMetaPixels',
      summary: 'List the Meta pixels of a container',
      description: 'Newest first. Access tokens are never shown here, only their last four characters.',
      tags,
      params: ContainerIdParams,
      querystring: PaginationQuery,
      response: {
        200: listEnvelope(MetaPixel, 'A page of Meta pixels.'),
        ...errorResponses(CommonCodes.resourceMissing),
      },
    },
    handler: async (request) => listPage(request, (window) => pixels.list(tenant(request), request.params.id, window)),
  });

  app.get('/api/containers/:id/meta-pixels/:pixel/', {
    schema: {
      operationId: 'getMetaPixel',
      summary: 'Get a Meta pixel of a container',
      description:
        'The pixel the container forwards events to: its id, the last four characters of the access token (the token itself is shown only when created), the test event code and when it was added.',
      tags,
      params: MetaPixelParams,
      response: { 200: withMeta(MetaPixel), ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request) => pixels.get(tenant(request), request.params.id, request.params.pixel),
  });

  app.patch('/api/containers/:id/meta-pixels/:pixel/', {
    schema: {
      operationId: 'updateMetaPixel',
      summary: 'Change a Meta pixel of a container',
      description:
        'Replaces the access token (for example when it expired) or sets the test event code (null clears it); the pixel keeps its delivery records. The new token is stored encrypted with SECRETS_KEY (503 `secrets_key_missing` when the server has none) and never shown: the response has its last four characters only. The next event is sent with the new values.',
      tags,
      params: MetaPixelParams,
      body: UpdateMetaPixelBody,
      response: {
        200: withMeta(MetaPixel),
        ...errorResponses(CommonCodes.resourceMissing, MetaPixelErrors.secretsKeyMissing),
      },
    },
    handler: async (request) => pixels.update(tenant(request), request.params.id, request.params.pixel, request.body),
  });

  app.delete('/api/containers/:id/meta-pixels/:pixel/', {
    schema: {
      operationId: 'deleteMetaPixel',
      summary: 'Remove a Meta pixel from a container',
      description: 'Stops forwarding to the pixel; its stored access token and delivery records are deleted.',
      tags,
      params: MetaPixelParams,
      response: { 200: withMeta(MetaPixel), ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request) => pixels.delete(tenant(request), request.params.id, request.params.pixel),
  });

  app.get('/api/containers/:id/meta-pixels/:pixel/deliveries/', {
    schema: {
      operationId: 'listMetaPixelDeliveries',
      summary: 'Events sent to a Meta pixel, with the Graph API’s answers',
      description:
        "One entry per event id, most recently sent first: `delivered`, `retrying` or `failed`, the number of attempts and Graph's last error (message, type, code, error_subcode, fbtrace_id). Filter by `status`.",
      tags,
      params: MetaPixelParams,
      querystring: DeliveriesQuery,
      response: {
        200: listEnvelope(MetaEventDelivery, 'A page of event deliveries.'),
        ...errorResponses(CommonCodes.resourceMissing),
      },
    },
    handler: async (request) =>
      listPage(
        request,
        (window) =>
          pixels.deliveries(tenant(request), request.params.id, request.params.pixel, request.query.status, window),
        (delivery) => delivery.event_id,
      ),
  });
};
