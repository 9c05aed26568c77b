import { randomInt } from 'node:crypto';
import { type Static, Type } from 'typebox';
import { Nullable, StringEnum } from '../../http/schemas.js';
import {
  mergeRequestPowerups,
  REQUEST_POWERUP_DEFAULTS,
  requestPowerupChanges,
  requestPowerupSchemas,
} from './request-powerups.js';

/**
 * A container's runtime and its per-container settings: the custom loader path, the GA4 properties it owns and
 * the power-up switches. Stored as one JSON column; read through `settingsFromStored`, which fills defaults, so a
 * setting added later needs no migration.
 */

export const RUNTIMES = ['upstream', 'builtin', 'sgtm'] as const;
export type ContainerRuntimeKind = (typeof RUNTIMES)[number];

export const RuntimeField = StringEnum(RUNTIMES, {
  description:
    "`builtin`: the gateway itself serves the Google tags and forwards collected events (no tagging server to run). `upstream`: every request is proxied to `upstream_url`, your own tagging server. `sgtm`: Tagport runs Google's tagging server for you with the container's `config` (tagging replicas and a preview server; see `tagging_server`). Default: `upstream` when `upstream_url` is given, else `builtin`.",
  examples: ['builtin'],
});

/** Words ad blockers' lists match in paths; a loader path containing one would be blocked. */
export const BLOCKED_PATH_WORDS = ['gtm', 'gtag', 'analytics', 'collect'] as const;
const LOADER_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const LOADER_PATH_PATTERN = '^[a-z0-9][a-z0-9-]{2,39}$';
/** Paths the gateway answers itself on a container's hostnames. */
const RESERVED_LOADER_PATHS = ['healthz', 'g', 'mp', 'events'];

const ANONYMIZER_VENDORS = ['ga4', 'meta'] as const;
export type AnonymizerVendor = (typeof ANONYMIZER_VENDORS)[number];

const VendorAnonymizer = Type.Object(
  {
    ip: StringEnum(['keep', 'truncate', 'drop'] as const, {
      description:
        "The visitor's IP sent to the vendor: as is, truncated (IPv4 last octet and IPv6 last 80 bits zeroed), or not at all.",
    }),
    user_agent: StringEnum(['keep', 'drop'] as const, { description: "The visitor's user agent." }),
    click_ids: StringEnum(['keep', 'drop'] as const, {
      description: 'Click ids (gclid, gbraid, wbraid, fbclid/_fbc, ttclid, msclkid) in what is sent.',
    }),
    user_id: StringEnum(['keep', 'drop'] as const, {
      description:
        "The site's id of the signed-in user: GA4's User-ID (`uid`), `user_id` event parameters and user properties, and Meta's `external_id`. Default: `keep`.",
    }),
    user_data: StringEnum(['keep', 'drop'] as const, {
      description:
        'Personal data the site sends: e-mail, phone, name and address parameters (`user_data.*`, `user_email`, `email`, `phone`, `em`, …) and any parameter whose value is an e-mail address, such query parameters (`email=`) of the page URL and referrer, and the customer data sent to Meta (e-mail, phone, name, address). Default: `keep`.',
    }),
  },
  { additionalProperties: false },
);

const ReplicaCount = (description: string) => Nullable(Type.Integer({ minimum: 1, maximum: 100 }), { description });

const TaggingServerChoice = Type.Object(
  {
    version: Nullable(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' }), {
      description:
        "The version (image tag) of Google's tagging server for `sgtm`, e.g. `stable` or `3.2.0`; null: the platform's default. Changing it rolls the replicas over one by one.",
    }),
    min_replicas: ReplicaCount('Tagging replicas always running (`sgtm`); null: 1.'),
    max_replicas: ReplicaCount(
      "Tagging replicas the autoscaler may add under load (`sgtm`, kubernetes driver); null: the plan's `sgtm_max_replicas`. Above the plan's limit: 402.",
    ),
  },
  { additionalProperties: false, description: "Google's tagging server for runtime `sgtm`." },
);

const MeasurementId = Type.String({ pattern: '^G-[A-Z0-9]{4,15}$', description: 'A GA4 measurement id.' });

