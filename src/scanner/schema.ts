import { Type, type Static } from 'typebox';
import { ConsentCheckSchema } from './schema-consent.js';
import { BehavioursSchema } from './schema-behaviours.js';
import { TagManagerConfigsSchema } from './schema-tag-managers.js';
import { UnlistedTrackersSchema } from './schema-unlisted.js';
import {
  ConsentSchema,
  CookieSchema,
  type EvidenceSchema,
  ServerSideSchema,
  TrackerSchema,
  literals,
  nullable,
  type CONSENT_VALUES,
  type EVIDENCE_KINDS,
  type TRACKER_CATEGORIES,
} from './schema-findings.js';

export {
  CONSENT_VALUES,
  ConsentSchema,
  CookieSchema,
  EVIDENCE_KINDS,
  EvidenceSchema,
  ServerSideSchema,
  TRACKER_CATEGORIES,
  TrackerSchema,
} from './schema-findings.js';

/**
 * TypeBox schema of a scan result, as returned by `Scanner.scan()`.
 * The HTTP layer adds `scan_id` and `api_meta`; everything else is described here and nowhere else
 * (the TypeScript types below are derived from these schemas).
 */

export const LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'pl'] as const;
export type Language = (typeof LANGUAGES)[number];

export const LanguageSchema = literals(LANGUAGES, {
  description: 'Language of all human-readable text in the result.',
});

export const STAGE_STATUSES = ['ok', 'partial', 'timeout', 'failed', 'skipped'] as const;
const StageStatus = literals(STAGE_STATUSES, {
  description:
    'ok: the stage completed. partial: it completed on incomplete input (e.g. a page cut at the size cap). timeout: it hit its time limit; data observed until then is used. failed: it produced nothing usable. skipped: it did not run.',
});

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
    consent_never_granted: Type.Boolean({
      description:
        "Google Consent Mode defaults deny storage but the page has no consent platform or banner, so no visitor can ever grant consent: the Google tags gated by the denied type (GA4 by `analytics_storage`, Google Ads and Floodlight by `ad_storage`) count 100% consent loss (`per_tracker[].consent_never_granted`). Cookieless pings sent in advanced mode feed Google's modelling only and are not counted as measurement kept.",
    }),
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
          consent_never_granted: Type.Optional(
            Type.Literal(true, {
              description:
                'Present when a Consent Mode default denies what this tag measures and nothing on the page can grant it: all of it is lost to consent.',
            }),
          ),
          ...lossFigureProperties,
        },
        { additionalProperties: false },
      ),
      {
        description:
          'Estimate per measuring tracker: analytics, session replay, customer data platforms and marketing automation (analytics events), advertising (ad conversions). Tag managers, chat, social and video widgets, discontinued products (`discontinued_since`) tags present only in <noscript> (`activation.state: noscript_only`) and trackers the page only refers to (`activation.state: referenced`) are not counted.',
      },
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

const ObservationSchema = Type.Object(
  {
    load_ms: Type.Optional(
      Type.Integer({ minimum: 0, description: "From the start of navigation to the page's load event." }),
    ),
    window_ms: Type.Integer({ minimum: 0, description: 'From the start of navigation to the end of observation.' }),
    ended_by: literals(['network_quiet', 'cap', 'deadline'] as const, {
      description:
        'network_quiet: the page settled (no request in flight except long-lived ones, and the timers it had set that would fire within the cap were run early). cap: the observation cap was reached first (warning `observation_cut_short`). deadline: the scan time limit ended it.',
    }),
    interactions: Type.Array(
      literals(['pointer_move', 'scroll', 'key_press', 'touch'] as const, { description: 'One simulated action.' }),
      {
        description: 'What the simulated visitor did after load, so that tags delayed until the first interaction run.',
      },
    ),
  },
  { additionalProperties: false, description: 'What the browser stage observed after load.' },
);

const stageTiming = (description: string) =>
  Type.Object(
    { status: StageStatus, duration_ms: Type.Integer({ minimum: 0, description: 'Time spent in the stage.' }) },
    { additionalProperties: false, description },
  );

export const PageSchema = Type.Object(
  {
    url: Type.String({
      description: 'The page visited: the start page first, then the internal pages linked from it.',
    }),
    final_url: Type.Union([Type.String(), Type.Null()], {
      description: 'The URL after redirects; null when not loaded.',
    }),
    status: StageStatus,
    http_status: Type.Optional(Type.Integer({ description: 'HTTP status of the final response of the plain fetch.' })),
    duration_ms: Type.Integer({ minimum: 0, description: 'Time spent on this page (fetch and browser side by side).' }),
    trackers: Type.Array(Type.String(), {
      description: "Keys of the trackers found on this page (the top-level `trackers` holds every page's, merged).",
    }),
    error: Type.Union([Type.String(), Type.Null()], {
      description: "Why the page was not scanned in full, in the network's or the browser's words; null when it was.",
    }),
  },
  { additionalProperties: false },
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
        browser: Type.Object(
          {
            status: StageStatus,
            duration_ms: Type.Integer({ minimum: 0, description: 'Time spent in the stage.' }),
            observation: Type.Optional(ObservationSchema),
          },
          {
            additionalProperties: false,
            description: 'Stage 2: the page loaded in headless Chromium, every request recorded, no consent given.',
          },
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
    unlisted_trackers: Type.Optional(UnlistedTrackersSchema),
    consent: ConsentSchema,
    server_side_tagging: ServerSideSchema,
    tag_manager_configs: Type.Optional(TagManagerConfigsSchema),
    cookies: Type.Array(CookieSchema, { description: 'Cookies present after load, without consent.' }),
    loss_estimate: LossEstimateSchema,
    ai_summary: nullable(AiSummarySchema, 'Summary and recommendations; null unless ai_summary was asked for.'),
    pagespeed: nullable(
      PagespeedSchema,
      'Page performance; null unless pagespeed was asked for or when the run failed (see warnings).',
    ),
    consent_check: Type.Optional(ConsentCheckSchema),
    behaviours: Type.Optional(BehavioursSchema),
    pages: Type.Optional(
      Type.Array(PageSchema, {
        description:
          "Present when more than one page was asked for (`pages`): every page visited, in order, in one browser session (cookies carry over, as for a visitor who follows links). Trackers, consent, cookies, loss estimate and behaviours above are merged over these pages; the observation, consent check and pagespeed are the start page's. Pages the time limit left no room for are `skipped`.",
      }),
    ),
    partial: Type.Optional(
      Type.Object(
        {
          code: Type.String({
            description: "The browser stage's warning code: `browser_timeout`, `browser_failed` or `browser_busy`.",
          }),
          message: Type.String({ description: 'Why, in the scan language.' }),
        },
        {
          additionalProperties: false,
          description:
            'Present when the browser stage produced nothing: the findings come from the HTML alone (trackers loaded by scripts are not seen), so an empty list does not mean a clean page. Such a scan does not count against the hourly quota.',
        },
      ),
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
export type PageResult = Static<typeof PageSchema>;
