import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAuth } from '../../http/context.js';
import { CommonCodes } from '../../lib/errors.js';
import { errorResponses, withMeta } from '../../http/schemas.js';
import { StatusErrors } from './errors.js';
import {
  IncidentParams,
  IncidentUpdateBody,
  Maintenance,
  MaintenanceParams,
  NewIncidentBody,
  NewMaintenanceBody,
  PlatformIncident,
  StatusDocument,
  SubscribeBody,
  Subscription,
  TokenBody,
} from './schemas.js';

const OPERATOR_ONLY =
  ' Platform operators only: an admin or owner credential of a tenant made an operator with `tagport status operator-add --tenant TENANT_ID`; others get 403 `not_platform_operator`. The same is available as `tagport status …` commands.';

export const statusRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { status, statusIncidents: incidents, statusSubscriptions: subscriptions } = app.services;
  const tags = ['Status page'];

  app.get('/api/status.json', {
    config: { public: true },
    schema: {
      operationId: 'getPlatformStatus',
      summary: 'Platform status',
      description:
        "Tagport's own state as JSON: overall and per component with 90 days of daily uptime from its own checks, the open platform incidents and those of the last 90 days with their updates, and maintenance windows (the data of the `/status` page). No credentials needed. While the database is down it answers from memory with `stale: true`.",
      tags: ['System', ...tags],
      security: [],
      response: { 200: withMeta(StatusDocument), ...errorResponses() },
    },
    handler: async () => status.snapshot(),
  });

  app.post('/api/status/incidents/', {
    schema: {
      operationId: 'createStatusIncident',
      summary: 'Post a status incident',
      description: `Opens an incident on the status page with its first update, and tells subscribers.${OPERATOR_ONLY}`,
      tags,
      body: NewIncidentBody,
      response: { 201: withMeta(PlatformIncident), ...errorResponses(StatusErrors.notPlatformOperator) },
    },
    handler: async (request, reply) => {
      await incidents.assertOperator(requireAuth(request));
      return reply.code(201).send(await incidents.open(request.body));
    },
  });

  app.post('/api/status/incidents/:id/updates/', {
    schema: {
      operationId: 'addStatusIncidentUpdate',
      summary: 'Post an incident update',
      description: `Adds a timestamped update (investigating, identified, monitoring, resolved) to an open incident and tells subscribers; \`resolved\` resolves it.${OPERATOR_ONLY}`,
      tags,
      params: IncidentParams,
      body: IncidentUpdateBody,
      response: {
        201: withMeta(PlatformIncident),
        ...errorResponses(StatusErrors.notPlatformOperator, CommonCodes.resourceMissing, StatusErrors.incidentResolved),
      },
    },
    handler: async (request, reply) => {
      await incidents.assertOperator(requireAuth(request));
      return reply.code(201).send(await incidents.update(request.params.id, request.body));
    },
  });

  app.post('/api/status/maintenance/', {
    schema: {
      operationId: 'createMaintenanceWindow',
      summary: 'Schedule maintenance',
      description: `Announces a maintenance window: shown ahead as scheduled, as in progress during it, and in the history after; subscribers are told.${OPERATOR_ONLY}`,
      tags,
      body: NewMaintenanceBody,
      response: {
        201: withMeta(Maintenance),
        ...errorResponses(StatusErrors.notPlatformOperator, StatusErrors.invalidMaintenanceWindow),
      },
    },
    handler: async (request, reply) => {
      await incidents.assertOperator(requireAuth(request));
      return reply.code(201).send(await incidents.scheduleMaintenance(request.body));
    },
  });

  app.delete('/api/status/maintenance/:id/', {
    schema: {
      operationId: 'cancelMaintenanceWindow',
      summary: 'Cancel maintenance',
      description: `Removes a maintenance window from the page and tells subscribers it is cancelled.${OPERATOR_ONLY}`,
      tags,
      params: MaintenanceParams,
      response: {
        200: withMeta(Maintenance),
        ...errorResponses(StatusErrors.notPlatformOperator, CommonCodes.resourceMissing),
      },
    },
    handler: async (request) => {
      await incidents.assertOperator(requireAuth(request));
      return incidents.cancelMaintenance(request.params.id);
    },
  });

  app.post('/api/status/subscriptions/', {
    config: { public: true },
    schema: {
      operationId: 'subscribeToStatus',
      summary: 'Subscribe to status notices',
      description:
        'Subscribes an email address (it gets a confirmation link and hears nothing until it is followed; the answer is the same whether or not it was subscribed) or a webhook URL (active at once: each incident update and maintenance notice is POSTed as JSON with an `unsubscribe_url`). No credentials needed. Email needs `SMTP_URL` and `PUBLIC_BASE_URL` (the links are built from it, never from the request); a repeat within 10 minutes re-uses the link already sent, and one address gets at most 3 confirmation emails a day. At most 3 webhook subscriptions per hostname.',
      tags,
      security: [],
      body: SubscribeBody,
      response: {
        202: withMeta(Subscription),
        ...errorResponses(
          StatusErrors.subscriptionTargetRequired,
          CommonCodes.httpsRequired,
          CommonCodes.urlNotAllowed,
          StatusErrors.emailUnavailable,
          StatusErrors.webhookSubscriptionLimit,
        ),
      },
    },
    handler: async (request, reply) =>
      reply.code(202).send(await subscriptions.subscribe(request.body, app.config.publicBaseUrl)),
  });

  app.post('/api/status/subscriptions/confirm/', {
    config: { public: true },
    schema: {
      operationId: 'confirmStatusSubscription',
      summary: 'Confirm an email subscription',
      description: 'Confirms an email subscription with the token of the link it was sent. No credentials needed.',
      tags,
      security: [],
      body: TokenBody,
      response: { 200: withMeta(Subscription), ...errorResponses(StatusErrors.invalidSubscriptionToken) },
    },
    handler: async (request) => subscriptions.confirm(request.body.token),
  });

  app.post('/api/status/subscriptions/unsubscribe/', {
    config: { public: true },
    schema: {
      operationId: 'unsubscribeFromStatus',
      summary: 'Unsubscribe',
      description:
        'Ends an email or webhook subscription with its unsubscribe token (in every notice). No credentials needed.',
      tags,
      security: [],
      body: TokenBody,
      response: { 200: withMeta(Subscription), ...errorResponses(StatusErrors.invalidSubscriptionToken) },
    },
    handler: async (request) => subscriptions.unsubscribe(request.body.token),
  });
};
