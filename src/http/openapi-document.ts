import { ID_PREFIXES } from '../lib/ids.js';
import { errorDefinition, HttpCodes } from './errors.js';
import { UNLIMITED_PATHS } from './guard.js';
import { isErrorBody, RESOURCE_KEYWORD } from './schemas.js';
import { ErrorBody } from './schemas.js';

// biome-ignore lint/suspicious/noExplicitAny: the generated OpenAPI document is plain JSON
type Json = Record<string, any>;

const EXAMPLE_REQUEST_ID = 'req_01jdv3k2m8q4r7s9t0v1w2x3y4';
const EXAMPLE_ID_TAIL = '01jdv3k2m8q4r7s9t0v1w2x3y4';
const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The response headers the API sends, declared once and referenced by every response that carries them. */
export const RESPONSE_HEADERS: Record<string, Json> = {
  XRequestId: {
    description: 'Unique id of the request (also `api_meta.request_id`); quote it when you contact us.',
    schema: { type: 'string', examples: [EXAMPLE_REQUEST_ID] },
  },
  RateLimitPolicy: {
    description:
      'The quota policies that apply (IETF draft RateLimit headers): `"token";q=100;w=60` per credential or `"ip"` for anonymous requests (`"page"` on dashboard pages, per signed-in session); the scan adds `"scan-hourly"` and the public scan `"public-scan"`.',
    schema: { type: 'string', examples: ['"token";q=100;w=60'] },
  },
  RateLimit: {
    description: 'What is left of each policy: `r` requests remaining, `t` seconds until the window resets.',
    schema: { type: 'string', examples: ['"token";r=99;t=60'] },
  },
  XRateLimitLimit: {
    description: 'Requests allowed per window for this credential (or IP).',
    schema: { type: 'integer', examples: [100] },
  },
  XRateLimitRemaining: {
    description: 'Requests left in the current window.',
    schema: { type: 'integer', examples: [99] },
  },
  XRateLimitReset: {
    description: 'When the current window resets, in Unix seconds.',
    schema: { type: 'integer', examples: [1764000000] },
  },
  RetryAfter: {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 1, examples: [17] },
  },
  WWWAuthenticate: {
    description: 'The authentication challenge: send an API key as a bearer token.',
    schema: { type: 'string', examples: ['Bearer realm="tagport"'] },
  },
  Deprecation: {
    description: 'The operation is deprecated (RFC 9745): `@<unix seconds>` of the announcement.',
    schema: { type: 'string', examples: ['@1764000000'] },
  },
  Sunset: {
    description: 'From when the operation may stop working (RFC 8594), as an HTTP date.',
    schema: { type: 'string', examples: ['Fri, 23 Jan 2027 00:00:00 GMT'] },
  },
  Link: {
    description: 'The changelog entry announcing the deprecation (`rel="deprecation"` and `rel="sunset"`).',
    schema: { type: 'string' },
  },
  Location: {
    description: 'URL of the created object.',
    schema: { type: 'string', format: 'uri-reference', examples: ['/api/containers/ctr_01jdv3k2m8q4r7s9t0v1w2x3y4/'] },
  },
};

const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': 'RateLimitPolicy',
  RateLimit: 'RateLimit',
  'X-RateLimit-Limit': 'XRateLimitLimit',
  'X-RateLimit-Remaining': 'XRateLimitRemaining',
  'X-RateLimit-Reset': 'XRateLimitReset',
};

export const TENANT_PARAMETER: Json = {
  name: 'Tagport-Tenant',
  in: 'header',
  required: false,
  description:
    "Agency and partner credentials act on one of their client tenants by naming it here (`ten_…`). A tenant that is not the caller's own or one of its active clients is answered with 404 `resource_missing`.",
  schema: { type: 'string', pattern: `^${ID_PREFIXES.tenant}_[0-9a-z]{16,40}$`, examples: [`ten_${EXAMPLE_ID_TAIL}`] },
};

