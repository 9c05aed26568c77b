import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

/**
 * Spec §9: breaking changes are announced at least 60 days ahead. Every deprecation is written here once; it
 * drives `deprecated: true` in the OpenAPI document (the operation, or the field of its request body), and the
 * `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and `Link` headers of every response of the operation.
 */
export interface Deprecation {
  /** The operationId deprecated, or whose `field` is. */
  operationId: string;
  /** A request-body field of the operation, when only that field is deprecated. */
  field?: string;
  /** When the deprecation was announced in the changelog (YYYY-MM-DD, UTC). */
  announced: string;
  /** From when the operation or field may stop working (YYYY-MM-DD, UTC); at least MINIMUM_NOTICE_DAYS later. */
  sunset: string;
  /** What to use instead. */
  replacement: string;
  /** The changelog entry announcing it, e.g. `/changelog#deprecated`. */
  changelog: string;
}

export const MINIMUM_NOTICE_DAYS = 60;

/** The deprecations in force. None yet: the first entry here starts the clock of its sunset. */
export const DEPRECATIONS: readonly Deprecation[] = [];

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const utc = (date: string) => Date.parse(`${date}T00:00:00Z`);

/** Refuses a deprecation whose dates are malformed or give less than MINIMUM_NOTICE_DAYS of notice. */
export function checkDeprecations(deprecations: readonly Deprecation[]): void {
  for (const deprecation of deprecations) {
    const what = deprecation.field ? `${deprecation.operationId}.${deprecation.field}` : deprecation.operationId;
    if (!DATE.test(deprecation.announced) || !DATE.test(deprecation.sunset) || Number.isNaN(utc(deprecation.sunset)))
      throw new Error(`Deprecation of ${what}: announced and sunset must be dates (YYYY-MM-DD).`);
    const notice = (utc(deprecation.sunset) - utc(deprecation.announced)) / DAY_MS;
    if (notice < MINIMUM_NOTICE_DAYS)
      throw new Error(
        `Deprecation of ${what}: the sunset is ${notice} days after the announcement; at least ${MINIMUM_NOTICE_DAYS} are promised.`,
      );
    if (!deprecation.replacement || !deprecation.changelog)
      throw new Error(`Deprecation of ${what}: name the replacement and the changelog entry.`);
  }
}

/** The response headers announcing a deprecation. */
export function deprecationHeaders(deprecation: Deprecation): Record<string, string> {
  return {
    deprecation: `@${Math.floor(utc(deprecation.announced) / 1000)}`,
    sunset: new Date(utc(deprecation.sunset)).toUTCString(),
    link: `<${deprecation.changelog}>; rel="deprecation"; type="text/html", <${deprecation.changelog}>; rel="sunset"; type="text/html"`,
  };
}

/** The sentence the OpenAPI document shows with a deprecated operation or field. */
export const deprecationNote = (deprecation: Deprecation) =>
  `**Deprecated** since ${deprecation.announced}; it may stop working from ${deprecation.sunset}. Use ${deprecation.replacement} instead ([changelog](${deprecation.changelog})).`;

type Done = (error: Error | null, payload?: unknown) => void;

/**
 * Adds the headers to every response of a deprecated operation (whole operations only: a deprecated field is
 * announced in the document), and counts its calls per API key. Attached as routes are registered, so it must be
 * registered before them.
 */
export function registerDeprecations(app: FastifyInstance, deprecations = DEPRECATIONS): void {
  checkDeprecations(deprecations);
  app.addHook('onRoute', (route: RouteOptions) => {
    const operationId = (route.schema as { operationId?: string } | undefined)?.operationId;
    const deprecation = deprecations.find((entry) => entry.operationId === operationId && !entry.field);
    if (!deprecation) return;
    const headers = deprecationHeaders(deprecation);
    const announce = (_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: Done) => {
      reply.headers(headers);
      done(null, payload);
    };
    const existing = route.onSend;
    route.onSend = (existing === undefined ? [announce] : [...[existing].flat(), announce]) as RouteOptions['onSend'];
    // Which keys still call it: counted in memory, for the dashboard's warning (modules/api-keys/deprecated-calls.ts).
    const count = (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
      const auth = request.authContext;
      if (auth?.apiKeyId)
        app.services.deprecatedCalls.record({
          apiKeyId: auth.apiKeyId,
          tenantId: auth.credentialTenantId,
          operationId: deprecation.operationId,
          sunset: deprecation.sunset,
          changelog: deprecation.changelog,
        });
      done();
    };
    const responded = route.onResponse;
    route.onResponse = (
      responded === undefined ? [count] : [...[responded].flat(), count]
    ) as RouteOptions['onResponse'];
  });
}

/** Marks the deprecated operations and request-body fields in an operation's schema (the OpenAPI transform). */
export function documentDeprecations<S extends { operationId?: string; description?: string; body?: unknown }>(
  schema: S,
  deprecations = DEPRECATIONS,
): S {
  const found = deprecations.filter((entry) => entry.operationId === schema?.operationId);
  if (found.length === 0) return schema;
  let documented: S & { deprecated?: boolean } = { ...schema };
  for (const deprecation of found) {
    const note = deprecationNote(deprecation);
    if (!deprecation.field) {
      documented = {
        ...documented,
        deprecated: true,
        description: [note, documented.description].filter(Boolean).join('\n\n'),
      };
      continue;
    }
    const body = documented.body as { properties?: Record<string, { description?: string }> } | undefined;
    const property = body?.properties?.[deprecation.field];
    if (!body || !property)
      throw new Error(`Deprecation: ${deprecation.operationId} has no field ${deprecation.field}.`);
    documented = {
      ...documented,
      body: {
        ...body,
        properties: {
          ...body.properties,
          [deprecation.field]: {
            ...property,
            deprecated: true,
            description: [note, property.description].filter(Boolean).join(' '),
          },
        },
      },
    };
  }
  return documented;
}
