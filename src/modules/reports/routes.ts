import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireAuth } from '../../http/context.js';
import { CommonCodes } from '../../lib/errors.js';
import { listPage } from '../../http/pagination.js';
import { errorResponses, listEnvelope, PaginationQuery, withMeta } from '../../http/schemas.js';
import { CreateReportBody, Report, ReportFile, ReportIdParams } from './schemas.js';
import { ReportErrors } from './errors.js';

export const reportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const reports = app.services.reports;
  const tags = ['Reports'];
  const tenant = (request: Parameters<typeof requireAuth>[0]) => requireAuth(request).tenantId;

  app.post('/api/reports/', {
    schema: {
      operationId: 'createReport',
      summary: 'Request a report',
      description:
        'Queues a report over [period_start, period_end) in UTC, built from the stored data. It moves queued → running → ready | failed; a `report.ready` webhook event fires when it is ready.',
      tags,
      body: CreateReportBody,
      response: {
        202: withMeta(Report),
        ...errorResponses(ReportErrors.invalidDate, CommonCodes.periodReversed, CommonCodes.periodTooLong),
      },
    },
    handler: async (request, reply) => reply.code(202).send(await reports.create(tenant(request), request.body)),
  });

  app.get('/api/reports/', {
    schema: {
      operationId: 'listReports',
      summary: 'List reports',
      description: 'Reports of the tenant, newest first, with their status.',
      tags,
      querystring: PaginationQuery,
      response: { 200: listEnvelope(Report, 'A page of reports, newest first.'), ...errorResponses() },
    },
    handler: async (request) => {
      return listPage(request, (window) => reports.list(tenant(request), window));
    },
  });

  app.get('/api/reports/:id/', {
    schema: {
      operationId: 'getReport',
      summary: 'Get a report',
      description: 'One report; once `status` is `ready`, `download_url` points at its file.',
      tags,
      params: ReportIdParams,
      response: { 200: withMeta(Report), ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request) => reports.get(tenant(request), request.params.id),
  });

  app.get('/api/reports/:id/download/', {
    schema: {
      operationId: 'downloadReport',
      summary: 'Download a report',
      description:
        'The report file: JSON `{report_id, kind, period_start, period_end, rows}` or CSV with a header row. 409 until it is ready.',
      tags,
      params: ReportIdParams,
      produces: ['application/json', 'text/csv'],
      response: {
        200: {
          description: 'The report file, in the format it was requested in.',
          content: { 'application/json': { schema: ReportFile }, 'text/csv': { schema: Type.String() } },
        },
        ...errorResponses(CommonCodes.resourceMissing, ReportErrors.notReady),
      },
    },
    handler: async (request, reply) => {
      const file = await reports.download(tenant(request), request.params.id);
      return reply
        .type(file.contentType)
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .serializer((payload) => payload as string)
        .send(file.content);
    },
  });
};
