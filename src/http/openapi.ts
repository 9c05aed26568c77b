import fastifySwagger, { type OpenAPIV3_2 } from '@fastify/swagger';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { registerApiConsole } from './api-console.js';
import type { Role } from './context.js';
import { type Deprecation, documentDeprecations } from './deprecations.js';
import { completeDocument } from './openapi-document.js';
import { ruleFor } from './roles.js';
import { HttpCodes } from './errors.js';
import { codesOf, ERROR_DESCRIPTIONS, errorBody, isErrorBody } from './schemas.js';

const DESCRIPTION = `The Tagport API: hosted server-side tagging containers and their custom domains, uptime monitors and incidents, webhooks and events, reports, tenants and API keys, and the tracking checker (page scans for trackers and consent).

**Authentication.** Send \`Authorization: Bearer tgp_…\` with every request. Keys are created in the dashboard's API keys section (or \`POST /api/api-keys/\`) and shown once. Agency and partner keys act on a client tenant with the header \`Tagport-Tenant: ten_…\`.

**Conventions.** JSON in UTF-8, snake_case fields, ISO 8601 UTC times, type-prefixed ids (\`ten_\`, \`key_\`, …). Every body carries \`api_meta.request_id\` (also the \`X-Request-Id\` header). Lists are paginated with \`page\` (from 1) and \`page_size\` (1–100, default 20), or by cursor: \`starting_after\` or \`ending_before\` an object id of the list (as Stripe does), which costs the same at any depth; \`next\` and \`previous\` keep the style of the request. Errors have one shape (\`Error\`): \`{error: {type, code, message, param?, details?}, api_meta}\`; every operation lists the codes of each status, with an example of each. Paths work with and without the trailing slash. A \`201 Created\` carries \`Location\` when the new object can be fetched. Objects may gain new fields: ignore the fields you do not know.

**Roles.** Every operation names the lowest role that may call it (\`x-tagport-minimum-role\`, and a sentence in its description): \`member\` reads everything of the tenant, scans pages, requests reports and handles incidents; \`admin\` also creates, changes and deletes containers, domains, monitors, webhooks, API keys and client tenants, invites people and changes or removes members below the owner role; \`owner\` also archives tenants, sets plans and limit overrides, and grants, changes or removes the owner role (a tenant always keeps one owner). A session acts with the user's role; an API key with its own \`role\` (\`admin\` unless created otherwise; never above its creator's). A lower role gets 403 \`insufficient_role\`, with \`details.required_role\`.

**Rate limits.** 100 requests per minute per token (unauthenticated traffic per IP). Every response has \`RateLimit-Policy\`, \`RateLimit\` (IETF draft) and \`X-RateLimit-Limit/Remaining/Reset\`; over the limit the answer is 429 with \`Retry-After\` in seconds.

**Webhooks.** Subscribe an https endpoint to event types with \`POST /api/webhooks/\`; the \`webhooks\` section describes the body of each event type and how to verify its \`Tagport-Signature\` header.

[Status page](/status) · [Changelog](/changelog)`;

type OpenApiDocument = OpenAPIV3_2.Document;

/** What the modules document besides their routes: the webhooks they send, with their bodies as named schemas. */
export interface OpenApiExtras {
  webhooks: Record<string, unknown>;
  schemas: Record<string, unknown>;
  deprecations?: readonly Deprecation[];
}

/** OpenAPI 3.1 generated from the route schemas, served as JSON and YAML, plus the Scalar console (served locally). */
export async function registerOpenApi(
  app: FastifyInstance,
  extras: OpenApiExtras = { webhooks: {}, schemas: {} },
): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tagport API',
        version: '1.0.0',
        description: DESCRIPTION,
        license: { name: 'Proprietary', identifier: 'LicenseRef-Tagport' },
      },
      servers: [{ url: '/', description: 'This server' }],
      security: [{ bearer: [] }, { session: [] }],
      // Plain JSON built by the modules (src/modules/webhooks/openapi.ts), checked by the document tests.
      webhooks: extras.webhooks as OpenApiDocument['webhooks'],
      components: {
        schemas: extras.schemas as NonNullable<OpenApiDocument['components']>['schemas'],
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'tgp_ + 36 base62 characters',
            description: 'An API key of the tenant.',
          },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'tgp_session',
            description: 'Web dashboard session; unsafe methods also need the X-CSRF-Token header.',
          },
        },
      },
      tags: [
        { name: 'Overview', description: 'The health of a tenant at a glance, for the dashboard and status boards.' },
        { name: 'Tenants', description: 'Customer accounts and, for agencies and partners, their client tenants.' },
        { name: 'API keys', description: 'Bearer tokens of a tenant.' },
        { name: 'Web sessions', description: 'Cookie sessions of the web dashboard.' },
        {
          name: 'Members',
          description: 'The people of a tenant with their roles, and invitations by email that work once.',
        },
        {
          name: 'Tracking checker',
          description: 'Scans of web pages for trackers, consent and server-side tagging (partner endpoint).',
        },
        {
          name: 'Containers',
          description: 'Hosted server-side tagging containers, their lifecycle, usage and request logs.',
        },
        { name: 'Domains', description: 'Custom hostnames for containers, verified through DNS.' },
        { name: 'Events', description: 'What happened to your objects.' },
        { name: 'Monitoring', description: 'Uptime monitors, their checks and statistics, and incidents.' },
        {
          name: 'Tracking monitors',
          description:
            "Scheduled scans of a site's key pages compared with a baseline: runs, their changes, and incidents when tracking breaks.",
        },
        { name: 'Webhooks', description: 'Signed event deliveries to your endpoints, with retries.' },
        {
          name: 'Notification channels',
          description:
            'Alerts by email, Slack-compatible incoming webhooks and signed webhooks, with their deliveries.',
        },
        { name: 'Reports', description: 'Uptime, usage and scan reports as JSON or CSV.' },
        { name: 'System', description: 'Health and readiness.' },
        {
          name: 'Status page',
          description:
            'Tagport’s public status: incidents with timestamped updates and maintenance windows that platform operators post, and subscriptions by email (double opt-in) or webhook. Feeds: `/status/feed.atom`, `/status/feed.rss`.',
        },
      ],
    },
    hideUntagged: true,
    // Schemas with an `$id` (the resources, ApiMeta) become components.schemas under that name.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transform: ({ schema, url, route }) => ({
      schema: documentErrorCodes(documentRole(documentDeprecations(schema, extras.deprecations), route), route),
      url,
    }),
    transformObject: (document) =>
      completeDocument((document as { openapiObject: Record<string, unknown> }).openapiObject),
  });

  app.get('/api/openapi.json', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger()));
  });
  app.get('/api/openapi.yaml', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    return reply.type('application/yaml; charset=utf-8').send(app.swagger({ yaml: true }));
  });

  registerApiConsole(app, {
    url: '/api/openapi.json',
    title: 'Tagport API console',
    withDefaultFonts: false,
    hideClientButton: false,
    // A self-hosted API: none of Scalar's hosted-service controls (Ask AI, Generate MCP, the developer
    // toolbar's Deploy/Share/Configure), and no telemetry, so the console stays offline.
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: 'never',
    telemetry: false,
  });
}

