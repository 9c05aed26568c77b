import { Type, type Static } from 'typebox';
import { idPattern } from '../../lib/ids.js';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../http/schemas.js';
import { LANGUAGES, ScanResultSchema } from '../../scanner/schema.js';

export const SCAN_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
/** What a running scan is doing. */
export const SCAN_STAGES = ['scanning', 'storing'] as const;

export const ScanRequestBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'Absolute https URL of the page to scan. It must resolve to a public address.',
      examples: ['https://shop.example.com/'],
    }),
    ai_summary: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Add a written summary with recommendations (`ai_summary` in the result).',
      }),
    ),
    pagespeed: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Run Lighthouse (performance category, mobile) and add `pagespeed` to the result; adds ~7–10 s.',
      }),
    ),
    consent_check: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Also load the page after clicking "reject all" and after "accept all" on its consent banner (DuckDuckGo autoconsent rules, hundreds of consent platforms) and add `consent_check` to the result: what each tracker does in each case, and the trackers that fire or set cookies after "reject all" (violations) first. The three page loads run side by side within the scan time limit and count as one scan.',
      }),
    ),
    pages: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 5,
        default: 1,
        description:
          'Pages to scan: the start page, then internal pages linked from it (same registrable domain, one per site section first), visited one after another in one browser session as a visitor who follows links, within the scan time limit. The result merges them and lists each under `pages`. Counts as one scan.',
      }),
    ),
    language: Type.Optional(
      Type.String({
        default: 'en',
        maxLength: 35,
        pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$',
        description: `Language of all human-readable text in the result, as a BCP 47 tag, case-insensitive. Its primary language is used when supported (\`de-DE\` and \`DE\` → \`de\`): ${LANGUAGES.join(', ')}; the result's \`language\` says which. Another language is refused with 400 \`invalid_parameter\` and \`details.allowed_values\`.`,
        examples: ['de', 'de-DE'],
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ url: 'https://shop.example.com/', ai_summary: true, pagespeed: false, language: 'de' }],
  },
);

// Cast: only the keys of the result's properties are used here; their deep typebox types would be spread needlessly.
const resultProperties = (ScanResultSchema as unknown as { properties: Record<string, never> }).properties;

export const ScanResponse = Type.Object(
  {
    scan_id: Type.String({
      description: 'Id of the stored scan (`scn_…`); fetch it again with GET /api/v1/tracking-checker/scans/{id}/.',
    }),
    language: StringEnum(LANGUAGES, { description: 'The language of the result text (from the requested tag).' }),
    ...resultProperties,
  },
  { $id: 'ScanResult', additionalProperties: false, description: 'Result of a tracking scan.' },
);

const StateTimes = {
  created_at: Timestamp('When the scan was requested (and its quota slot reserved).'),
  started_at: NullableTimestamp('When a worker started it.'),
  completed_at: NullableTimestamp('When it ended.'),
};

const ScanCompleted = Type.Object(
  {
    ...ScanResponse.properties,
    status: Type.Literal('completed'),
    ...StateTimes,
  },
  {
    $id: 'ScanCompleted',
    additionalProperties: false,
    description: 'A completed scan: its result, as the synchronous scan answers it.',
  },
);

const ScanPending = Type.Object(
  {
    scan_id: Type.String(),
    status: StringEnum(['queued', 'running'] as const, {
      description: '`queued`: waiting for a worker; `running`: a worker is scanning.',
    }),
    stage: Nullable(StringEnum(SCAN_STAGES), {
      description: 'What the worker is doing while running.',
    }),
    url: Type.String(),
    ...StateTimes,
  },
  {
    $id: 'ScanInProgress',
    additionalProperties: false,
    description: 'A scan waiting for or in the hands of a worker.',
  },
);

const ScanFailed = Type.Object(
  {
    scan_id: Type.String(),
    status: Type.Literal('failed'),
    url: Type.String(),
    error: Type.Object(
      {
        code: Type.String({ description: '`target_unreachable`, `url_not_allowed`, `interrupted` or `scan_failed`.' }),
        message: Type.String(),
      },
      { additionalProperties: false },
    ),
    ...StateTimes,
  },
  { $id: 'ScanFailed', additionalProperties: false, description: 'A scan that ended without a result.' },
);

/** The states of the scan resource, one schema each (a response wraps each in its envelope). */
export const ScanStates = [ScanCompleted, ScanPending, ScanFailed] as const;
export const SCAN_STATE_DESCRIPTION =
  'A scan and its state: `queued`, `running` (with its `stage`), `completed` (with the result) or `failed`.';
export const ScanState = Type.Union([...ScanStates], { description: SCAN_STATE_DESCRIPTION });

export const ScanIdParams = Type.Object({
  id: Type.String({ pattern: idPattern('scan'), description: 'Scan id (`scn_…`).' }),
});

export const ScanSummary = Type.Object(
  {
    scan_id: Type.String(),
    url: Type.String(),
    language: StringEnum(LANGUAGES),
    ai_summary: Type.Boolean(),
    pagespeed: Type.Boolean(),
    pages: Type.Integer({ minimum: 1, description: 'Pages asked for (`pages` of the request).' }),
    status: StringEnum(SCAN_STATUSES, {
      description: '`queued` until a worker takes it, `running` while it scans.',
    }),
    stage: Nullable(StringEnum(SCAN_STAGES), { description: 'What a running scan is doing.' }),
    tracker_count: Nullable(Type.Integer(), { description: 'Number of trackers found; null until completed.' }),
    error: Nullable(Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: false }), {
      description: 'Why the scan failed.',
    }),
    created_at: Timestamp('When the scan was requested.'),
    completed_at: NullableTimestamp('When the scan ended.'),
  },
  { $id: 'Scan', additionalProperties: false, description: 'A stored scan, without its full result.' },
);

export type ScanRequestInput = Static<typeof ScanRequestBody>;
export type ScanSummaryDto = Static<typeof ScanSummary>;
export type ScanStateDto = Static<typeof ScanState>;
