import type { TSchema } from 'typebox';
import { type EventDocumentation, EVENTS } from './event-payloads.js';
import { ID_PREFIXES, type IdKind } from '../../lib/ids.js';
import { EVENT_TYPES, type EventType } from './schemas.js';

const VERIFY = `**Verifying a delivery.** Every delivery is a \`POST\` with the JSON event as its body and the header \`Tagport-Signature: t=<unix seconds>,v1=<hex>\`, where \`v1\` is the HMAC-SHA256, keyed with the webhook's secret (\`whsec_…\`, shown once when the webhook is created), of \`<t>.<raw body>\`. To verify: compute the HMAC over the raw bytes of the body (before parsing the JSON), compare it with \`v1\` in constant time, and reject deliveries whose \`t\` is more than 5 minutes from your clock. For example, in Node.js:

\`\`\`js
const [t, v1] = header.split(',').map((part) => part.slice(part.indexOf('=') + 1));
const expected = crypto.createHmac('sha256', secret).update(\`\${t}.\${rawBody}\`).digest('hex');
const valid = crypto.timingSafeEqual(Buffer.from(v1, 'hex'), Buffer.from(expected, 'hex'))
  && Math.abs(Date.now() / 1000 - Number(t)) < 300;
\`\`\`

Answer with any 2xx within the timeout; any other answer (or none) is retried with exponential backoff. \`id\` is the same for every endpoint and retry of an event: use it to ignore duplicates. Every delivery is listed in \`GET /api/webhooks/{id}/deliveries/\`.`;

const SignatureHeader = {
  name: 'Tagport-Signature',
  in: 'header',
  required: true,
  description:
    '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the webhook secret>`; see the description for how to verify it.',
  schema: { type: 'string', pattern: '^t=\\d+,v1=[0-9a-f]{64}$' },
  example: 't=1764000000,v1=5f2b1c0e9a7d3b6e8f4a2c1d0e9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b',
};

/** The object each event type is about: every event's `data` starts with its `object_type` and `object_id`. */
const EVENT_OBJECTS: Record<EventType, IdKind> = {
  'monitor.down': 'monitor',
  'monitor.up': 'monitor',
  'incident.opened': 'incident',
  'incident.acknowledged': 'incident',
  'incident.resolved': 'incident',
  'container.status_changed': 'container',
  'container.forwarding_degraded': 'container',
  'domain.verified': 'domain',
  'domain.failed': 'domain',
  'domain.released': 'domain',
  'domain.certificate_issued': 'domain',
  'domain.certificate_failed': 'domain',
  'domain.certificate_expiring': 'domain',
  'report.ready': 'report',
  'tracking_checker.scan.completed': 'scan',
  'tracking_checker.scan.failed': 'scan',
  'tracking_incident.opened': 'trackingIncident',
  'tracking_incident.resolved': 'trackingIncident',
  'member.invited': 'invitation',
  'member.invitation_revoked': 'invitation',
  'member.joined': 'membership',
  'member.role_changed': 'membership',
  'member.removed': 'membership',
};

/** `data` with the object the event is about first (the event log records every event with its object). */
function withObject(type: EventType, data: TSchema) {
  const kind = EVENT_OBJECTS[type];
  const schema = json(data);
  schema.properties = {
    object_type: { type: 'string', enum: [kind], description: 'What the event is about.' },
    object_id: { type: 'string', description: `Id of the ${kind} (\`${ID_PREFIXES[kind]}_…\`).` },
    ...schema.properties,
  };
  schema.required = [...new Set(['object_type', 'object_id', ...(schema.required ?? [])])];
  return schema;
}

const exampleWithObject = (type: EventType, example: Record<string, unknown>) => {
  const kind = EVENT_OBJECTS[type];
  return { object_type: kind, object_id: `${ID_PREFIXES[kind]}_01jdv3k2m8q4r7s9t0v1w2x3y4`, ...example };
};

const schemaName = (type: EventType) =>
  `${type
    .split(/[._]/)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('')}Event`;

const json = (schema: unknown) => JSON.parse(JSON.stringify(schema));

/** The event body: the envelope every delivery shares, with the type's `data`. */
function eventSchema(type: EventType, { summary, data }: EventDocumentation) {
  return {
    type: 'object',
    description: summary,
    additionalProperties: false,
    required: ['id', 'type', 'created_at', 'tenant_id', 'data'],
    properties: {
      id: { type: 'string', description: 'Event id (`evt_…`): the same for every endpoint and retry.' },
      type: { type: 'string', enum: [type] },
      created_at: { type: 'string', format: 'date-time' },
      tenant_id: { type: 'string', description: 'The tenant the event belongs to (`ten_…`).' },
      data: withObject(type, data),
    },
  };
}

/** OpenAPI 3.1 `webhooks`: one entry per event type, and its body as a named schema. */
export function webhookDocumentation(): { webhooks: Record<string, unknown>; schemas: Record<string, unknown> } {
  const webhooks: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const type of EVENT_TYPES) {
    const event = EVENTS[type];
    const name = schemaName(type);
    schemas[name] = eventSchema(type, event);
    webhooks[type] = {
      post: {
        operationId: `${name[0].toLowerCase()}${name.slice(1)}`,
        summary: `${type}: ${event.summary}`,
        description: `Sent to the webhooks subscribed to \`${type}\`. ${event.summary}\n\n${VERIFY}`,
        tags: ['Webhooks'],
        security: [],
        parameters: [SignatureHeader],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { $ref: `#/components/schemas/${name}` },
              example: {
                id: 'evt_01jdv3k2m8q4r7s9t0v1w2x3y4',
                type,
                created_at: '2026-11-23T17:00:00.000Z',
                tenant_id: 'ten_01jdv3k2m8q4r7s9t0v1w2x3y4',
                data: exampleWithObject(type, event.example),
              },
            },
          },
        },
        responses: {
          '2XX': { description: 'Received: any 2xx ends the delivery.' },
          default: { description: 'Anything else (or no answer in time) is retried with exponential backoff.' },
        },
      },
    };
  }
  return { webhooks, schemas };
}
