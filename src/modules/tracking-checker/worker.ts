import type { Database } from '../../db/index.js';
import {
  ScanTargetRefusedError,
  type ScanTargetRefusedCode,
  ScanTargetUnreachableError,
} from '../../scanner/errors.js';
import type { Scanner } from '../../scanner/index.js';
import type { Language, ScanResult } from '../../scanner/schema.js';
import type { EventLog } from '../events/service.js';
import { TrackingCheckerErrors } from './errors.js';
import * as queries from './queries.js';

/** The queue of tenant scans: one job per stored scan, run by processes with the worker role (the Chromium pool). */
export const SCANS = 'tracking-scan';

/** The public checker's scans: nothing stored, the result travels back as the job's output. */
export const ANONYMOUS_SCANS = 'anonymous-scan';

/** Where failures of ours during a scan are logged, with the id of the request that asked for it. */
export interface ScanLog {
  warn(object: object, message: string): void;
}

export interface AnonymousScanJob {
  /** The request waiting for the scan, so that the worker's log lines can be found from it. */
  requestId?: string;
  url: string;
  aiSummary: boolean;
  pagespeed: boolean;
  consentCheck?: boolean;
  pages?: number;
  language: Language;
}

export type AnonymousScanOutcome =
  | { result: ScanResult }
  | { refused: { reason: ScanTargetRefusedCode; message: string } }
  | { unreachable: { message: string } };

export interface ScanJob {
  scanId: string;
  /** The caller waits for the answer (synchronous POST): a refused target is then deleted, not announced. */
  waited: boolean;
  requestId?: string;
}

/**
 * Runs queued scans (the job handler): scans, stores the result or the failure on the scan row and announces it
 * with `tracking_checker.scan.completed` / `.failed`. A job retried after its worker died scans again.
 */
export class ScanWorker {
  private readonly database: Database;
  private readonly scanner: Scanner;
  private readonly events: EventLog;

  constructor(
    { database, scanner, events }: { database: Database; scanner: Scanner; events: EventLog },
    private readonly settings: { log: ScanLog },
  ) {
    this.database = database;
    this.scanner = scanner;
    this.events = events;
  }

  /** A public checker scan (the job handler): its outcome is the job's output, read by the waiting API process. */
  async runAnonymous({ requestId, ...job }: AnonymousScanJob): Promise<AnonymousScanOutcome> {
    try {
      return { result: await this.scanner.scan({ ...job, onInternalError: this.logFor(requestId) }) };
    } catch (error) {
      if (error instanceof ScanTargetRefusedError) return { refused: { reason: error.code, message: error.message } };
      if (error instanceof ScanTargetUnreachableError) return { unreachable: { message: error.message } };
      throw error;
    }
  }

  /** Failures of ours (a browser that cannot start) are logged with the request id; the client gets plain words. */
  private logFor(requestId: string | undefined) {
    return (error: unknown) => this.settings.log.warn({ err: error, request_id: requestId }, 'scan stage failed');
  }

  async run({ scanId, waited, requestId }: ScanJob): Promise<void> {
    const logInternalError = this.logFor(requestId);
    const scan = await queries.startScan(this.database.db, scanId);
    if (!scan) return;
    let result: ScanResult;
    try {
      result = await this.scanner.scan({
        url: scan.url,
        aiSummary: scan.options.ai_summary,
        pagespeed: scan.options.pagespeed,
        consentCheck: scan.options.consent_check ?? false,
        pages: scan.options.pages ?? 1,
        language: scan.language,
        onInternalError: logInternalError,
      });
    } catch (error) {
      await this.fail(scan, error, waited, logInternalError);
      return;
    }
    // Outside the failure path: an error while storing or announcing fails the job (retried), never a scan that ran.
    await queries.setScanStage(this.database.db, scanId, 'storing');
    await queries.completeScan(this.database.db, scanId, result);
    await this.events.record(
      scan.tenantId,
      'tracking_checker.scan.completed',
      { type: 'scan', id: scanId },
      { scan_id: scanId, url: result.url, final_url: result.final_url, trackers: result.trackers.length },
    );
  }

  private async fail(
    scan: { id: string; tenantId: string; url: string },
    error: unknown,
    waited: boolean,
    logInternalError: (error: unknown) => void,
  ): Promise<void> {
    const failure = failureOf(error);
    // An unreachable page is the target's fault; what failed on our side on the way (its cause) is logged.
    if (error instanceof ScanTargetUnreachableError) {
      if (error.cause) logInternalError(error.cause);
    } else if (!(error instanceof ScanTargetRefusedError)) logInternalError(error);
    await queries.failScan(this.database.db, scan.id, failure);
    if (waited && failure.code === queries.REFUSED) return;
    await this.events.record(
      scan.tenantId,
      'tracking_checker.scan.failed',
      { type: 'scan', id: scan.id },
      { scan_id: scan.id, url: scan.url, error: { code: failure.code, message: failure.message } },
    );
  }
}

/** What is stored with a failed scan: the target's fault in its own words, ours as a plain sentence. */
function failureOf(error: unknown): queries.ScanFailure {
  if (error instanceof ScanTargetRefusedError)
    return { code: queries.REFUSED, message: error.message, reason: error.code };
  if (error instanceof ScanTargetUnreachableError) return { code: error.code, message: error.message };
  return { code: TrackingCheckerErrors.failed.code, message: 'The scan failed unexpectedly.' };
}
