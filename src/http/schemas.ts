import { Type, type Static, type TSchema } from 'typebox';
import { COUNT_BOUND } from '../lib/count-bound.js';
import { type ErrorCodeDefinition, type ErrorDefinition, HttpCodes } from './errors.js';

/**
 * Marks a single-object response (`withMeta`) with the name of the resource it carries, so the OpenAPI document
 * references that resource's schema instead of repeating it.
 */
export const RESOURCE_KEYWORD = 'x-tagport-resource';

/**
 * `enum` and `type: [x, 'null']` instead of anyOf unions: the same JSON Schema meaning, but the response
 * serialiser (fast-json-stringify) has to validate each anyOf branch at run time, which is slow on hot paths.
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export function Nullable<T extends TSchema>(schema: T, options: Record<string, unknown> = {}) {
  // Cast: a TSchema's type does not declare its JSON Schema keywords; these are read as plain JSON.
  const { type, ...rest } = schema as T & { type: string; enum?: unknown[] };
  const values = rest.enum ? { enum: [...rest.enum, null] } : {};
  return Type.Unsafe<Static<T> | null>({ ...rest, ...values, type: [type, 'null'], ...options });
}

type OptionalFields<T extends Record<string, TSchema>> = { [K in keyof T]: ReturnType<typeof Type.Optional<T[K]>> };

/** A create body's fields made optional; their defaults stay (the validator fills in what the client left out). */
export function optionalFields<T extends Record<string, TSchema>>(properties: T): OptionalFields<T> {
  return Object.fromEntries(
    Object.entries(properties).map(([key, schema]) => [key, Type.Optional(schema)]),
  ) as OptionalFields<T>;
}

/**
 * A PATCH body's fields: optional and without their defaults. With a default, the validator would fill in a field
 * the client left out, and the update would reset it.
 */
export function patchFields<T extends Record<string, TSchema>>(properties: T): OptionalFields<T> {
  return Object.fromEntries(
    Object.entries(properties).map(([key, schema]) => {
      // Cast: a TSchema's type does not declare its JSON Schema keywords (rest keeps TypeBox's symbol keys).
      const { default: _default, ...rest } = schema as TSchema & { default?: unknown };
      return [key, Type.Optional(rest as TSchema)];
    }),
  ) as OptionalFields<T>;
}

/** Shared schemas for every route: api_meta, the error body, the list envelope and pagination. */

export const ApiMeta = Type.Object(
  {
    request_id: Type.String({
      description: 'Unique id of this request; also in the X-Request-Id header.',
      examples: ['req_01jdv3k2m8q4r7s9t0v1w2x3y4'],
    }),
  },
  { $id: 'ApiMeta', additionalProperties: false },
);

export const ErrorBody = Type.Object(
  {
    error: Type.Object(
      {
        type: StringEnum(
          [
            'invalid_request_error',
            'authentication_error',
            'permission_error',
            'not_found_error',
            'conflict_error',
            'rate_limit_error',
            'quota_error',
            'api_error',
          ] as const,
          { description: 'Broad category of the error.' },
        ),
        code: Type.String({ description: 'Machine-readable error code, stable across releases.' }),
        message: Type.String({ description: 'Human-readable explanation.' }),
        param: Type.Optional(Type.String({ description: 'The request parameter the error relates to.' })),
        details: Type.Optional(
          Type.Record(Type.String(), Type.Unknown(), { description: 'Additional machine-readable detail.' }),
        ),
      },
      { additionalProperties: false },
    ),
    api_meta: ApiMeta,
  },
  {
    additionalProperties: false,
    description:
      'The body of every error: `error.code` is stable and machine-readable; each operation lists the codes of each status.',
  },
);

