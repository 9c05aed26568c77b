import { Type, type Static, type TSchema } from 'typebox';

/**
 * TypeBox schema of a scan result, as returned by `Scanner.scan()`.
 * The HTTP layer adds `scan_id` and `api_meta`; everything else is described here and nowhere else
 * (the TypeScript types below are derived from these schemas).
 */

export const LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'pl'] as const;
export type Language = (typeof LANGUAGES)[number];

const literals = <const T extends string[]>(values: readonly [...T], options: { description: string }) =>
  Type.Enum<T>(values, options);

const nullable = <T extends TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

export const LanguageSchema = literals(LANGUAGES, {
  description: 'Language of all human-readable text in the result.',
});

export const STAGE_STATUSES = ['ok', 'partial', 'timeout', 'failed', 'skipped'] as const;
export const EVIDENCE_KINDS = ['script', 'inline', 'request', 'cookie', 'global', 'noscript'] as const;
export const TRACKER_CATEGORIES = [
  'analytics',
  'advertising',
  'tag_manager',
  'session_replay',
  'social',
  'customer_data_platform',
  'marketing',
] as const;
export const CONSENT_VALUES = ['granted', 'denied'] as const;

const StageStatus = literals(STAGE_STATUSES, {
  description:
    'ok: the stage completed. partial: it completed on incomplete input (e.g. a page cut at the size cap). timeout: it hit its time limit; data observed until then is used. failed: it produced nothing usable. skipped: it did not run.',
});

export const EvidenceSchema = Type.Object(
  {
    kind: literals(EVIDENCE_KINDS, {
      description:
        'script: a <script src> in the HTML or a script loaded in the browser. inline: code inside an inline <script>. request: a network request made by the page. cookie: a cookie set on the page. global: a JavaScript global present after load. noscript: an element inside <noscript>.',
    }),
    detail: Type.String({ description: 'What was seen, e.g. `fbq("init", "123…")` or `GA4 hit with gcs=G100`.' }),
    url: Type.Optional(Type.String({ description: 'The URL involved, when there is one.' })),
  },
  { additionalProperties: false, description: 'One observation supporting a finding.' },
);

export const TrackerSchema = Type.Object(
  {
    key: Type.String({
      description:
        'Stable machine name of the tracker, e.g. `google_analytics_4`, `meta_pixel`; `tpw:<entity>` for vendors recognised only through third-party-web.',
    }),
    name: Type.String({ description: 'Product name, e.g. "Google Analytics 4".' }),
    vendor: Type.String({ description: 'Company behind the product.' }),
    category: literals(TRACKER_CATEGORIES, { description: 'What the tracker is used for.' }),
    ids: Type.Array(Type.String(), {
      description:
        'Account, property or pixel ids found (e.g. `G-ABC123`, `GTM-XYZ`, a Meta pixel id). Empty when none could be read.',
    }),
    evidence: Type.Array(EvidenceSchema, { description: 'Observations behind this finding (at most 12).' }),
    first_party: Type.Boolean({
      description:
        "True when the tracker's script or hits were served from the scanned site's own registrable domain (or a subdomain).",
    }),
    server_side: Type.Boolean({
      description:
        "True when the tracker sends its data through a server-side endpoint rather than straight to the vendor: hits to a non-vendor host, `transport_url`/`server_container_url` set, or a tag manager container served from the site's own domain.",
    }),
    fires_before_consent: Type.Union([Type.Boolean(), Type.Null()], {
      description:
        'True when the tracker made at least one network request (loader script or data hit) while the scanner had not given consent. The scanner never clicks a consent banner, so every request it observes happens before consent, whether a CMP is present or no consent mechanism exists at all. Tag managers are reported false here: they are judged by the tags they fire. null when the browser stage did not run, so firing could not be observed.',
    }),
  },
  { additionalProperties: false },
);

const ConsentValue = Type.Union([literals(CONSENT_VALUES, { description: 'Consent state.' }), Type.Null()], {
  description: 'Default state set by `gtag("consent", "default", …)`; null when the key was not set.',
});

