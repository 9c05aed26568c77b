import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { requireAuth } from '../../http/context.js';
import { HttpCodes } from '../../http/errors.js';
import { listPage } from '../../http/pagination.js';
import { errorResponses, listEnvelope, PaginationQuery, withMeta } from '../../http/schemas.js';
import { ScanIdParams, ScanRequestBody, ScanResponse, ScanSummary } from './schemas.js';
import { scanQuotaHeaderItems, type ScanQuota } from './service.js';
import { TrackingCheckerCodes } from './errors.js';

/** Sets one item (`"name";…`) of a structured header, replacing an earlier item of the same name. */
function setHeaderItem(reply: FastifyReply, header: string, item: string): void {
  const name = item.slice(0, item.indexOf(';'));
  const others = String(reply.getHeader(header) ?? '')
    .split(', ')
    .filter((existing) => existing && !existing.startsWith(`${name};`));
  reply.header(header, [...others, item].join(', '));
}

const SCAN_DESCRIPTION = `Loads the page twice: a plain HTTP fetch with static HTML analysis, then headless Chromium that records every request, cookie and tag global without giving consent. Returns the trackers found (with ids and evidence), consent management and Google Consent Mode findings, server-side tagging, a loss estimate with its assumptions and sources, and on request a summary and a Lighthouse performance score.

**Quota:** 60 scans per hour per tenant, or the plan feature \`tracking_checker_api_hourly\` (agency 300, partner 1000). Every scan response carries the \`"scan-hourly"\` items in \`RateLimit-Policy\` and \`RateLimit\`; over the quota the answer is 429 \`scan_quota_exceeded\` with \`Retry-After\` (seconds until a slot frees). A scan that never reached the page gives its slot back: a URL refused by the network guard (400 \`url_not_allowed\`) or a page that could not be loaded (422 \`target_unreachable\`).

A scan takes a few seconds (Lighthouse adds ~7–10 s); it is capped, and returns partial results with \`warnings\` rather than hanging.`;

export const trackingCheckerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const checker = app.services.trackingChecker;
  const tags = ['Tracking checker'];

  app.post('/api/v1/tracking-checker/scan/', {
    schema: {
      operationId: 'scanPage',
      summary: 'Scan a page for trackers',
      description: SCAN_DESCRIPTION,
      tags,
      body: ScanRequestBody,
      response: {
        200: withMeta(ScanResponse),
        ...errorResponses(
          HttpCodes.urlNotAllowed,
          TrackingCheckerCodes.targetUnreachable,
          TrackingCheckerCodes.scanQuotaExceeded,
        ),
      },
    },
    handler: async (request, reply) => {
      const onQuota = (quota: ScanQuota) => {
        const items = scanQuotaHeaderItems(quota);
        // Called again when a refused scan gives its slot back: the item is replaced, not repeated.
        setHeaderItem(reply, 'ratelimit-policy', items.policy);
        setHeaderItem(reply, 'ratelimit', items.state);
      };
      return checker.scan(requireAuth(request), request.body, onQuota, request.log);
    },
  });

  app.get('/api/v1/tracking-checker/scans/', {
    schema: {
      operationId: 'listScans',
      summary: 'List scans',
      description: 'Scans of the tenant, newest first, without their full results.',
      tags,
      querystring: PaginationQuery,
      response: { 200: listEnvelope(ScanSummary, 'A page of scans.'), ...errorResponses() },
    },
    handler: async (request) => {
      return listPage(request, (limit, offset) => checker.list(requireAuth(request), limit, offset));
    },
  });

  app.get('/api/v1/tracking-checker/scans/:id/', {
    schema: {
      operationId: 'getScan',
      summary: 'Get a scan result',
      description:
        'The stored result of a completed scan, in the same shape as the scan response. 409 while it runs or when it failed.',
      tags,
      params: ScanIdParams,
      response: {
        200: withMeta(ScanResponse),
        ...errorResponses(
          HttpCodes.resourceMissing,
          TrackingCheckerCodes.scanInProgress,
          TrackingCheckerCodes.scanFailed,
        ),
      },
    },
    handler: async (request) => checker.get(requireAuth(request), request.params.id),
  });
};