export const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: malformed JSON or URL, unknown or missing fields, wrong types, out-of-range values, or control characters (`invalid_character`: C0 controls and DEL, except tab and line breaks in bodies).',
  401: 'Missing, malformed, unknown, revoked or expired credentials. Carries `WWW-Authenticate: Bearer`.',
  402: 'The plan does not allow this; upgrade or remove something first.',
  403: 'Authenticated, but not allowed to do this.',
  404: 'No such object, or it belongs to another tenant.',
  405: 'The path exists but not with this method; see the Allow header.',
  409: 'The request conflicts with the current state of the object.',
  413: 'The request body is larger than 1 MB.',
  415: 'The request body is not `application/json`.',
  422: 'The request is valid, but its target could not be processed.',
  429: 'Too many requests; retry after the number of seconds in `Retry-After`.',
  500: 'Something went wrong on our side; the request id helps us find it.',
  503: '`service_unavailable`: a dependency (the database) cannot be reached right now; retry after the seconds in `Retry-After`.',
};

const COMMON_ERRORS = [400, 401, 429, 500, 503] as const;

/** Codes every operation can answer with a status, whatever it does: validation, framework, limits, availability. */
const COMMON_CODES: Partial<Record<number, ErrorCodeDefinition[]>> = {
  400: [
    HttpCodes.invalidParameter,
    HttpCodes.unknownParameter,
    HttpCodes.invalidJson,
    HttpCodes.emptyBody,
    HttpCodes.invalidContentLength,
    HttpCodes.invalidUrl,
    HttpCodes.pathParameterTooLong,
    HttpCodes.invalidCharacter,
    HttpCodes.badRequest,
  ],
  429: [HttpCodes.rateLimited],
  500: [HttpCodes.internalError],
  503: [HttpCodes.serviceUnavailable],
};

/** The error body of one status, with the codes it can carry as an enum on `error.code`. */
export function errorBody(description: string, codes: readonly string[]): TSchema {
  const error = ErrorBody.properties.error;
  const code = [...new Set(codes)].sort();
  // Cast: a plain JSON Schema (ErrorBody with an enum on error.code), not built by typebox.
  return {
    ...ErrorBody,
    description,
    properties: {
      ...ErrorBody.properties,
      error: {
        ...error,
        properties: {
          ...error.properties,
          code: code.length ? { ...error.properties.code, enum: code } : error.properties.code,
        },
      },
    },
  } as unknown as TSchema;
}

/** Whether a response schema is the error body (the readiness probe's 503, say, is not). */
export const isErrorBody = (schema: unknown): boolean => {
  const error = (schema as { properties?: { error?: { properties?: Record<string, unknown> } } } | undefined)
    ?.properties?.error;
  return error?.properties?.type !== undefined && error.properties.code !== undefined;
};

/** The codes of an error body built by `errorBody` (empty for any other schema). */
export function codesOf(schema: unknown): string[] {
  const body = schema as { properties?: { error?: { properties?: { code?: { enum?: string[] } } } } } | undefined;
  return body?.properties?.error?.properties?.code?.enum ?? [];
}

/**
 * Error responses of a route: the common statuses, plus one per status of the codes it declares (from the
 * catalogues), each listing its codes as an enum. Codes that depend on how the route is reached (authentication,
 * the Tagport-Tenant header, roles, CSRF, the body of unsafe methods) are added when the OpenAPI document is
 * built (`documentErrorCodes` in openapi.ts).
 */
export function errorResponses(...declared: readonly ErrorDefinition[]): Record<number, TSchema> {
  const statuses = [...new Set([...COMMON_ERRORS, ...declared.map((definition) => definition.status)])].sort();
  return Object.fromEntries(
    statuses.map((status) => {
      const codes = [...(COMMON_CODES[status] ?? []), ...declared.filter((definition) => definition.status === status)];
      return [
        status,
        errorBody(
          ERROR_DESCRIPTIONS[status],
          codes.map((definition) => definition.code),
        ),
      ];
    }),
  );
}

const CURSOR_ID = { minLength: 1, maxLength: 64 };

