import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAuth } from '../../http/context.js';
import { listPage } from '../../http/pagination.js';
import { errorResponses, listEnvelope, PaginationQuery, withMeta } from '../../http/schemas.js';
import { CommonCodes } from '../../lib/errors.js';
import { TRACKING_MONITOR_SETTINGS_ERRORS, TrackingMonitorErrors } from './errors.js';
import {
  AcceptBaselineBody,
  CreateTrackingMonitorBody,
  TrackingIncident,
  TrackingMonitor,
  TrackingMonitorIdParams,
  TrackingRun,
  TrackingRunParams,
  UpdateTrackingMonitorBody,
} from './schemas.js';

export const trackingMonitorRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const monitors = app.services.trackingMonitors;
  const tags = ['Tracking monitors'];
  const tenant = (request: Parameters<typeof requireAuth>[0]) => requireAuth(request).tenantId;
  const missing = CommonCodes.resourceMissing;

  app.get('/api/tracking-monitors/', {
    schema: {
      operationId: 'listTrackingMonitors',
      summary: 'List tracking monitors',
      description: 'Tracking monitors of the tenant, newest first, with their state and open incident.',
      tags,
      querystring: PaginationQuery,
      response: { 200: listEnvelope(TrackingMonitor, 'A page of tracking monitors.'), ...errorResponses() },
    },
    handler: async (request) => listPage(request, (window) => monitors.list(tenant(request), window)),
  });

  app.post('/api/tracking-monitors/', {
    schema: {
      operationId: 'createTrackingMonitor',
      summary: 'Create a tracking monitor',
      description:
        "Scans `pages` every `interval_seconds` (hourly to daily, at least the plan minimum) with the tracking checker, on a queue of its own: runs never count against the scan quota. The first run that scans every page becomes the baseline; each later run is compared with it, and a difference an enabled rule covers opens an incident and notifies the monitor's channels.",
      tags,
      body: CreateTrackingMonitorBody,
      response: {
        201: withMeta(TrackingMonitor),
        ...errorResponses(CommonCodes.planLimitReached, ...TRACKING_MONITOR_SETTINGS_ERRORS),
      },
    },
    handler: async (request, reply) => reply.code(201).send(await monitors.create(tenant(request), request.body)),
  });

  app.get('/api/tracking-monitors/:id/', {
    schema: {
      operationId: 'getTrackingMonitor',
      summary: 'Get a tracking monitor',
      description: 'One tracking monitor with its pages, rules, baseline run, state and open incident.',
      tags,
      params: TrackingMonitorIdParams,
      response: { 200: withMeta(TrackingMonitor), ...errorResponses(missing) },
    },
    handler: async (request) => monitors.get(tenant(request), request.params.id),
  });

  app.patch('/api/tracking-monitors/:id/', {
    schema: {
      operationId: 'updateTrackingMonitor',
      summary: 'Update a tracking monitor',
      description:
        'Changes the given fields, checked as on create. Other pages, followed links or another container clear the baseline: the next run that scans every page becomes the new one.',
      tags,
      params: TrackingMonitorIdParams,
      body: UpdateTrackingMonitorBody,
      response: { 200: withMeta(TrackingMonitor), ...errorResponses(missing, ...TRACKING_MONITOR_SETTINGS_ERRORS) },
    },
    handler: async (request) => monitors.update(tenant(request), request.params.id, request.body),
  });

  app.delete('/api/tracking-monitors/:id/', {
    schema: {
      operationId: 'deleteTrackingMonitor',
      summary: 'Delete a tracking monitor',
      description: 'Deletes the monitor with its runs and incidents.',
      tags,
      params: TrackingMonitorIdParams,
      response: { 200: withMeta(TrackingMonitor), ...errorResponses(missing) },
    },
    handler: async (request) => monitors.delete(tenant(request), request.params.id),
  });

  app.post('/api/tracking-monitors/:id/pause/', {
    schema: {
      operationId: 'pauseTrackingMonitor',
      summary: 'Pause a tracking monitor',
      description:
        'Stops the scheduled runs until the monitor is resumed (a run already queued still runs). 409 `monitor_already_paused` when it is paused.',
      tags,
      params: TrackingMonitorIdParams,
      response: { 200: withMeta(TrackingMonitor), ...errorResponses(missing, TrackingMonitorErrors.alreadyPaused) },
    },
    handler: async (request) => monitors.pause(tenant(request), request.params.id),
  });

  app.post('/api/tracking-monitors/:id/resume/', {
    schema: {
      operationId: 'resumeTrackingMonitor',
      summary: 'Resume a tracking monitor',
      description: 'The next run starts at once.',
      tags,
      params: TrackingMonitorIdParams,
      response: { 200: withMeta(TrackingMonitor), ...errorResponses(missing, TrackingMonitorErrors.notPaused) },
    },
    handler: async (request) => monitors.resume(tenant(request), request.params.id),
  });

  app.post('/api/tracking-monitors/:id/runs/', {
    schema: {
      operationId: 'runTrackingMonitor',
      summary: 'Run a tracking monitor now',
      description: 'Queues a run outside the schedule and answers 202 with it; follow it at its URL.',
      tags,
      params: TrackingMonitorIdParams,
      response: { 202: withMeta(TrackingRun), ...errorResponses(missing) },
    },
    handler: async (request, reply) => reply.code(202).send(await monitors.runNow(tenant(request), request.params.id)),
  });

  app.get('/api/tracking-monitors/:id/runs/', {
    schema: {
      operationId: 'listTrackingRuns',
      summary: 'List runs of a tracking monitor',
      description: 'Runs, newest first, each with what every page showed and its changes from the baseline.',
      tags,
      params: TrackingMonitorIdParams,
      querystring: PaginationQuery,
      response: { 200: listEnvelope(TrackingRun, 'A page of runs.'), ...errorResponses(missing) },
    },
    handler: async (request) =>
      listPage(request, (window) => monitors.listRuns(tenant(request), request.params.id, window)),
  });

  app.get('/api/tracking-monitors/:id/runs/:run_id/', {
    schema: {
      operationId: 'getTrackingRun',
      summary: 'Get a run of a tracking monitor',
      description:
        'One run: its result, what each page showed (trackers with ids and evidence, consent, server-side endpoints, loss estimate) and its changes from the baseline.',
      tags,
      params: TrackingRunParams,
      response: { 200: withMeta(TrackingRun), ...errorResponses(missing) },
    },
    handler: async (request) => monitors.getRun(tenant(request), request.params.id, request.params.run_id),
  });

  app.post('/api/tracking-monitors/:id/baseline/', {
    schema: {
      operationId: 'acceptTrackingBaseline',
      summary: 'Accept a run as the baseline',
      description:
        'Makes the run (by default the latest that scanned every page) the baseline that later runs are compared with, and resolves the open incident: use it when a change was intended.',
      tags,
      params: TrackingMonitorIdParams,
      body: AcceptBaselineBody,
      response: {
        200: withMeta(TrackingMonitor),
        ...errorResponses(missing, TrackingMonitorErrors.noRunToAccept, TrackingMonitorErrors.runNotComparable),
      },
    },
    handler: async (request) => monitors.acceptBaseline(tenant(request), request.params.id, request.body.run_id),
  });

  app.get('/api/tracking-monitors/:id/incidents/', {
    schema: {
      operationId: 'listTrackingIncidents',
      summary: 'List incidents of a tracking monitor',
      description: 'Regressions found by the runs, newest first, open or resolved.',
      tags,
      params: TrackingMonitorIdParams,
      querystring: PaginationQuery,
      response: { 200: listEnvelope(TrackingIncident, 'A page of incidents.'), ...errorResponses(missing) },
    },
    handler: async (request) =>
      listPage(request, (window) => monitors.listIncidents(tenant(request), request.params.id, window)),
  });
};
