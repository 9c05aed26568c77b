import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireAuth } from '../../http/context.js';
import { CommonCodes } from '../../lib/errors.js';
import { listPage, requestOrigin } from '../../http/pagination.js';
import { errorResponses, listEnvelope, PaginationQuery, withMeta } from '../../http/schemas.js';
import { AuthErrors } from '../auth/errors.js';
import { MemberErrors } from './errors.js';
import {
  AcceptedInvitation,
  AcceptInvitationBody,
  CreatedInvitation,
  CreateInvitationBody,
  Invitation,
  InvitationIdParams,
  InvitationPreview,
  LookupInvitationBody,
  Member,
  MemberIdParams,
  UpdateMemberBody,
} from './schemas.js';

export const memberRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { members, invitations } = app.services;
  const tags = ['Members'];

  app.get('/api/members/', {
    schema: {
      operationId: 'listMembers',
      summary: 'List members',
      description: 'The people of the tenant the request acts for, with their roles, oldest first.',
      tags,
      querystring: PaginationQuery,
      response: { 200: listEnvelope(Member, 'A page of members.'), ...errorResponses() },
    },
    handler: async (request) => listPage(request, (window) => members.list(requireAuth(request).tenantId, window)),
  });

  app.patch('/api/members/:id/', {
    schema: {
      operationId: 'updateMember',
      summary: "Change a member's role",
      description:
        "Only owners grant the owner role or change an owner's role; the last owner cannot be demoted (409 `last_owner`). The member's open sessions pick up the new role at once.",
      tags,
      params: MemberIdParams,
      body: UpdateMemberBody,
      response: {
        200: withMeta(Member),
        ...errorResponses(CommonCodes.resourceMissing, CommonCodes.insufficientRole, MemberErrors.lastOwner),
      },
    },
    handler: async (request) => members.changeRole(requireAuth(request), request.params.id, request.body.role),
  });

  app.delete('/api/members/:id/', {
    schema: {
      operationId: 'removeMember',
      summary: 'Remove a member',
      description:
        'Takes the person out of the tenant and signs out their sessions in it at once; their account and other tenants stay. Only owners remove owners, and the last owner cannot be removed (409 `last_owner`).',
      tags,
      params: MemberIdParams,
      response: {
        200: withMeta(Member),
        ...errorResponses(CommonCodes.resourceMissing, CommonCodes.insufficientRole, MemberErrors.lastOwner),
      },
    },
    handler: async (request) => members.remove(requireAuth(request), request.params.id),
  });

  app.get('/api/invitations/', {
    schema: {
      operationId: 'listInvitations',
      summary: 'List invitations',
      description: 'Invitations of the tenant, newest first, with their status (pending, accepted, revoked, expired).',
      tags,
      querystring: PaginationQuery,
      response: { 200: listEnvelope(Invitation, 'A page of invitations.'), ...errorResponses() },
    },
    handler: async (request) => listPage(request, (window) => invitations.list(requireAuth(request).tenantId, window)),
  });

  app.post('/api/invitations/', {
    schema: {
      operationId: 'createInvitation',
      summary: 'Invite someone',
      description:
        'Emails a link to join the tenant with the role (when `SMTP_URL` and `PUBLIC_BASE_URL` are configured: a link in an email is never built from the request) and answers the link once in `accept_url`; it works once, for 7 days. Only owners invite owners. Inviting an address again revokes its earlier pending invitation.',
      tags,
      body: CreateInvitationBody,
      response: {
        201: withMeta(CreatedInvitation),
        ...errorResponses(CommonCodes.insufficientRole, MemberErrors.alreadyMember),
      },
    },
    handler: async (request, reply) => {
      const links = { publicBaseUrl: app.config.publicBaseUrl, requestOrigin: requestOrigin(request) };
      return reply.code(201).send(await invitations.create(requireAuth(request), request.body, links));
    },
  });

  app.delete('/api/invitations/:id/', {
    schema: {
      operationId: 'revokeInvitation',
      summary: 'Revoke an invitation',
      description: 'The link stops working at once. Only pending invitations can be revoked.',
      tags,
      params: InvitationIdParams,
      response: {
        200: withMeta(Invitation),
        ...errorResponses(CommonCodes.resourceMissing, CommonCodes.insufficientRole, MemberErrors.invitationNotPending),
      },
    },
    handler: async (request) => invitations.revoke(requireAuth(request), request.params.id),
  });

  const linkErrors = [
    CommonCodes.resourceMissing,
    MemberErrors.invitationExpired,
    MemberErrors.invitationRevoked,
    MemberErrors.invitationUsed,
  ];

  app.post('/api/public/invitations/lookup/', {
    config: { public: true },
    schema: {
      operationId: 'lookupInvitation',
      summary: 'Read an invitation link',
      description:
        'For the acceptance page: the tenant, address and role an invitation link offers, and whether the address already has an account. Needs no credentials: the token is the credential.',
      tags,
      security: [],
      body: LookupInvitationBody,
      response: { 200: withMeta(InvitationPreview), ...errorResponses(...linkErrors) },
    },
    handler: async (request) => invitations.preview(request.body.token),
  });

  app.post('/api/public/invitations/accept/', {
    config: { public: true },
    schema: {
      operationId: 'acceptInvitation',
      summary: 'Accept an invitation',
      description:
        'A new address sets `name` and `password` (at least 12 characters); an existing account confirms with its password. Either way the account joins the tenant with the invited role, and the link is spent. Sign in afterwards with `POST /api/auth/login`.',
      tags,
      security: [],
      body: AcceptInvitationBody,
      response: {
        201: withMeta(AcceptedInvitation),
        ...errorResponses(
          ...linkErrors,
          MemberErrors.nameRequired,
          MemberErrors.incorrectPassword,
          MemberErrors.alreadyMember,
          AuthErrors.weakPassword,
          AuthErrors.emailTaken,
        ),
      },
    },
    handler: async (request, reply) => reply.code(201).send(await invitations.accept(request.body)),
  });
};
