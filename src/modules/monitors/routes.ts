import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAuth } from '../../http/context.js';
import { CommonCodes } from '../../lib/errors.js';
import { listPage } from '../../http/pagination.js';
import { errorResponses, listEnvelope, PaginationQuery, withMeta } from '../../http/schemas.js';
import {
  Check,
  CreateMonitorBody,
  Incident,
  IncidentIdParams,
  ListIncidentsQuery,
  Monitor,
  MonitorIdParams,
  MonitorStats,
  UpdateMonitorBody,
} from './schemas.js';
import { MONITOR_SETTINGS_ERRORS, MonitorErrors } from './errors.js';

export const monitorRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const monitors = app.services.monitors;
  const tags = ['Monitoring'];
  const tenant = (request: Parameters<typeof requireAuth>[0]) => requireAuth(request).tenantId;

  app.get('/api/monitors/', {
    schema: {
      operationId: 'listMonitors',
      summary: 'List monitors',
      description: 'Monitors of the tenant, newest first, with their current state.',
      tags,
      querystring: PaginationQuery,
      response: { 200: listEnvelope(Monitor, 'A page of monitors.'), ...errorResponses() },
    },
    handler: async (request) => {
      return listPage(request, (window) => monitors.list(tenant(request), window));
    },
  });

  app.post('/api/monitors/', {
    schema: {
      operationId: 'createMonitor',
      summary: 'Create a monitor',
      description:
        'Checks a target (an https URL, one of your containers or one of your custom domains) every `interval_seconds` (at least the plan minimum). After `confirmation_checks` failures in a row the monitor is down and an incident opens; it resolves on recovery.',
      tags,
      body: CreateMonitorBody,
      response: {
        201: withMeta(Monitor),
        ...errorResponses(CommonCodes.planLimitReached, ...MONITOR_SETTINGS_ERRORS),
      },
    },
    handler: async (request, reply) => reply.code(201).send(await monitors.create(tenant(request), request.body)),
  });

  app.get('/api/monitors/:id/', {
    schema: {
      operationId: 'getMonitor',
      summary: 'Get a monitor',
      description: 'One monitor with its target, settings and current state.',
      tags,
      params: MonitorIdParams,
      response: { 200: withMeta(Monitor), ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request) => monitors.get(tenant(request), request.params.id),
  });

  app.patch('/api/monitors/:id/', {
    schema: {
      operationId: 'updateMonitor',
      summary: 'Update a monitor',
      description:
        'Changes the given fields only; they are checked as on create (plan interval, target, keyword). The next check uses the new settings.',
      tags,
      params: MonitorIdParams,
      body: UpdateMonitorBody,
      response: {
        200: withMeta(Monitor),
        ...errorResponses(CommonCodes.resourceMissing, ...MONITOR_SETTINGS_ERRORS),
      },
    },
    handler: async (request) => monitors.update(tenant(request), request.params.id, request.body),
  });

  app.delete('/api/monitors/:id/', {
    schema: {
      operationId: 'deleteMonitor',
      summary: 'Delete a monitor',
      description: 'Deletes the monitor with its checks and incidents.',
      tags,
      params: MonitorIdParams,
      response: { 200: withMeta(Monitor), ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request) => monitors.delete(tenant(request), request.params.id),
  });

  app.post('/api/monitors/:id/pause/', {
    schema: {
      operationId: 'pauseMonitor',
      summary: 'Pause a monitor',
      description:
        'Stops the checks and sets `status` to `paused` until the monitor is resumed. 409 `monitor_already_paused` when it is paused.',
      tags,
      params: MonitorIdParams,
      response: { 200: withMeta(Monitor), ...errorResponses(CommonCodes.resourceMissing, MonitorErrors.alreadyPaused) },
    },
    handler: async (request) => monitors.pause(tenant(request), request.params.id),
  });

  app.post('/api/monitors/:id/resume/', {
    schema: {
      operationId: 'resumeMonitor',
      summary: 'Resume a monitor',
      description: 'The next check runs at once.',
      tags,
      params: MonitorIdParams,
      response: { 200: withMeta(Monitor), ...errorResponses(CommonCodes.resourceMissing, MonitorErrors.notPaused) },
    },
    handler: async (request) => monitors.resume(tenant(request), request.params.id),
  });

  app.get('/api/monitors/:id/checks/', {
    schema: {
      operationId: 'listMonitorChecks',
      summary: 'List checks of a monitor',
      description: 'Stored check results, newest first (kept for 30 days by default).',
      tags,
      params: MonitorIdParams,
      querystring: PaginationQuery,
      response: { 200: listEnvelope(Check, 'A page of checks.'), ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request) => {
      return listPage(request, (window) => monitors.checks(tenant(request), request.params.id, window));
    },
  });

  app.get('/api/monitors/:id/stats/', {
    schema: {
      operationId: 'getMonitorStats',
      summary: 'Uptime and latency of a monitor',
      description:
        'Uptime ratio and latency percentiles over the last 24 hours, 7 days and 30 days, from the stored checks.',
      tags,
      params: MonitorIdParams,
      response: { 200: withMeta(MonitorStats), ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request) => monitors.stats(tenant(request), request.params.id),
  });

  app.get('/api/incidents/', {
    schema: {
      operationId: 'listIncidents',
      summary: 'List incidents',
      description: 'Incidents of the tenant, newest first; filter by `status` or `monitor_id`.',
      tags,
      querystring: ListIncidentsQuery,
      response: { 200: listEnvelope(Incident, 'A page of incidents, newest first.'), ...errorResponses() },
    },
    handler: async (request) => {
      return listPage(request, (window) =>
        monitors.incidents(
          tenant(request),
          { status: request.query.status, monitorId: request.query.monitor_id },
          window,
        ),
      );
    },
  });

  app.post('/api/incidents/:id/acknowledge/', {
    schema: {
      operationId: 'acknowledgeIncident',
      summary: 'Acknowledge an incident',
      description: '409 unless the incident is open.',
      tags,
      params: IncidentIdParams,
      response: {
        200: withMeta(Incident),
        ...errorResponses(CommonCodes.resourceMissing, CommonCodes.invalidTransition),
      },
    },
    handler: async (request) => monitors.acknowledge(tenant(request), request.params.id),
  });

  app.post('/api/incidents/:id/resolve/', {
    schema: {
      operationId: 'resolveIncident',
      summary: 'Resolve an incident',
      description: '409 when it is already resolved.',
      tags,
      params: IncidentIdParams,
      response: {
        200: withMeta(Incident),
        ...errorResponses(CommonCodes.resourceMissing, CommonCodes.invalidTransition),
      },
    },
    handler: async (request) => monitors.resolve(tenant(request), request.params.id),
  });
};
