import { Type, type Static } from 'typebox';
import { idPattern } from '../../lib/ids.js';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../http/schemas.js';
import { LANGUAGES, ScanResultSchema } from '../../scanner/schema.js';

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
    status: StringEnum(['running', 'completed', 'failed'] as const, {
      description: 'running while the scan is in progress.',
    }),
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
