import { Type } from 'typebox';
import { Nullable, StringEnum } from '../../http/schemas.js';

/**
 * The power-ups that act on the requests a container receives, whatever its runtime (Stape's names): files served
 * from the container's hostname, XML bodies turned into JSON, requests held back and sent later, requests the
 * container sends itself on a schedule, the GTM preview header and a user id header. Part of ContainerSettings.
 */

const REQUEST_PATH = '^/[A-Za-z0-9._~!$&()*+,;=:@/-]{0,199}$';
const RequestPath = (description: string) => Type.String({ pattern: REQUEST_PATH, maxLength: 200, description });
/** A path with its query (`?`, percent-encoding allowed): what a scheduled request asks for. */
const REQUEST_TARGET = '^/[A-Za-z0-9._~!$&()*+,;=:@/?%-]{0,199}$';

export const FileProxy = Type.Object(
  {
    enabled: Type.Boolean({ description: "Serve the listed files from the container's hostnames." }),
    files: Type.Array(
      Type.Object(
        {
          path: RequestPath('The path the file is served at on the container (e.g. `/lib/pixel.js`).'),
          url: Type.String({
            pattern: '^https://',
            maxLength: 2000,
            description: 'Where the file comes from: a public https URL.',
          }),
          cache_seconds: Type.Integer({
            minimum: 0,
            maximum: 86_400,
            description: 'How long a fetched copy is served before it is fetched again.',
          }),
        },
        { additionalProperties: false },
      ),
      { maxItems: 20, description: 'The files, each at its own path.' },
    ),
  },
  { additionalProperties: false, description: 'File Proxy: third-party files served first-party, cached.' },
);

export const XmlToJson = Type.Object(
  {
    enabled: Type.Boolean({
      description:
        'Turn XML request bodies (`Content-Type` `application/xml` or `text/xml`) sent to the listed paths into JSON before the tagging server receives them.',
    }),
    paths: Type.Array(RequestPath('A path whose XML requests are converted (e.g. `/webhooks/crm`).'), {
      maxItems: 20,
      uniqueItems: true,
    }),
  },
  { additionalProperties: false, description: 'XML to JSON: for webhooks and feeds that only send XML.' },
);

export const RequestDelay = Type.Object(
  {
    enabled: Type.Boolean({
      description:
        'Requests to `/stape/delay/<minutes>/<path>` (or `/delay/<minutes>/<path>`) are answered 202 once stored and sent to `<path>` on the container after 1 to 1,500 minutes.',
    }),
  },
  { additionalProperties: false, description: 'Request Delay.' },
);

export const ScheduledRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64, description: 'A name for the schedule, shown in its runs.' }),
    cron: Type.String({
      minLength: 9,
      maxLength: 100,
      description: 'When, as a five-field cron expression in UTC (`0 6 * * *`: every day at 06:00).',
    }),
    method: StringEnum(['GET', 'POST'] as const, { description: 'The request method.' }),
    path: Type.String({
      pattern: REQUEST_TARGET,
      maxLength: 200,
      description: 'The path requested on the container, query included (e.g. `/feeds/refresh?source=erp`).',
    }),
    body: Nullable(Type.String({ maxLength: 16_384 }), { description: 'The body of a POST, sent as JSON.' }),
  },
  { additionalProperties: false },
);

export const Schedule = Type.Object(
  {
    requests: Type.Array(ScheduledRequest, {
      maxItems: 10,
      description: "Requests the platform sends to the container's own hostname on a schedule.",
    }),
  },
  { additionalProperties: false, description: 'Schedule.' },
);

export const PreviewHeader = Type.Object(
  {
    value: Nullable(Type.String({ pattern: '^[A-Za-z0-9+/=_-]{1,500}$' }), {
      description:
        "An `X-Gtm-Server-Preview` value copied from GTM's preview mode, added to every request that has none, so that requests which cannot carry it (webhooks, server-to-server calls) show in preview. Null: off. Preview values expire; clear it when done.",
    }),
  },
  { additionalProperties: false, description: 'GTM Preview Header config.' },
);

export const UserIdHeader = Type.Object(
  {
    enabled: Type.Boolean({
      description:
        "Add `X-Stape-User-Id` (and `X-Tagport-User-Id`): an id of the visitor that is stable for this container, made from the visitor's IP network, user agent and languages, hashed with a key of the container's.",
    }),
  },
  { additionalProperties: false, description: 'User ID.' },
);

export interface RequestPowerupSettings {
  file_proxy: { enabled: boolean; files: Array<{ path: string; url: string; cache_seconds: number }> };
  xml_to_json: { enabled: boolean; paths: string[] };
  request_delay: { enabled: boolean };
  schedule: {
    requests: Array<{ name: string; cron: string; method: 'GET' | 'POST'; path: string; body: string | null }>;
  };
  preview_header: { value: string | null };
  user_id_header: { enabled: boolean };
}

export const REQUEST_POWERUP_DEFAULTS: RequestPowerupSettings = {
  file_proxy: { enabled: false, files: [] },
  xml_to_json: { enabled: false, paths: [] },
  request_delay: { enabled: false },
  schedule: { requests: [] },
  preview_header: { value: null },
  user_id_header: { enabled: false },
};

export const requestPowerupSchemas = {
  file_proxy: FileProxy,
  xml_to_json: XmlToJson,
  request_delay: RequestDelay,
  schedule: Schedule,
  preview_header: PreviewHeader,
  user_id_header: UserIdHeader,
};

/** What PATCH accepts for each: objects merged into the current settings, lists replaced. */
export const requestPowerupChanges = {
  file_proxy: Type.Optional(Type.Partial(FileProxy, { additionalProperties: false })),
  xml_to_json: Type.Optional(Type.Partial(XmlToJson, { additionalProperties: false })),
  request_delay: Type.Optional(Type.Partial(RequestDelay, { additionalProperties: false })),
  schedule: Type.Optional(Type.Partial(Schedule, { additionalProperties: false })),
  preview_header: Type.Optional(Type.Partial(PreviewHeader, { additionalProperties: false })),
  user_id_header: Type.Optional(Type.Partial(UserIdHeader, { additionalProperties: false })),
};

type Change = Partial<{ [K in keyof RequestPowerupSettings]: Partial<RequestPowerupSettings[K]> }>;

/** `change` over `current`, one level deep. */
export function mergeRequestPowerups(current: RequestPowerupSettings, change: Change): RequestPowerupSettings {
  return {
    file_proxy: { ...current.file_proxy, ...change.file_proxy },
    xml_to_json: { ...current.xml_to_json, ...change.xml_to_json },
    request_delay: { ...current.request_delay, ...change.request_delay },
    schedule: { ...current.schedule, ...change.schedule },
    preview_header: { ...current.preview_header, ...change.preview_header },
    user_id_header: { ...current.user_id_header, ...change.user_id_header },
  };
}