const WHO: Record<Role, string> = { owner: 'owners only', admin: 'admins and owners', member: 'every role' };
const INSUFFICIENT_ROLE =
  "`insufficient_role` when the credential's role is too low (`details.required_role` names the role needed).";
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Codes the request guard answers on every credentialed route, by status. */
const GUARD_CODES: Record<number, string[]> = {
  401: [
    HttpCodes.missingCredentials,
    HttpCodes.invalidAuthorizationHeader,
    HttpCodes.invalidApiKey,
    HttpCodes.apiKeyRevoked,
    HttpCodes.apiKeyExpired,
    HttpCodes.credentialTenantArchived,
  ].map((definition) => definition.code),
  // A Tagport-Tenant header naming a tenant that is not the caller's client.
  404: [HttpCodes.resourceMissing.code],
};

/** Shows each operation's rule from the role policy: an extension, a sentence in the description and the 403. */
function documentRole(schema: FastifySchema, route: RouteOptions): FastifySchema {
  const rule = schema && ruleFor(route);
  if (!rule) return schema;
  const ownerFields = rule.ownerOnlyFields?.map((field) => `\`${field}\``).join(' or ');
  const sentence = `**Minimum role:** \`${rule.minimum}\` (${WHO[rule.minimum]}).${ownerFields ? ` Setting ${ownerFields} needs \`owner\`.` : ''}`;
  const documented: FastifySchema & Record<string, unknown> = {
    ...schema,
    description: schema.description ? `${schema.description}\n\n${sentence}` : sentence,
    'x-tagport-minimum-role': rule.minimum,
  };
  if (ownerFields) documented['x-tagport-owner-only-fields'] = rule.ownerOnlyFields;
  if (rule.minimum === 'member' && !ownerFields) return documented;
  const responses = (schema.response ?? {}) as Record<string, { description?: string }>;
  const forbidden = responses[403];
  documented.response = {
    ...responses,
    403: forbidden
      ? errorBody(`${forbidden.description ?? ''} Also ${INSUFFICIENT_ROLE}`.trim(), [
          ...codesOf(forbidden),
          HttpCodes.insufficientRole.code,
        ])
      : errorBody(`Authenticated, but not allowed to do this: ${INSUFFICIENT_ROLE}`, [HttpCodes.insufficientRole.code]),
  };
  return documented;
}

/**
 * Completes the codes of each error status with those that depend on how the route is reached: the request
 * guard's (authentication; the Tagport-Tenant header), the body's (size, media type) and CSRF for unsafe
 * methods, with the session cookie. A public route answers no 401 unless it declares one.
 */
/** Lists (their query takes PaginationQuery) answer 400 for a cursor not in the list or two ways of paging at once. */
const pagesByCursor = (schema: FastifySchema) =>
  (schema.querystring as { properties?: Record<string, unknown> } | undefined)?.properties?.starting_after !==
  undefined;

function documentErrorCodes(schema: FastifySchema, route: RouteOptions): FastifySchema {
  if (!schema?.response) return schema;
  const guarded = ruleFor(route) !== null;
  const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((method) => method.toUpperCase());
  const added: Record<number, string[]> = guarded ? { ...GUARD_CODES } : {};
  if (methods.some((method) => UNSAFE_METHODS.has(method))) {
    // Fastify reads the body of every unsafe method, declared or not.
    added[413] = [HttpCodes.bodyTooLarge.code];
    added[415] = [HttpCodes.unsupportedMediaType.code];
    if (guarded) added[403] = [HttpCodes.csrfTokenInvalid.code];
  }
  if (pagesByCursor(schema))
    added[400] = [...(added[400] ?? []), HttpCodes.invalidCursor.code, HttpCodes.conflictingPagination.code];
  const responses: Record<string, unknown> = { ...(schema.response as Record<string, unknown>) };
  for (const [status, codes] of Object.entries(added)) {
    const existing = responses[status] as { description?: string } | undefined;
    responses[status] = errorBody(existing?.description ?? ERROR_DESCRIPTIONS[Number(status)], [
      ...codesOf(existing),
      ...codes,
    ]);
  }
  for (const [status, response] of Object.entries(responses))
    if (isErrorBody(response) && codesOf(response).length === 0) delete responses[status];
  return { ...schema, response: responses };
}