export const ConsentSchema = Type.Object(
  {
    cmp: nullable(
      Type.Object(
        {
          name: Type.String({ description: 'Consent management platform, e.g. "Cookiebot", "OneTrust".' }),
          evidence: Type.Array(EvidenceSchema, { description: 'Observations behind the CMP detection.' }),
        },
        { additionalProperties: false },
      ),
      'The consent management platform found on the page, or null.',
    ),
    tcf_api: Type.Union([Type.Boolean(), Type.Null()], {
      description: 'True when the IAB TCF API (`__tcfapi`) is present; null when the browser stage did not run.',
    }),
    consent_mode: Type.Object(
      {
        detected: Type.Boolean({
          description:
            'Google Consent Mode is in use (consent commands in code or dataLayer, or gcs/gcd on Google hits).',
        }),
        version: Type.Union([Type.Literal('v1'), Type.Literal('v2'), Type.Null()], {
          description:
            'v2 when `ad_user_data`/`ad_personalization` are set or Google hits carry `gcd`; v1 when only `ad_storage`/`analytics_storage` are used; null when not detected.',
        }),
        mode: Type.Union([Type.Literal('basic'), Type.Literal('advanced'), Type.Null()], {
          description:
            'advanced: Google tags send cookieless pings while consent is denied (hits seen with storage denied in gcs). basic: consent defaults are denied and Google tags sent no hits before consent. null when this cannot be told (not detected, defaults granted, no Google tag, or no browser stage).',
        }),
        defaults: Type.Object(
          {
            ad_storage: ConsentValue,
            analytics_storage: ConsentValue,
            ad_user_data: ConsentValue,
            ad_personalization: ConsentValue,
          },
          {
            additionalProperties: false,
            description: 'Default consent states (the first default command without a region, else the first one).',
          },
        ),
        gcs: Type.Optional(
          Type.String({
            description:
              'First `gcs` parameter seen on a Google hit (G1 + ad_storage + analytics_storage; G100 = both denied).',
          }),
        ),
        gcd: Type.Optional(
          Type.String({
            description: 'First `gcd` parameter seen on a Google hit (Consent Mode v2 state encoding), as sent.',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    banner_detected: Type.Union([Type.Boolean(), Type.Null()], {
      description:
        'A visible consent banner was found after load (known CMP containers or a fixed cookie notice with buttons); null when the browser stage did not run.',
    }),
    tags_before_consent: Type.Array(
      Type.Object(
        {
          key: Type.String({ description: 'Tracker key, as in `trackers[].key`.' }),
          name: Type.String({ description: 'Tracker name.' }),
          requests: Type.Integer({ minimum: 1, description: 'Number of requests the tracker made without consent.' }),
          first_url: Type.String({ description: 'The first such request.' }),
          cookieless: Type.Boolean({
            description:
              'True when every such request was a Google hit with ad_storage and analytics_storage denied (Consent Mode advanced pings).',
          }),
        },
        { additionalProperties: false },
      ),
      { description: 'Trackers that fired before consent (see `trackers[].fires_before_consent`).' },
    ),
  },
  { additionalProperties: false },
);

export const ServerSideSchema = Type.Object(
  {
    detected: Type.Boolean({ description: 'Server-side or first-party tagging was found.' }),
    evidence: Type.Array(EvidenceSchema, { description: 'What showed it.' }),
    endpoints: Type.Array(Type.String(), {
      description: 'Origins of server-side tagging endpoints (e.g. `https://sgtm.example.com`).',
    }),
  },
  { additionalProperties: false },
);

export const CookieSchema = Type.Object(
  {
    name: Type.String({ description: 'Cookie name.' }),
    domain: Type.String({ description: 'Cookie domain, without a leading dot.' }),
    first_party: Type.Boolean({ description: "Domain belongs to the scanned site's registrable domain." }),
    tracker: Type.Optional(Type.String({ description: 'Key of the tracker that owns the cookie, when known.' })),
    set_by: literals(['script', 'http'] as const, {
      description:
        'script: written through document.cookie (capped at 7 days by Safari ITP). http: set by a Set-Cookie response header.',
    }),
    expires: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'Expiry in ISO 8601 UTC; null for a session cookie.',
    }),
  },
  { additionalProperties: false },
);

const Pct = (description: string) => Type.Number({ minimum: 0, maximum: 100, description });

const CauseSplit = Type.Object(
  {
    consent: Pct('Share lost to consent refusal, in percent of all events/conversions.'),
    ad_blockers: Pct('Share lost to ad and privacy blockers.'),
    itp: Pct('Share lost to Safari ITP cookie caps (ad conversions only; analytics events are still counted).'),
  },
  {
    additionalProperties: false,
    description:
      'The lost share split by cause; the three add up to `lost_pct` (causes applied in the order consent, blockers, ITP).',
  },
);

const lossFigureProperties = {
  lost_pct: Pct('Estimated share lost, in percent.'),
  by_cause: CauseSplit,
  lost_pct_with_server_side: Pct('Estimated share lost with server-side tagging on a first-party domain.'),
  recoverable_pct: Pct(
    'Percentage points server-side tagging on a first-party domain would recover (`lost_pct - lost_pct_with_server_side`). Consent refusal is never recovered.',
  ),
};
const LossFigure = Type.Object(lossFigureProperties, { additionalProperties: false });

export const LossEstimateSchema = Type.Object(
  {
    model_version: Type.String({ description: 'Version of the loss model.' }),
    analytics_events: nullable(
      LossFigure,
      'Analytics events lost: mean over the analytics trackers found; null when there is none.',
    ),
    ad_conversions: nullable(
      LossFigure,
      'Ad conversions lost: mean over the advertising trackers found; null when there is none.',
    ),
    per_tracker: Type.Array(
      Type.Object(
        {
          key: Type.String({ description: 'Tracker key.' }),
          name: Type.String({ description: 'Tracker name.' }),
          metric: literals(['analytics_events', 'ad_conversions'] as const, {
            description: 'What is lost for this tracker.',
          }),
          server_side: Type.Boolean({
            description: 'Already served server-side/first-party; its blocker losses use the first-party rate.',
          }),
          ...lossFigureProperties,
        },
        { additionalProperties: false },
      ),
      { description: 'Estimate per measuring tracker (tag managers are not counted).' },
    ),
    assumptions: Type.Array(
      Type.Object(
        {
          key: Type.String({ description: 'Name of the assumption.' }),
          value: Type.Number({ description: 'Value used (a fraction between 0 and 1).' }),
          source: Type.String({ description: 'Where the value comes from.' }),
        },
        { additionalProperties: false },
      ),
      { description: 'Every input of the model, with its source.' },
    ),
    explanation: Type.String({ description: 'How the estimate was computed, in the requested language.' }),
  },
  {
    additionalProperties: false,
    description: 'A transparent estimate of tracking data lost to blockers, Safari ITP and consent refusal.',
  },
);

export const AiSummarySchema = Type.Object(
  {
    provider: literals(['builtin', 'openai_compatible'] as const, {
      description:
        'builtin: written by the scanner from the findings. openai_compatible: written by a language model given the findings.',
    }),
    model: Type.Optional(Type.String({ description: 'Model name, for openai_compatible.' })),
    language: LanguageSchema,
    text: Type.String({ description: 'Summary of the findings.' }),
    recommendations: Type.Array(Type.String(), { description: 'Suggested next steps.' }),
  },
  { additionalProperties: false },
);

export const PagespeedSchema = Type.Object(
  {
    score: Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'Lighthouse performance score, 0–100 (mobile, simulated throttling).',
    }),
    metrics: Type.Object(
      {
        fcp_ms: Type.Number({ minimum: 0, description: 'First Contentful Paint.' }),
        lcp_ms: Type.Number({ minimum: 0, description: 'Largest Contentful Paint.' }),
        tbt_ms: Type.Number({ minimum: 0, description: 'Total Blocking Time.' }),
        cls: Type.Number({ minimum: 0, description: 'Cumulative Layout Shift (unitless).' }),
        si_ms: Type.Number({ minimum: 0, description: 'Speed Index.' }),
      },
      { additionalProperties: false },
    ),
    lighthouse_version: Type.String({ description: 'Lighthouse version that produced the score.' }),
  },
  { additionalProperties: false },
);

export const WarningSchema = Type.Object(
  {
    code: Type.String({
      description: 'Machine-readable warning code, e.g. `browser_timeout`, `page_truncated`, `request_refused`.',
    }),
    message: Type.String({
      description:
        'Human-readable explanation in the requested language; technical details (network or browser error texts) are quoted as they are.',
    }),
  },
  { additionalProperties: false },
);

const stageTiming = (description: string) =>
  Type.Object(
    { status: StageStatus, duration_ms: Type.Integer({ minimum: 0, description: 'Time spent in the stage.' }) },
    { additionalProperties: false, description },
  );

export const ScanResultSchema = Type.Object(
  {
    url: Type.String({ description: 'The URL that was asked for.' }),
    final_url: Type.String({
      description: 'The URL after redirects (from the browser when it ran, else from the fetch).',
    }),
    scanned_at: Type.String({ format: 'date-time', description: 'When the scan started, ISO 8601 UTC.' }),
    duration_ms: Type.Integer({ minimum: 0, description: 'Total scan time.' }),
    stages: Type.Object(
      {
        fetch: Type.Object(
          {
            status: StageStatus,
            duration_ms: Type.Integer({ minimum: 0, description: 'Time spent fetching and parsing the HTML.' }),
            http_status: Type.Optional(Type.Integer({ description: 'HTTP status of the final response.' })),
            redirects: Type.Array(Type.String(), {
              description: 'URLs redirected through, in order (the final URL excluded).',
            }),
          },
          {
            additionalProperties: false,
            description: 'Stage 1: plain HTTP fetch of the page and static HTML analysis.',
          },
        ),
        browser: stageTiming(
          'Stage 2: the page loaded in headless Chromium, every request recorded, no consent given.',
        ),
        pagespeed: Type.Optional(stageTiming('Lighthouse run, when pagespeed was asked for.')),
        summary: Type.Optional(
          stageTiming(
            'Summary writing, when ai_summary was asked for; partial when the language model failed and the builtin writer was used instead.',
          ),
        ),
      },
      { additionalProperties: false },
    ),
    trackers: Type.Array(TrackerSchema, { description: 'Trackers and tag managers found.' }),
    consent: ConsentSchema,
    server_side_tagging: ServerSideSchema,
    cookies: Type.Array(CookieSchema, { description: 'Cookies present after load, without consent.' }),
    loss_estimate: LossEstimateSchema,
    ai_summary: nullable(AiSummarySchema, 'Summary and recommendations; null unless ai_summary was asked for.'),
    pagespeed: nullable(
      PagespeedSchema,
      'Page performance; null unless pagespeed was asked for or when the run failed (see warnings).',
    ),
    warnings: Type.Array(WarningSchema, { description: 'Problems met during the scan; the result may be partial.' }),
  },
  { additionalProperties: false, description: 'Result of a tracking scan.' },
);

export type Evidence = Static<typeof EvidenceSchema>;
export type Tracker = Static<typeof TrackerSchema>;
export type TrackerCategory = (typeof TRACKER_CATEGORIES)[number];
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];
export type StageStatus = (typeof STAGE_STATUSES)[number];
export type ConsentValue = (typeof CONSENT_VALUES)[number];
export type ConsentResult = Static<typeof ConsentSchema>;
export type ServerSideResult = Static<typeof ServerSideSchema>;
export type CookieResult = Static<typeof CookieSchema>;
export type LossEstimate = Static<typeof LossEstimateSchema>;
export type AiSummary = Static<typeof AiSummarySchema>;
export type PagespeedResult = Static<typeof PagespeedSchema>;
export type ScanWarning = Static<typeof WarningSchema>;
export type ScanResult = Static<typeof ScanResultSchema>;