export const ContainerSettings = Type.Object(
  {
    loader_path: Type.String({
      pattern: LOADER_PATH_PATTERN,
      description: `The custom loader: \`https://<container host>/<loader_path>.js?id=GTM-…\` serves gtm.js and \`?id=G-…\` serves gtag.js for the ids this container owns. 3–40 lowercase letters, digits and hyphens, without ${BLOCKED_PATH_WORDS.join(', ')} (words ad blockers list). Generated at creation.`,
      examples: ['k3v9xq2m'],
    }),
    ga4_measurement_ids: Type.Array(MeasurementId, {
      maxItems: 20,
      uniqueItems: true,
      description:
        'The GA4 properties this container owns: their gtag.js is served by the loader and their hits are forwarded.',
      examples: [['G-ABC123XYZ']],
    }),
    cookie_keeper: Type.Object(
      {
        enabled: Type.Boolean({ description: 'Mirror the cookies into a server-set backup and restore lost ones.' }),
        cookies: Type.Array(Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$' }), {
          maxItems: 20,
          uniqueItems: true,
          description: 'The first-party cookies kept.',
        }),
      },
      { additionalProperties: false, description: 'Cookie Keeper.' },
    ),
    click_id_restorer: Type.Object(
      {
        enabled: Type.Boolean({
          description: 'Keep gclid, gbraid, wbraid, fbclid (as _fbc), ttclid and msclkid in server-set cookies.',
        }),
      },
      { additionalProperties: false, description: 'Click ID Restorer.' },
    ),
    bot_detection: Type.Object(
      {
        mode: StringEnum(['off', 'mark', 'drop'] as const, {
          description:
            "off: no detection; mark: forward, flagged; drop: a bot's hits are not forwarded (counted in usage). Each request gets a score from 0 to 100 (Stape's scale: below 50 human, 50–75 suspicious, above 75 a bot). `upstream` and `sgtm` (where drop also marks) receive `X-Device-Bot: true|false` and `X-Device-Bot-Score`, and `X-Tagport-Bot: 1` for a bot; on `builtin`, mark adds `device_bot` and `device_bot_score` to the GA4 events of suspicious and bot requests.",
        }),
      },
      { additionalProperties: false, description: 'Bot Detection.' },
    ),
    geo_headers: Type.Object(
      {
        enabled: Type.Boolean({
          description:
            "The visitor's country, region and city from the IP (DB-IP Lite, CC BY 4.0): `upstream` and `sgtm` receive `X-Geo-Country`, `X-Geo-Region`, `X-Geo-City` (percent-encoded) and `X-Gclb-Country` (read by Google's Visitor Region variable); on `builtin`, GA4 events get `geo_country`, `geo_region`, `geo_city` and Meta events the hashed country.",
        }),
      },
      { additionalProperties: false, description: 'GEO headers.' },
    ),
    anonymizer: Type.Object(
      { ga4: VendorAnonymizer, meta: VendorAnonymizer },
      { additionalProperties: false, description: 'What each vendor receives of the visitor (Anonymizer).' },
    ),
    tagging_server: TaggingServerChoice,
    ...requestPowerupSchemas,
  },
  {
    additionalProperties: false,
    title: 'ContainerSettings',
    description: "The container's custom loader, GA4 properties and power-ups.",
    examples: [
      {
        loader_path: 'k3v9xq2m',
        ga4_measurement_ids: ['G-ABC123XYZ'],
        cookie_keeper: { enabled: true, cookies: ['_ga', '_fbp', '_fbc', 'FPID'] },
        click_id_restorer: { enabled: true },
        bot_detection: { mode: 'drop' },
        geo_headers: { enabled: false },
        anonymizer: {
          ga4: { ip: 'truncate', user_agent: 'keep', click_ids: 'keep', user_id: 'drop', user_data: 'drop' },
          meta: { ip: 'keep', user_agent: 'keep', click_ids: 'keep', user_id: 'keep', user_data: 'keep' },
        },
        tagging_server: { version: null, min_replicas: 2, max_replicas: null },
        ...REQUEST_POWERUP_DEFAULTS,
        file_proxy: {
          enabled: true,
          files: [{ path: '/lib/pixel.js', url: 'https://cdn.vendor.example/pixel.js', cache_seconds: 3600 }],
        },
      },
    ],
  },
);

const PartialVendorAnonymizer = Type.Partial(VendorAnonymizer, { additionalProperties: false });

