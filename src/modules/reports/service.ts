import type { Database } from '../../db/index.js';
import type { ReportRow } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import type { JobEngine } from '../../jobs/engine.js';
import type { EventLog } from '../events/service.js';
import { ReportErrors } from './errors.js';
import * as queries from './queries.js';
import { MAX_PERIOD_DAYS, type CreateReportInput, type ReportDto } from './schemas.js';
import type { ListWindow } from '../../lib/list-window.js';

type Row = Record<string, string | number | boolean | null>;

/**
 * A text cell a spreadsheet would run as a formula gets a leading single quote (OWASP's advice against CSV
 * injection). Numbers the report computes are left as they are, so a negative number stays a number.
 */
function neutraliseFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** RFC 4180: quote fields with commas, quotes or line breaks; double inner quotes. Text cells are formula-safe. */
export function toCsv(rows: Row[], columns: string[]): string {
  const field = (value: string | number | boolean | null) => {
    const text = value === null ? '' : typeof value === 'string' ? neutraliseFormula(value) : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return `${[columns.join(','), ...rows.map((row) => columns.map((column) => field(row[column] ?? null)).join(','))].join('\r\n')}\r\n`;
}

const round = (value: number | string | null) => (value === null ? null : Math.round(Number(value) * 10) / 10);

/** Every UTC day touched by [start, end), as YYYY-MM-DD. */
export function utcDays(start: Date, end: Date): string[] {
  const days: string[] = [];
  const cursor = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate()));
  while (cursor < end) {
    days.push(cursor.toISOString().slice(0, 10));
    cursor.setUTCDate(cursor.getUTCDate() + 1);
  }
  return days;
}

/** The built-in runtime's columns of a usage report, for a day without activity. */
const NO_RUNTIME_USAGE = {
  tracking_hits: 0,
  ga4_forwarded: 0,
  meta_forwarded: 0,
  forwards_failed: 0,
  bots_dropped: 0,
  cookies_restored: 0,
};

/** The gateway's columns of a usage report: requests over all containers, and by status class. */
const NO_GATEWAY_REQUESTS = {
  gateway_requests: 0,
  gateway_1xx: 0,
  gateway_2xx: 0,
  gateway_3xx: 0,
  gateway_4xx: 0,
  gateway_5xx: 0,
};

/** Per UTC day, the gateway's requests over all containers, by status class. */
function gatewayTotalsByDay(rows: Array<{ day: string; status_class: string; requests: number }>) {
  const byDay = new Map<string, Record<string, number>>();
  for (const row of rows) {
    const totals = byDay.get(row.day) ?? { ...NO_GATEWAY_REQUESTS };
    totals.gateway_requests += row.requests;
    const column = `gateway_${row.status_class}`;
    if (column in totals) totals[column] += row.requests;
    byDay.set(row.day, totals);
  }
  return byDay;
}

/** The queue of report builds, one job per report. */
export const REPORT_BUILDS = 'report-build';

export class ReportService {
  private readonly database: Database;
  private readonly events: EventLog;
  private readonly jobs: Pick<JobEngine, 'send'>;

  constructor({ database, events, jobs }: { database: Database; events: EventLog; jobs: Pick<JobEngine, 'send'> }) {
    this.database = database;
    this.events = events;
    this.jobs = jobs;
  }

  toDto(row: ReportRow): ReportDto {
    return {
      id: row.id,
      kind: row.kind,
      format: row.format,
      period_start: row.periodStart.toISOString(),
      period_end: row.periodEnd.toISOString(),
      status: row.status,
      error: row.error,
      download_url: row.status === 'ready' ? `/api/reports/${row.id}/download/` : null,
      created_at: row.createdAt.toISOString(),
      completed_at: row.completedAt?.toISOString() ?? null,
    };
  }

  async create(tenantId: string, input: CreateReportInput): Promise<ReportDto> {
    const start = new Date(input.period_start);
    const end = new Date(input.period_end);
    if (Number.isNaN(start.getTime())) throw ReportErrors.invalidDate('period_start');
    if (Number.isNaN(end.getTime())) throw ReportErrors.invalidDate('period_end');
    if (end <= start) throw ReportErrors.periodReversed();
    if (end.getTime() - start.getTime() > MAX_PERIOD_DAYS * 86_400_000) {
      throw ReportErrors.periodTooLong(MAX_PERIOD_DAYS);
    }
    const row = await queries.insertReport(this.database.db, {
      id: newId('report'),
      tenantId,
      kind: input.kind,
      format: input.format ?? 'json',
      periodStart: start,
      periodEnd: end,
      status: 'queued',
    });
    await this.jobs.send(REPORT_BUILDS, { reportId: row.id });
    return this.toDto(row);
  }

  async list(tenantId: string, window: ListWindow) {
    const { rows, total } = await queries.listReports(this.database.db, tenantId, window);
    return { results: rows.map((row) => this.toDto(row)), total };
  }

  async get(tenantId: string, id: string): Promise<ReportDto> {
    const row = await queries.findReport(this.database.db, tenantId, id);
    if (!row) throw ReportErrors.notFound(id);
    return this.toDto(row);
  }

  async download(tenantId: string, id: string): Promise<{ filename: string; contentType: string; content: string }> {
    const row = await queries.findReport(this.database.db, tenantId, id);
    if (!row) throw ReportErrors.notFound(id);
    if (row.status !== 'ready' || row.content === null) throw ReportErrors.notReady(row.status);
    const csv = row.format === 'csv';
    return {
      filename: `${row.id}-${row.kind}.${row.format}`,
      contentType: csv ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
      content: row.content,
    };
  }

