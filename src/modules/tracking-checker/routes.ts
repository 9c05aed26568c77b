import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { requireAuth } from '../../http/context.js';
import { CommonCodes } from '../../lib/errors.js';
import { listPage } from '../../http/pagination.js';
import {
  ApiMeta,
  errorResponses,
  listEnvelope,
  PaginationQuery,
  RESOURCE_KEYWORD,
  withMeta,
} from '../../http/schemas.js';
import { type TObject, Type } from 'typebox';
import {
  SCAN_STATE_DESCRIPTION,
  ScanIdParams,
  ScanRequestBody,
  ScanResponse,
  ScanStates,
  ScanSummary,
} from './schemas.js';
import { scanQuotaHeaderItems, type ScanQuota } from './service.js';
import { TrackingCheckerErrors } from './errors.js';

const [ScanCompleted, ScanPending, ScanFailed] = ScanStates;
/**
 * A state in its envelope with an unnamed copy of ApiMeta, since one response may hold a schema id only once;
 * the OpenAPI document still shows it as the named state plus the named ApiMeta.
 */
const withUnnamedMeta = <T extends TObject>(state: T) => {
  const { description, $id } = state as { description?: string; $id?: string };
  // Cast: the envelope is `state` plus api_meta, which typebox cannot express for a generic T.
  return Type.Object(
    { ...state.properties, api_meta: Type.Object(ApiMeta.properties, { additionalProperties: false }) },
    { additionalProperties: false, description, [RESOURCE_KEYWORD]: $id },
  ) as unknown as T;
};
const ScanStateResponse = Type.Union(
  [withMeta(ScanCompleted), withUnnamedMeta(ScanPending), withUnnamedMeta(ScanFailed)],
  { description: SCAN_STATE_DESCRIPTION },
);

/** Sets one item (`"name";…`) of a structured header, replacing an earlier item of the same name. */
function setHeaderItem(reply: FastifyReply, header: string, item: string): void {
  const name = item.slice(0, item.indexOf(';'));
  const others = String(reply.getHeader(header) ?? '')
    .split(', ')
    .filter((existing) => existing && !existing.startsWith(`${name};`));
  reply.header(header, [...others, item].join(', '));
}

/** RFC 7240: `Prefer: respond-async` (among other preferences, any case). */
function prefersAsync(headers: { prefer?: string }): boolean {
  return (headers.prefer ?? '')
    .split(',')
    .some((preference) => preference.split(';')[0].trim().toLowerCase() === 'respond-async');
}

const SCAN_DESCRIPTION = `Loads the page twice: a plain HTTP fetch with static HTML analysis, then headless Chromium that records every request, cookie and tag global without giving consent. Returns the trackers found (with ids and evidence), consent management and Google Consent Mode findings, server-side tagging, a loss estimate with its assumptions and sources, and on request a summary and a Lighthouse performance score.

**Quota:** 60 scans per hour per tenant, or the plan feature \`tracking_checker_api_hourly\` (agency 300, partner 1000). Every scan response carries the \`"scan-hourly"\` items in \`RateLimit-Policy\` and \`RateLimit\`; over the quota the answer is 429 \`scan_quota_exceeded\` with \`Retry-After\` (seconds until a slot frees). A scan that never reached the page gives its slot back: a URL refused by the network guard (400 \`url_not_allowed\`) or a page that could not be loaded (422 \`target_unreachable\`).

A scan takes a few seconds (Lighthouse adds ~7–10 s); it is capped, and returns partial results with \`warnings\` rather than hanging.

**Asynchronous:** scans run on worker processes. Without a preference the request waits for the result (503 \`service_unavailable\` if no worker finished it in time; the scan goes on). With \`Prefer: respond-async\` the answer is 202 at once, with \`Location: /api/v1/tracking-checker/scans/{id}/\` and the queued scan; the quota is reserved at that moment, and \`tracking_checker.scan.completed\` or \`tracking_checker.scan.failed\` webhooks announce the end.`;

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
      headers: Type.Object({
        prefer: Type.Optional(
          Type.String({
            description:
              '`respond-async` (RFC 7240): answer 202 at once with the queued scan and its `Location`; without it the request waits for the result.',
          }),
        ),
      }),
      response: {
        200: withMeta(ScanResponse),
        202: ScanStateResponse,
        ...errorResponses(
          CommonCodes.urlNotAllowed,
          TrackingCheckerErrors.targetUnreachable,
          TrackingCheckerErrors.quotaExceeded,
          CommonCodes.serviceUnavailable,
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
      const outcome = await checker.scan(requireAuth(request), request.body, onQuota, {
        respondAsync: prefersAsync(request.headers),
        requestId: request.id,
      });
      if ('completed' in outcome) return outcome.completed;
      return reply
        .code(202)
        .header('location', `/api/v1/tracking-checker/scans/${outcome.accepted.scan_id}/`)
        .header('preference-applied', 'respond-async')
        .send(outcome.accepted);
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
      return listPage(
        request,
        (window) => checker.list(requireAuth(request), window),
        (scan) => scan.scan_id,
      );
    },
  });

  app.get('/api/v1/tracking-checker/scans/:id/', {
    schema: {
      operationId: 'getScan',
      summary: 'Get a scan result',
      description:
        'The scan and its state: `queued` (waiting for a worker), `running` (with its `stage`), `completed` (with the result, in the same shape as the synchronous scan answer) or `failed` (with the error). Poll it after a `Prefer: respond-async` request, or subscribe to the `tracking_checker.scan.completed` and `.failed` webhooks.',
      tags,
      params: ScanIdParams,
      response: { 200: ScanStateResponse, ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request) => checker.state(requireAuth(request), request.params.id),
  });
};