/**
 * Completes the generated document with what every route shares, so a new route gets it without extra work:
 * the Tagport-Tenant parameter on credentialed operations, the response headers, an example per error code
 * from the catalogues, and named schemas for the resources and the error body.
 */
export function completeDocument(document: Json): Json {
  for (const [path, item] of Object.entries<Json>(document.paths ?? {}))
    for (const operation of Object.values<Json>(item)) completeOperation(document, path, operation);
  document.components ??= {};
  const components = document.components;
  components.schemas = { ...components.schemas, ...errorSchemas() };
  referenceResources(document.paths, components.schemas);
  components.headers = usedHeaders(document);
  quoteHtmlInDescriptions(document);
  components.parameters = { ...components.parameters, TagportTenant: TENANT_PARAMETER };
  return document;
}

function completeOperation(document: Json, path: string, operation: Json): void {
  const credentialed = operation['x-tagport-minimum-role'] !== undefined;
  if (credentialed)
    operation.parameters = [{ $ref: '#/components/parameters/TagportTenant' }, ...(operation.parameters ?? [])];
  for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
    const media = response.content?.['application/json'];
    const errorResponse = media && isErrorBody(media.schema);
    response.headers = { ...response.headers, ...headersOf(path, Number(status), errorResponse) };
    // location.ts: a 201 on a collection whose objects have a GET
    if (status === '201' && document.paths[`${path}{id}/`]?.get) response.headers.Location = headerRef('Location');
    // deprecations.ts: every response of a deprecated operation announces it
    if (operation.deprecated)
      for (const name of ['Deprecation', 'Sunset', 'Link']) response.headers[name] = headerRef(name);
    if (!errorResponse) continue;
    const codes: string[] = media.schema.properties.error.properties.code.enum ?? [];
    delete media.example;
    media.examples = errorExamples(path, Number(status), codes, credentialed);
    media.schema = {
      allOf: [schemaRef('Error')],
      properties: {
        error: { allOf: [schemaRef('ErrorDetail')], properties: { code: { type: 'string', enum: codes } } },
      },
    };
  }
}

/** The headers a response of this path and status really carries (see guard.ts, rate-limit.ts and errors.ts). */
function headersOf(path: string, status: number, errorResponse: boolean): Json {
  const headers: Json = { 'X-Request-Id': headerRef('XRequestId') };
  if (!UNLIMITED_PATHS.has(path))
    for (const [name, component] of Object.entries(RATE_LIMIT_HEADERS)) headers[name] = headerRef(component);
  if (errorResponse && (status === 429 || status === 503)) headers['Retry-After'] = headerRef('RetryAfter');
  if (errorResponse && status === 401) headers['WWW-Authenticate'] = headerRef('WWWAuthenticate');
  return headers;
}

