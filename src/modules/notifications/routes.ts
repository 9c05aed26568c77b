import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAuth } from '../../http/context.js';
import { CommonCodes } from '../../lib/errors.js';
import { listPage } from '../../http/pagination.js';
import { errorResponses, listEnvelope, PaginationQuery, withMeta } from '../../http/schemas.js';
import { AuthErrors } from '../auth/errors.js';
import {
  ChannelIdParams,
  CreateChannelBody,
  CreatedNotificationChannel,
  NotificationChannel,
  NotificationDelivery,
  UpdateChannelBody,
} from './schemas.js';

export const notificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const notifications = app.services.notifications;
  const tags = ['Notification channels'];
  const tenant = (request: Parameters<typeof requireAuth>[0]) => requireAuth(request).tenantId;
  const targetErrors = [AuthErrors.invalidEmail, CommonCodes.httpsRequired, CommonCodes.urlNotAllowed] as const;

  app.get('/api/notification-channels/', {
    schema: {
      operationId: 'listNotificationChannels',
      summary: 'List notification channels',
      description:
        'Email addresses, Slack-compatible incoming webhooks and signed webhooks alerts go to, newest first.',
      tags,
      querystring: PaginationQuery,
      response: { 200: listEnvelope(NotificationChannel, 'A page of channels.'), ...errorResponses() },
    },
    handler: async (request) => listPage(request, (window) => notifications.list(tenant(request), window)),
  });

  app.post('/api/notification-channels/', {
    schema: {
      operationId: 'createNotificationChannel',
      summary: 'Create a notification channel',
      description:
        'Adds a place alerts go to. `email` sends a message with a subject, a plain-text and an HTML part and a link to the dashboard; `slack` POSTs `{text, blocks}` to an incoming-webhook URL (Slack, Mattermost, or Discord with `/slack` at the end of its webhook URL); `webhook` POSTs signed JSON as webhooks do. URLs must be https on a public address. Failed deliveries are retried with exponential backoff.',
      tags,
      body: CreateChannelBody,
      response: { 201: withMeta(CreatedNotificationChannel), ...errorResponses(...targetErrors) },
    },
    handler: async (request, reply) => reply.code(201).send(await notifications.create(tenant(request), request.body)),
  });

  app.get('/api/notification-channels/:id/', {
    schema: {
      operationId: 'getNotificationChannel',
      summary: 'Get a notification channel',
      description: 'One channel; a URL target is shown masked.',
      tags,
      params: ChannelIdParams,
      response: { 200: withMeta(NotificationChannel), ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request) => notifications.get(tenant(request), request.params.id),
  });

  app.patch('/api/notification-channels/:id/', {
    schema: {
      operationId: 'updateNotificationChannel',
      summary: 'Update a notification channel',
      description: 'Renames the channel, changes its target (same checks as on creation) or the events it receives.',
      tags,
      params: ChannelIdParams,
      body: UpdateChannelBody,
      response: {
        200: withMeta(NotificationChannel),
        ...errorResponses(CommonCodes.resourceMissing, ...targetErrors),
      },
    },
    handler: async (request) => notifications.update(tenant(request), request.params.id, request.body),
  });

  app.delete('/api/notification-channels/:id/', {
    schema: {
      operationId: 'deleteNotificationChannel',
      summary: 'Delete a notification channel',
      description: 'Removes the channel from every monitor that chose it; its pending deliveries are dropped.',
      tags,
      params: ChannelIdParams,
      response: { 200: withMeta(NotificationChannel), ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request) => notifications.delete(tenant(request), request.params.id),
  });

  app.post('/api/notification-channels/:id/test/', {
    schema: {
      operationId: 'testNotificationChannel',
      summary: 'Send a test notification',
      description:
        'Queues a test message to the channel and answers 202 with its delivery; follow it in the channel’s deliveries.',
      tags,
      params: ChannelIdParams,
      response: { 202: withMeta(NotificationDelivery), ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request, reply) =>
      reply.code(202).send(await notifications.sendTest(tenant(request), request.params.id)),
  });

  app.get('/api/notification-channels/:id/deliveries/', {
    schema: {
      operationId: 'listNotificationDeliveries',
      summary: 'List deliveries of a notification channel',
      description: 'What was sent to the channel, newest first, with its status, attempts and last error.',
      tags,
      params: ChannelIdParams,
      querystring: PaginationQuery,
      response: {
        200: listEnvelope(NotificationDelivery, 'A page of deliveries, newest first.'),
        ...errorResponses(CommonCodes.resourceMissing),
      },
    },
    handler: async (request) =>
      listPage(request, (window) => notifications.deliveries(tenant(request), request.params.id, window)),
  });
};
