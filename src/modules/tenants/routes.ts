import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAuth } from '../../http/context.js';
import { CommonCodes } from '../../lib/errors.js';
import { listPage } from '../../http/pagination.js';
import { errorResponses, listEnvelope, withMeta } from '../../http/schemas.js';
import { CreateTenantBody, ListTenantsQuery, Tenant, TenantIdParams, UpdateTenantBody } from './schemas.js';
import { TenantErrors } from './errors.js';

export const tenantRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { tenants } = app.services;
  const tags = ['Tenants'];

  app.get('/api/tenants/', {
    schema: {
      operationId: 'listTenants',
      summary: 'List tenants',
      description:
        'The tenant of the credential and, for agencies and partners, its client tenants. Archived tenants are listed with `status=archived` or `status=all`. The `count` of active tenants is exact at any size (each parent keeps its count of active clients); with `status=archived` or `status=all` it is bounded as in every list.',
      tags,
      querystring: ListTenantsQuery,
      response: { 200: listEnvelope(Tenant, 'A page of tenants.'), ...errorResponses() },
    },
    handler: async (request) => {
      const auth = requireAuth(request);
      return listPage(request, (window) => tenants.list(auth, request.query.status ?? 'active', window));
    },
  });

  app.post('/api/tenants/', {
    schema: {
      operationId: 'createClientTenant',
      summary: 'Create a client tenant',
      description:
        "Agency and partner tenants create client tenants they manage. Their keys act on a client with the `Tagport-Tenant` header. The plan's `max_client_tenants` applies (402); archived clients do not count.",
      tags,
      body: CreateTenantBody,
      response: {
        201: withMeta(Tenant),
        ...errorResponses(TenantErrors.clientsNotAllowed, CommonCodes.planLimitReached),
      },
    },
    handler: async (request, reply) => {
      const tenant = await tenants.createClient(requireAuth(request), request.body);
      return reply.code(201).send(tenant);
    },
  });

  app.get('/api/tenants/:id/', {
    schema: {
      operationId: 'getTenant',
      summary: 'Get a tenant',
      description: "The caller's own tenant or one of its client tenants, with its plan, features and limits.",
      tags,
      params: TenantIdParams,
      response: { 200: withMeta(Tenant), ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request) => tenants.get(requireAuth(request), request.params.id),
  });

  app.patch('/api/tenants/:id/', {
    schema: {
      operationId: 'updateTenant',
      summary: 'Update a tenant',
      description:
        'Admins and owners may rename a tenant; plan and feature overrides need the owner role and can only be changed by the parent agency or partner of a client tenant.',
      tags,
      params: TenantIdParams,
      body: UpdateTenantBody,
      response: {
        200: withMeta(Tenant),
        ...errorResponses(
          CommonCodes.resourceMissing,
          TenantErrors.planChangeNotAllowed,
          TenantErrors.notAClientPlan,
          TenantErrors.unknownFeature,
          TenantErrors.featureNotOverridable,
          TenantErrors.archivedUnchangeable,
        ),
      },
    },
    handler: async (request) => tenants.update(requireAuth(request), request.params.id, request.body),
  });

  app.delete('/api/tenants/:id/', {
    schema: {
      operationId: 'archiveTenant',
      summary: 'Archive a client tenant',
      description:
        'Archives the tenant; its API keys and sessions stop working at once on every instance. Archiving again returns the archived tenant.',
      tags,
      params: TenantIdParams,
      response: {
        200: withMeta(Tenant),
        ...errorResponses(CommonCodes.resourceMissing, TenantErrors.cannotArchiveSelf),
      },
    },
    handler: async (request) => tenants.archive(requireAuth(request), request.params.id),
  });
};
