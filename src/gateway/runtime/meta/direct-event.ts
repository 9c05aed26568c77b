import { createRequire } from 'node:module';
import { Type, type Static } from 'typebox';
import type { RuntimeEvent } from '../types.js';

/** Meta refuses events older than seven days. */
const MAX_EVENT_AGE_MS = 7 * 86_400_000;
/** A clock a little ahead of ours is tolerated; an event further in the future is refused. */
const MAX_CLOCK_SKEW_MS = 5 * 60_000;

/**
 * The body a site POSTs to the container's direct event endpoint: one event, in Meta's own vocabulary where it has
 * one. `event_name` is a GA4 name (`purchase`) or a Meta standard event (`Purchase`).
 */
export const DirectEventBody = Type.Object(
  {
    event_name: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[A-Za-z][A-Za-z0-9_]*$',
      description:
        'A GA4 event name (`purchase`, `generate_lead`, …) or a Meta standard event (`Purchase`, `Lead`, …).',
    }),
    event_id: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "The browser pixel's `eventID` for the same event, so Meta counts it once.",
    }),
    event_time: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Unix time in seconds; the time of receipt when absent.' }),
    ),
    event_source_url: Type.Optional(
      Type.String({ format: 'uri', maxLength: 2048, description: 'The page the event happened on.' }),
    ),
    value: Type.Optional(Type.Number({ minimum: 0, description: 'Monetary value, with `currency`.' })),
    currency: Type.Optional(
      Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 currency code of `value`.' }),
    ),
    user_data: Type.Optional(
      Type.Object(
        {
          em: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: 'Email, in clear or SHA-256.' })),
          ph: Type.Optional(
            Type.String({ minLength: 1, maxLength: 64, description: 'Phone with country code, in clear or SHA-256.' }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        event_name: 'purchase',
        event_id: 'order-1001',
        event_time: 1795450000,
        event_source_url: 'https://shop.example.com/checkout/thanks',
        value: 49.9,
        currency: 'EUR',
        user_data: { em: 'jane@example.com', ph: '+49 151 2345678' },
      },
    ],
  },
);

export type DirectEventInput = Static<typeof DirectEventBody>;

export type DirectEventParse = { ok: true; event: RuntimeEvent } | { ok: false; errors: string[] };

/** typebox's compiler (some 300 modules) loads on the first direct event, not at every start. */
const compileBody = () =>
  (createRequire(import.meta.url)('typebox/compile') as typeof import('typebox/compile')).Compile(DirectEventBody);
let compiled: ReturnType<typeof compileBody> | null = null;

function describe(error: { instancePath: string; message: string }): string {
  const field = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
  return field ? `${field}: ${error.message}` : error.message;
}

/**
 * Parses a direct event body into a RuntimeEvent (validated against DirectEventBody; refused when `currency` comes
 * without `value` or the other way round, or `event_time` is more than seven days old or in the future).
 */
export function parseDirectEvent(body: unknown, receivedAt: number): DirectEventParse {
  compiled ??= compileBody();
  const check = compiled;
  if (!check.Check(body)) return { ok: false, errors: check.Errors(body).map(describe) };
  const input = body as DirectEventInput;
  const errors: string[] = [];
  const time = input.event_time === undefined ? receivedAt : input.event_time * 1000;
  if (time < receivedAt - MAX_EVENT_AGE_MS) errors.push('event_time: more than seven days ago; Meta refuses it');
  if (time > receivedAt + MAX_CLOCK_SKEW_MS) errors.push('event_time: in the future');
  if ((input.value === undefined) !== (input.currency === undefined))
    errors.push('value and currency: send both or neither');
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    event: {
      name: input.event_name,
      measurementId: null,
      clientId: null,
      eventId: input.event_id,
      time,
      pageUrl: input.event_source_url ?? null,
      referrer: null,
      pageTitle: null,
      value: input.value ?? null,
      currency: input.currency?.toUpperCase() ?? null,
      params: {},
      items: [],
      userData: {
        ...(input.user_data?.em ? { email: input.user_data.em } : {}),
        ...(input.user_data?.ph ? { phone: input.user_data.ph } : {}),
      },
    },
  };
}
