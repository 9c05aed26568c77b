import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAuth } from '../../http/context.js';
import { errorResponses, withMeta } from '../../http/schemas.js';
import { Overview } from './schemas.js';

export const overviewRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const overview = app.services.overview;

  app.get('/api/overview/', {
    schema: {
      operationId: 'getOverview',
      summary: 'Get the overview',
      description:
        'One answer to "is everything OK?" for the tenant the request acts for (with `Tagport-Tenant`, a client): containers by status with those needing attention first (failed, stopped, custom domain not verified, certificate failing or near expiry), gateway requests today and per day over 30 days, monitors\' uptime over 24 hours, 7 and 30 days with the unresolved incidents, the scan quota used this hour with the latest scans, the set-up steps of a new account, and for agencies the clients that need attention. The dashboard\'s overview page is drawn from it.',
      tags: ['Overview'],
      response: { 200: withMeta(Overview), ...errorResponses() },
    },
    handler: async (request) => overview.summary(requireAuth(request)),
  });
};