  /** Builds the oldest queued report, if any. Returns whether one was processed. */
  async runNext(): Promise<boolean> {
    const report = await queries.claimQueuedReport(this.database.db);
    if (!report) return false;
    await this.complete(report);
    return true;
  }

  /** Builds one report (the job handler); a job retried after its worker died builds the report it left running. */
  async buildReport({ reportId }: { reportId: string }): Promise<void> {
    const report = await queries.claimReport(this.database.db, reportId);
    if (report) await this.complete(report);
  }

  private async complete(report: ReportRow): Promise<void> {
    try {
      const content = await this.build(report);
      await queries.finishReport(this.database.db, report.id, { status: 'ready', content });
      await this.events.record(
        report.tenantId,
        'report.ready',
        { type: 'report', id: report.id },
        {
          report_id: report.id,
          kind: report.kind,
          format: report.format,
        },
      );
    } catch (error) {
      await queries.finishReport(this.database.db, report.id, {
        status: 'failed',
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  private async build(report: ReportRow): Promise<string> {
    const { rows, columns, details } = await this.rows(report);
    if (report.format === 'csv') return toCsv(rows, columns);
    return JSON.stringify({
      report_id: report.id,
      kind: report.kind,
      period_start: report.periodStart.toISOString(),
      period_end: report.periodEnd.toISOString(),
      rows,
      ...details,
    });
  }

  private async rows(report: ReportRow): Promise<{ rows: Row[]; columns: string[]; details?: Record<string, Row[]> }> {
    const db = this.database.db;
    const [start, end] = [report.periodStart, report.periodEnd];
    if (report.kind === 'uptime') {
      const rows = (await queries.uptimeRows(db, report.tenantId, start, end)).map((row) => ({
        ...row,
        uptime_pct: row.checks === 0 ? null : Math.round((row.up_checks / row.checks) * 100_000) / 1000,
        p50_ms: round(row.p50_ms),
        p95_ms: round(row.p95_ms),
      }));
      return { rows, columns: ['monitor_id', 'name', 'url', 'checks', 'up_checks', 'uptime_pct', 'p50_ms', 'p95_ms'] };
    }
    if (report.kind === 'scans') {
      const rows = (await queries.scanRows(db, report.tenantId, start, end)).map((row) => ({
        ...row,
        trackers: row.trackers === null ? null : Number(row.trackers),
        created_at: row.created_at.toISOString(),
      }));
      return { rows, columns: ['scan_id', 'url', 'status', 'language', 'trackers', 'created_at'] };
    }
    if (report.kind === 'tracking')
      return {
        rows: trackingRows(await queries.trackingRunRows(db, report.tenantId, start, end)),
        columns: TRACKING_COLUMNS,
      };
    const { scanDays, checkDays, runtimeDays, gatewayRequests } = await queries.usageRows(
      db,
      report.tenantId,
      start,
      end,
    );
    const scansByDay = new Map(scanDays.map((row) => [row.day, row.n]));
    const checksByDay = new Map(checkDays.map((row) => [row.day, row.n]));
    const runtimeByDay = new Map(runtimeDays.map(({ day, ...counts }) => [day, counts]));
    const gatewayByDay = gatewayTotalsByDay(gatewayRequests);
    const rows = utcDays(start, end).map((day) => ({
      day,
      scans: scansByDay.get(day) ?? 0,
      monitor_checks: checksByDay.get(day) ?? 0,
      ...(runtimeByDay.get(day) ?? NO_RUNTIME_USAGE),
      ...(gatewayByDay.get(day) ?? NO_GATEWAY_REQUESTS),
    }));
    return {
      rows,
      columns: [
        'day',
        'scans',
        'monitor_checks',
        ...Object.keys(NO_RUNTIME_USAGE),
        ...Object.keys(NO_GATEWAY_REQUESTS),
      ],
      details: { gateway_requests: gatewayRequests },
    };
  }
}

const TRACKING_COLUMNS = [
  'monitor_id',
  'monitor_name',
  'run_id',
  'due_at',
  'result',
  'page',
  'page_error',
  'page_changes',
  'tracker',
  'ids',
  'fires_before_consent',
  'server_side',
];

/**
 * One row per run, page and tracker that loaded there (a page with none, or that failed, gets one row without a
 * tracker): a page's trackers over time, with the number of changes the run found on that page.
 */
function trackingRows(runs: Awaited<ReturnType<typeof queries.trackingRunRows>>): Row[] {
  return runs.flatMap((run) =>
    run.pages.flatMap((page) => {
      const base = {
        monitor_id: run.monitorId,
        monitor_name: run.monitorName,
        run_id: run.runId,
        due_at: run.dueAt.toISOString(),
        result: run.result,
        page: page.url,
        page_error: page.error,
        page_changes: run.changes.filter((change) => change.page === page.url).length,
      };
      const none: Row = { tracker: null, ids: null, fires_before_consent: null, server_side: null };
      if (!page.trackers.length) return [{ ...base, ...none }];
      return page.trackers.map(
        (tracker): Row => ({
          ...base,
          tracker: tracker.key,
          ids: tracker.ids.join(' '),
          fires_before_consent: tracker.fires_before_consent,
          server_side: tracker.server_side,
        }),
      );
    }),
  );
}
