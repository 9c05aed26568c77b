import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAuth } from '../../http/context.js';
import { CommonCodes } from '../../lib/errors.js';
import { listPage } from '../../http/pagination.js';
import { errorResponses, listEnvelope, PaginationQuery, withMeta } from '../../http/schemas.js';
import { CreateDomainBody, Domain, DomainIdParams } from './schemas.js';
import { DomainErrors } from './errors.js';
import { ContainerErrors } from '../containers/errors.js';

export const domainRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const domains = app.services.domains;
  const tags = ['Domains'];
  const tenant = (request: Parameters<typeof requireAuth>[0]) => requireAuth(request).tenantId;

  app.get('/api/domains/', {
    schema: {
      operationId: 'listDomains',
      summary: 'List custom domains',
      description: 'Custom domains of the tenant, newest first, with their verification state and DNS records.',
      tags,
      querystring: PaginationQuery,
      response: { 200: listEnvelope(Domain, 'A page of domains.'), ...errorResponses() },
    },
    handler: async (request) => {
      return listPage(request, (window) => domains.list(tenant(request), window));
    },
  });

  app.post('/api/domains/', {
    schema: {
      operationId: 'createDomain',
      summary: 'Attach a custom domain',
      description:
        'Returns the DNS records to create: a CNAME to the container (or A records) and a TXT ownership record with a token of your own. Then call verify (domains are also re-checked on a schedule). Several accounts may claim the same hostname; the first to prove ownership in DNS gets it and the other pending claims are released (`domain.released`). A claim not verified within the pending period (7 days by default) is released. The hostname must be bare: no scheme, port, path or query (400). 409 `hostname_taken` only when the hostname is already one of your domains.',
      tags,
      body: CreateDomainBody,
      response: {
        201: withMeta(Domain),
        ...errorResponses(
          DomainErrors.invalidHostname,
          DomainErrors.reservedHostname,
          CommonCodes.resourceMissing,
          ContainerErrors.notChangeable,
          DomainErrors.hostnameTaken,
        ),
      },
    },
    handler: async (request, reply) => reply.code(201).send(await domains.create(tenant(request), request.body)),
  });

  app.get('/api/domains/:id/', {
    schema: {
      operationId: 'getDomain',
      summary: 'Get a domain',
      description: 'One custom domain with its verification state, the DNS records to create and its certificate.',
      tags,
      params: DomainIdParams,
      response: { 200: withMeta(Domain), ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request) => domains.get(tenant(request), request.params.id),
  });

  app.delete('/api/domains/:id/', {
    schema: {
      operationId: 'deleteDomain',
      summary: 'Detach a domain',
      description: 'The gateway stops serving the hostname at once; it can be claimed again.',
      tags,
      params: DomainIdParams,
      response: { 200: withMeta(Domain), ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request) => domains.delete(tenant(request), request.params.id),
  });

  app.post('/api/domains/:id/verify/', {
    schema: {
      operationId: 'verifyDomain',
      summary: 'Verify a domain now',
      description:
        'Real DNS lookups (CNAME or A, and the TXT token); the domain becomes active or failed with a reason: wrong_target, missing_txt, nxdomain, timeout.',
      tags,
      params: DomainIdParams,
      response: { 200: withMeta(Domain), ...errorResponses(CommonCodes.resourceMissing) },
    },
    handler: async (request) => domains.verify(tenant(request), request.params.id),
  });
};
