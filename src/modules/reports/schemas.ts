import { Type, type Static } from 'typebox';
import { idPattern } from '../../lib/ids.js';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../http/schemas.js';

export const REPORT_KINDS = ['uptime', 'usage', 'scans', 'tracking'] as const;
export const REPORT_FORMATS = ['json', 'csv'] as const;
export const REPORT_STATUSES = ['queued', 'running', 'ready', 'failed'] as const;
export const MAX_PERIOD_DAYS = 366;

export const ReportIdParams = Type.Object({
  id: Type.String({ pattern: idPattern('report'), description: 'Report id (`rpt_…`).' }),
});

export const CreateReportBody = Type.Object(
  {
    kind: StringEnum(REPORT_KINDS, {
      description:
        "uptime: per monitor, checks, uptime and latency percentiles. usage: per UTC day, scans, monitor checks, the built-in runtime activity over all containers (tracking hits, events forwarded to GA4 and Meta, failed forwards, bots dropped, cookies restored) and the requests the gateway served (`gateway_requests`, and by status class `gateway_1xx` … `gateway_5xx`); as JSON it also breaks the gateway requests down by day, container and status class (`gateway_requests`). scans: every scan in the period. tracking: the tracking monitors' runs due in the period, one row per run, page and tracker that loaded there (with its ids, whether it fired before consent, whether it went server-side, and the number of changes the run found on that page): a page's trackers over time.",
    }),
    period_start: Type.String({
      format: 'date-time',
      description: 'Start of the period, inclusive (ISO 8601; UTC is used).',
    }),
    period_end: Type.String({
      format: 'date-time',
      description: `End of the period, exclusive; at most ${MAX_PERIOD_DAYS} days after the start.`,
    }),
    format: Type.Optional(StringEnum(REPORT_FORMATS, { default: 'json' })),
  },
  {
    additionalProperties: false,
    examples: [
      { kind: 'uptime', period_start: '2026-11-01T00:00:00Z', period_end: '2026-12-01T00:00:00Z', format: 'csv' },
    ],
  },
);

export const Report = Type.Object(
  {
    id: Type.String(),
    kind: StringEnum(REPORT_KINDS),
    format: StringEnum(REPORT_FORMATS),
    period_start: Timestamp('Start of the period (inclusive).'),
    period_end: Timestamp('End of the period (exclusive).'),
    status: StringEnum(REPORT_STATUSES, {
      description: 'queued → running → ready | failed.',
    }),
    error: Nullable(Type.String()),
    download_url: Nullable(Type.String(), { description: 'Where to fetch the file once ready.' }),
    created_at: Timestamp('When the report was requested.'),
    completed_at: NullableTimestamp('When it became ready or failed.'),
  },
  { $id: 'Report', additionalProperties: false, description: 'A report built from the stored data.' },
);

export type CreateReportInput = Static<typeof CreateReportBody>;
export type ReportDto = Static<typeof Report>;

export const ReportFile = Type.Object(
  {
    report_id: Type.String(),
    kind: StringEnum(REPORT_KINDS),
    period_start: Timestamp('Start of the period (inclusive).'),
    period_end: Timestamp('End of the period (exclusive).'),
    rows: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
      description: 'One object per row; the columns depend on the kind (the CSV header lists the same).',
    }),
    gateway_requests: Type.Optional(
      Type.Array(
        Type.Object({
          day: Type.String({ description: 'UTC day, YYYY-MM-DD.' }),
          container_id: Type.String(),
          container_name: Type.String(),
          status_class: Type.String({ description: '1xx, 2xx, 3xx, 4xx or 5xx.' }),
          requests: Type.Integer(),
        }),
        {
          description:
            'Usage reports only: the requests the gateway served per UTC day, container and status class (days and classes without requests are left out).',
        },
      ),
    ),
  },
  { description: 'A report downloaded as JSON.' },
);
