import { Type, type TSchema } from 'typebox';

/** TypeBox schemas of the findings in a scan result: trackers, consent, server-side tagging, cookies. */

export const literals = <const T extends string[]>(values: readonly [...T], options: { description: string }) =>
  Type.Enum<T>(values, options);

export const nullable = <T extends TSchema>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

export const EVIDENCE_KINDS = ['script', 'inline', 'request', 'cookie', 'global', 'noscript'] as const;
export const TRACKER_CATEGORIES = [
  'analytics',
  'advertising',
  'tag_manager',
  'session_replay',
  'social',
  'customer_data_platform',
  'marketing',
  'customer_success',
  'video',
] as const;
export const CONSENT_VALUES = ['granted', 'denied'] as const;

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
        'True when the tracker sent at least one network request (loader script or data hit; it got a response, or was still open when observation ended) while the scanner had not given consent; requests that were refused (Content-Security-Policy, network errors, aborted) are listed under `blocked` and never count. The scanner never clicks a consent banner, so every request it observes happens before consent, whether a CMP is present or no consent mechanism exists at all. Tag managers are reported false here: they are judged by the tags they fire. null when the browser stage did not run, so firing could not be observed.',
    }),
    conversions_api: Type.Optional(
      Type.Boolean({
        description:
          "Present (true) for the Meta Pixel when its events carry an `eventID` (fbq's fourth argument, `eid` on hits): the key that deduplicates them with the same events sent by the Conversions API, which is therefore in use.",
      }),
    ),
    discontinued_since: Type.Optional(
      Type.String({
        format: 'date',
        description:
          'Present for products the vendor no longer runs, e.g. Universal Analytics (`2023-07-01`): the tag still loads and may set cookies, but no data is processed. Left out of `loss_estimate`; remove the tag.',
      }),
    ),
    activation: Type.Optional(
      Type.Object(
        {
          state: literals(['held_for_consent', 'delayed', 'noscript_only', 'referenced'] as const, {
            description:
              "held_for_consent: its scripts are parked by a consent platform until the visitor consents. delayed: a performance plug-in runs them only after the first interaction (scroll, pointer move, key press, touch) or in a web worker; the browser stage simulates that interaction. noscript_only: found only inside <noscript>, which never runs for visitors with JavaScript: the install is broken (left out of `loss_estimate`, named in the summary). referenced: the browser saw none of its scripts load and none of its requests go, only code or a global naming it (a snippet that never ran, a site's own function of the same name): not counted as a tracker that fires (left out of `loss_estimate` and of the summary's tracker list, named in the summary).",
          }),
          mechanism: Type.Union([Type.String(), Type.Null()], {
            description:
              'The consent platform or plug-in holding the scripts back, e.g. "Cookiebot", "WP Rocket (delay JavaScript execution)"; null when it cannot be named.',
          }),
        },
        { additionalProperties: false },
      ),
    ),
    blocked: Type.Optional(
      Type.Array(
        Type.Object(
          {
            url: Type.String({ description: 'The request.' }),
            reason: Type.String({
              description:
                'Why it got no response, e.g. `Content-Security-Policy (script-src-elem)`, `network error: net::ERR_CONNECTION_REFUSED`.',
            }),
          },
          { additionalProperties: false },
        ),
        {
          description:
            'Requests of the tracker that the page made but that never got a response (at most 12). Present only when there are some.',
        },
      ),
    ),
    endpoints: Type.Optional(
      Type.Array(Type.String(), {
        description:
          "First-party collection endpoints: the site's own (sub)domain URLs, without query, the tracker's hits were sent to.",
      }),
    ),
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
          name: Type.Union([Type.String(), Type.Null()], {
            description:
              'Consent management platform, e.g. "Cookiebot", "OneTrust"; null when a banner or a TCF CMP was found but the platform is not one we can name.',
          }),
          evidence: Type.Array(EvidenceSchema, { description: 'Observations behind the CMP detection.' }),
          banner_detected: Type.Optional(
            Type.Boolean({ description: 'Present (true) when the CMP is known only from a visible banner.' }),
          ),
          tcf_cmp_id: Type.Optional(
            Type.Integer({
              minimum: 1,
              description: "The CMP id the IAB TCF API reported (`__tcfapi('ping')`), IAB's registered CMP id.",
            }),
          ),
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
            'v2 when both `ad_user_data` and `ad_personalization` are set by a default or update command (when no command could be read, when the `gcd` of Google hits encodes both as set); v1 otherwise (the mere presence of `gcd` proves nothing: every current gtag sends it); null when not detected.',
        }),
        missing_v2_keys: Type.Optional(
          Type.Array(
            literals(['ad_user_data', 'ad_personalization'] as const, { description: 'A Consent Mode v2 key.' }),
            {
              description:
                'Present when `version` is v1: the v2 keys no default or update sets, to add for Consent Mode v2.',
            },
          ),
        ),
        mode: Type.Union([Type.Literal('basic'), Type.Literal('advanced'), Type.Null()], {
          description:
            'advanced: Google tags send cookieless pings while consent is denied (hits seen with storage denied in gcs, Google Ads `1p-user-list`, `1p-conversion` and `ccm/collect` pings included); those pings count as requests before consent. basic: consent defaults are denied and Google tags sent no hits before consent. null when this cannot be told (not detected, defaults granted, no Google tag, or no browser stage).',
        }),
        mode_explanation: Type.Optional(
          Type.String({
            description:
              'Present with `mode`: what that mode means for what was sent before consent, in the language of the result.',
          }),
        ),
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