/** The object a path is about (`/api/containers/{id}/…` → container), for the 404 example. */
function resourceOf(path: string): { name: string; prefix: string } | null {
  const segments = path.split('/');
  const at = segments.indexOf('{id}');
  if (at < 1) return null;
  const kind = segments[at - 1].replace(/s$/, '').replace(/-(\w)/g, (_match, letter: string) => letter.toUpperCase());
  const prefix = (ID_PREFIXES as Record<string, string>)[kind];
  if (!prefix) return null;
  const name = kind === 'apiKey' ? 'API key' : kind.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`);
  return { name, prefix };
}

/** One example per code the operation answers with this status, built from the code's catalogue entry. */
function errorExamples(path: string, status: number, codes: string[], credentialed: boolean): Json {
  const examples: Json = {};
  for (const code of codes) {
    const definition = errorDefinition(status, code);
    const example = definition?.example ?? { message: `${code.replaceAll('_', ' ')}.` };
    const error: Json = { type: definition?.type ?? 'api_error', code, ...example };
    if (status === 404 && code === HttpCodes.resourceMissing.code) {
      const resource = resourceOf(path);
      if (resource) {
        const message = `No ${resource.name} with id '${resource.prefix}_${EXAMPLE_ID_TAIL}'.`;
        examples[code] = exampleOf(`${code}: no such ${resource.name}`, { ...error, message });
      }
      if (credentialed)
        examples[resource ? `${code}_tenant` : code] = exampleOf(`${code}: Tagport-Tenant names no client tenant`, {
          ...error,
          message: `No tenant with id 'ten_${EXAMPLE_ID_TAIL}'.`,
        });
      if (resource || credentialed) continue;
    }
    examples[code] = exampleOf(code, error);
  }
  return examples;
}

const exampleOf = (summary: string, error: Json) => ({
  summary,
  value: { error, api_meta: { request_id: EXAMPLE_REQUEST_ID } },
});

/** The error body, named `Error` (its `error` object is `ErrorDetail`); each error response narrows `error.code`. */
function errorSchemas(): Json {
  const { properties, ...body } = JSON.parse(JSON.stringify(ErrorBody));
  return {
    Error: { ...body, properties: { error: schemaRef('ErrorDetail'), api_meta: schemaRef('ApiMeta') } },
    ErrorDetail: properties.error,
  };
}

/**
 * Replaces each single-object response (`withMeta`) by the resource's named schema plus `api_meta`. A resource
 * used only so is named from that response (its fields without `api_meta`). The resource is sent with
 * `api_meta` next to its fields, so its schema cannot forbid other properties.
 */
function referenceResources(node: unknown, schemas: Json): void {
  if (node && typeof node === 'object') {
    const object = node as Json;
    for (const [key, child] of Object.entries(object)) {
      const name = child && typeof child === 'object' ? (child as Json)[RESOURCE_KEYWORD] : undefined;
      if (typeof name !== 'string') {
        referenceResources(child, schemas);
        continue;
      }
      const { [RESOURCE_KEYWORD]: _name, additionalProperties: _closed, properties, required, ...rest } = child;
      const { api_meta: _meta, ...fields } = properties;
      schemas[name] ??= {
        ...rest,
        properties: fields,
        required: required.filter((field: string) => field !== 'api_meta'),
      };
      delete schemas[name].additionalProperties;
      object[key] = {
        ...(child.description ? { description: child.description } : {}),
        allOf: [schemaRef(name)],
        properties: { api_meta: schemaRef('ApiMeta') },
        required: ['api_meta'],
      };
    }
  }
}

const CODE_OR_TEXT = /(```[\s\S]*?```|`[^`]*`)/;
const HTML_TAG = /<\/?[a-zA-Z][^<>]*>/g;

/**
 * Descriptions are Markdown, where a raw `<script src>` is HTML a renderer may run or drop: every tag written
 * in a description outside code is escaped (`&lt;script src&gt;`), so it is shown as text.
 */
function quoteHtmlInDescriptions(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  const object = node as Json;
  for (const [key, value] of Object.entries(object)) {
    if (key === 'description' && typeof value === 'string')
      object[key] = value
        .split(CODE_OR_TEXT)
        .map((part, index) =>
          index % 2 === 1 ? part : part.replace(HTML_TAG, (tag) => tag.replace('<', '&lt;').replace('>', '&gt;')),
        )
        .join('');
    else quoteHtmlInDescriptions(value);
  }
}

/** The header components some response references (the deprecation headers only while something is deprecated). */
function usedHeaders(document: Json): Json {
  const used = new Set<string>();
  for (const item of Object.values<Json>(document.paths ?? {}))
    for (const operation of Object.values<Json>(item))
      for (const response of Object.values<Json>(operation.responses ?? {}))
        for (const header of Object.values<Json>(response.headers ?? {})) used.add(header.$ref?.split('/').pop());
  return Object.fromEntries(Object.entries(RESPONSE_HEADERS).filter(([name]) => used.has(name)));
}