/**
 * Two ways to page, one per request: by number (`page`, `page_size`), or by cursor (`starting_after` or
 * `ending_before` an object id, with `page_size`), which costs the same at any depth.
 */
export const PaginationQuery = Type.Object({
  page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      default: 1,
      description: 'Page number, starting at 1. Not with `starting_after` or `ending_before`.',
    }),
  ),
  page_size: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Items per page, 1 to 100.' }),
  ),
  starting_after: Type.Optional(
    Type.String({
      ...CURSOR_ID,
      description:
        'Cursor: the id of an object of this list (with its filters); returns the page of objects that follow it. Use the last id of a page, or follow `next`. Not with `page` or `ending_before`; an id that is not in the list is `invalid_cursor`.',
    }),
  ),
  ending_before: Type.Optional(
    Type.String({
      ...CURSOR_ID,
      description:
        'Cursor: the id of an object of this list; returns the page of objects right before it, in the list order. Use the first id of a page, or follow `previous`. Not with `page` or `starting_after`.',
    }),
  ),
});

/** The list envelope; `api_meta` is in the schema but added by the response hook, not by handlers. */
export function listEnvelope<T extends TSchema>(item: T, description: string) {
  const envelope = Type.Object(
    {
      count: Type.Integer({
        description: `Number of matching objects (the whole list, also for a request by cursor). Counting stops past ${COUNT_BOUND.toLocaleString('en')} (or past the end of the requested page, when that is further): then \`count\` and \`total_pages\` are lower bounds and \`count_estimated\` is true.`,
      }),
      page: Nullable(Type.Integer(), {
        description: 'The page number of a request by `page`; null for a request by cursor.',
      }),
      page_size: Type.Integer(),
      total_pages: Type.Integer({
        description: '`count` divided by `page_size`, rounded up (a lower bound with `count_estimated`).',
      }),
      count_estimated: Type.Optional(
        Type.Literal(true, {
          description: 'Present (true) when counting stopped at its bound: there are more objects than `count`.',
        }),
      ),
      next: Nullable(Type.String({ format: 'uri' }), {
        description:
          'URL of the next page, or null. By page number for a request by `page`; by cursor (`starting_after` the last id of this page) for a request by cursor.',
      }),
      previous: Nullable(Type.String({ format: 'uri' }), {
        description:
          'URL of the previous page, or null. By page number for a request by `page`; by cursor (`ending_before` the first id of this page) for a request by cursor.',
      }),
      results: Type.Array(item),
      api_meta: ApiMeta,
    },
    { additionalProperties: false, description },
  );
  // Cast: handlers are typed to return the list without api_meta, which the response hook adds.
  return envelope as unknown as ReturnType<typeof listType<T>>;
}

function listType<T extends TSchema>(item: T) {
  return Type.Object({
    count: Type.Integer(),
    page: Type.Union([Type.Integer(), Type.Null()]),
    page_size: Type.Integer(),
    total_pages: Type.Integer(),
    count_estimated: Type.Optional(Type.Literal(true)),
    next: Type.Union([Type.String(), Type.Null()]),
    previous: Type.Union([Type.String(), Type.Null()]),
    results: Type.Array(item),
  });
}

export function withMeta<T extends TSchema>(object: T) {
  // Cast: any object schema is accepted; its properties and keywords are read as plain JSON.
  const schema = object as T & { properties: Record<string, TSchema>; $id?: string; description?: string };
  // Cast: the result is `object` plus api_meta, which typebox cannot express for a generic T.
  return Type.Object(
    { ...schema.properties, api_meta: ApiMeta },
    {
      additionalProperties: false,
      description: schema.description,
      ...(schema.$id ? { [RESOURCE_KEYWORD]: schema.$id } : {}),
    },
  ) as unknown as T;
}

export const Timestamp = (description: string) => Type.String({ format: 'date-time', description });
export const NullableTimestamp = (description: string) =>
  Nullable(Type.String({ format: 'date-time' }), { description });