/** What PATCH accepts: any subset; objects are merged into the current settings, lists replace them. */
export const ContainerSettingsChange = Type.Object(
  {
    loader_path: Type.Optional(ContainerSettings.properties.loader_path),
    ga4_measurement_ids: Type.Optional(ContainerSettings.properties.ga4_measurement_ids),
    cookie_keeper: Type.Optional(
      Type.Partial(ContainerSettings.properties.cookie_keeper, { additionalProperties: false }),
    ),
    click_id_restorer: Type.Optional(
      Type.Partial(ContainerSettings.properties.click_id_restorer, { additionalProperties: false }),
    ),
    bot_detection: Type.Optional(
      Type.Partial(ContainerSettings.properties.bot_detection, { additionalProperties: false }),
    ),
    geo_headers: Type.Optional(Type.Partial(ContainerSettings.properties.geo_headers, { additionalProperties: false })),
    anonymizer: Type.Optional(
      Type.Object(
        { ga4: Type.Optional(PartialVendorAnonymizer), meta: Type.Optional(PartialVendorAnonymizer) },
        { additionalProperties: false },
      ),
    ),
    tagging_server: Type.Optional(Type.Partial(TaggingServerChoice, { additionalProperties: false })),
    ...requestPowerupChanges,
  },
  {
    additionalProperties: false,
    title: 'ContainerSettingsChange',
    description:
      'Settings to change: objects are merged into the current settings (send only what changes), lists replace the current ones.',
    examples: [{ bot_detection: { mode: 'drop' }, anonymizer: { ga4: { ip: 'truncate' } } }],
  },
);

export type ContainerSettingsDto = Static<typeof ContainerSettings>;
export type ContainerSettingsChangeInput = Static<typeof ContainerSettingsChange>;

const KEEP_ALL = { ip: 'keep', user_agent: 'keep', click_ids: 'keep', user_id: 'keep', user_data: 'keep' } as const;

/** The settings of a new container (the loader path aside): power-ups off but bot marking, nothing anonymised. */
export function defaultSettings(loaderPath: string): ContainerSettingsDto {
  return {
    loader_path: loaderPath,
    ga4_measurement_ids: [],
    cookie_keeper: { enabled: false, cookies: ['_ga', '_fbp', '_fbc', 'FPID'] },
    click_id_restorer: { enabled: false },
    bot_detection: { mode: 'mark' },
    geo_headers: { enabled: false },
    anonymizer: { ga4: { ...KEEP_ALL }, meta: { ...KEEP_ALL } },
    tagging_server: { version: null, min_replicas: null, max_replicas: null },
    ...structuredClone(REQUEST_POWERUP_DEFAULTS),
  };
}

/** Why a loader path cannot be used, or null when it can. */
export function loaderPathProblem(path: string): string | null {
  if (!new RegExp(LOADER_PATH_PATTERN).test(path))
    return 'loader_path must be 3–40 lowercase letters, digits and hyphens, starting with a letter or digit.';
  const word = BLOCKED_PATH_WORDS.find((blocked) => path.includes(blocked));
  if (word) return `loader_path must not contain "${word}": ad blockers block paths with it.`;
  if (RESERVED_LOADER_PATHS.includes(path)) return `loader_path "${path}" is used by the gateway itself.`;
  return null;
}

/** A random loader path of 8 lowercase letters and digits that passes `loaderPathProblem`. */
export function generateLoaderPath(): string {
  for (;;) {
    let path = '';
    for (let i = 0; i < 8; i++) path += LOADER_ALPHABET[randomInt(LOADER_ALPHABET.length)];
    if (!loaderPathProblem(path)) return path;
  }
}

/** The settings as a row keeps them: those there were when it was saved, so any subset of today's. */
export type StoredContainerSettings = ContainerSettingsChangeInput;

/** The stored JSON read back, every missing setting (added after the container was saved) at its default. */
export function settingsFromStored(stored: StoredContainerSettings): ContainerSettingsDto {
  return mergeSettings(defaultSettings(stored.loader_path ?? generateLoaderPath()), stored);
}

/** `change` over `current`: objects merged key by key (two levels deep), lists and values replaced. */
export function mergeSettings(
  current: ContainerSettingsDto,
  change: ContainerSettingsChangeInput,
): ContainerSettingsDto {
  const anonymizer = {
    ga4: { ...current.anonymizer.ga4, ...change.anonymizer?.ga4 },
    meta: { ...current.anonymizer.meta, ...change.anonymizer?.meta },
  };
  return {
    loader_path: change.loader_path ?? current.loader_path,
    ga4_measurement_ids: change.ga4_measurement_ids ?? current.ga4_measurement_ids,
    cookie_keeper: { ...current.cookie_keeper, ...change.cookie_keeper },
    click_id_restorer: { ...current.click_id_restorer, ...change.click_id_restorer },
    bot_detection: { ...current.bot_detection, ...change.bot_detection },
    geo_headers: { ...current.geo_headers, ...change.geo_headers },
    anonymizer,
    tagging_server: { ...current.tagging_server, ...change.tagging_server },
    ...mergeRequestPowerups(current, change),
  };
}
