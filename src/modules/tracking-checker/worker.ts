import type { Database } from '../../db/index.js';
import { ScanTargetRefusedError, ScanTargetUnreachableError } from '../../scanner/errors.js';
import type { Scanner } from '../../scanner/index.js';
import type { Language, ScanResult } from '../../scanner/schema.js';
import type { WebhookService } from '../webhooks/service.js';
import { TrackingCheckerCodes } from './errors.js';
import * as queries from './queries.js';

/** The queue of tenant scans: one job per stored scan, run by processes with the worker role (the Chromium pool). */
export const SCANS = 'tracking-scan';

/** The public checker's scans: nothing stored, the result travels back as the job's output. */
export const ANONYMOUS_SCANS = 'anonymous-scan';

export interface AnonymousScanJob {
  url: string;
  aiSummary: boolean;
  pagespeed: boolean;
  language: Language;
}

export type AnonymousScanOutcome =
  | { result: ScanResult }
  | { refused: { reason: string; message: string } }
  | { unreachable: { message: string } };

export interface ScanJob {
  scanId: string;
  /** The caller waits for the answer (synchronous POST): a refused target is then deleted, not announced. */
  waited: boolean;
}

/**
 * Runs queued scans (the job handler): scans, stores the result or the failure on the scan row and announces it
 * with `tracking_checker.scan.completed` / `.failed`. A job retried after its worker died scans again.
 */
export class ScanWorker {
  private readonly database: Database;
  private readonly scanner: Scanner;
  private readonly webhooks: WebhookService;

  constructor(
    { database, scanner, webhooks }: { database: Database; scanner: Scanner; webhooks: WebhookService },
    private readonly settings: { onInternalError: (error: unknown) => void },
  ) {
    this.database = database;
    this.scanner = scanner;
    this.webhooks = webhooks;
  }

  /** A public checker scan (the job handler): its outcome is the job's output, read by the waiting API process. */
  async runAnonymous(job: AnonymousScanJob): Promise<AnonymousScanOutcome> {
    try {
      return { result: await this.scanner.scan({ ...job, onInternalError: this.settings.onInternalError }) };
    } catch (error) {
      if (error instanceof ScanTargetRefusedError) return { refused: { reason: error.code, message: error.message } };
      if (error instanceof ScanTargetUnreachableError) return { unreachable: { message: error.message } };
      throw error;
    }
  }

  async run({ scanId, waited }: ScanJob): Promise<void> {
    const scan = await queries.startScan(this.database.db, scanId);
    if (!scan) return;
    try {
      const result = await this.scanner.scan({
        url: scan.url,
        aiSummary: scan.options.ai_summary,
        pagespeed: scan.options.pagespeed,
        language: scan.language as Language,
        onInternalError: this.settings.onInternalError,
      });
      await queries.setScanStage(this.database.db, scanId, 'storing');
      await queries.completeScan(this.database.db, scanId, result as unknown as Record<string, unknown>);
      await this.webhooks.publish(scan.tenantId, 'tracking_checker.scan.completed', {
        scan_id: scanId,
        url: result.url,
        final_url: result.final_url,
        trackers: result.trackers.length,
      });
    } catch (error) {
      const failure = failureOf(error);
      if (!(error instanceof ScanTargetRefusedError || error instanceof ScanTargetUnreachableError))
        this.settings.onInternalError(error);
      await queries.failScan(this.database.db, scanId, failure);
      if (waited && failure.code === queries.REFUSED) return;
      await this.webhooks.publish(scan.tenantId, 'tracking_checker.scan.failed', {
        scan_id: scanId,
        url: scan.url,
        error: { code: failure.code, message: failure.message },
      });
    }
  }
}

/** What is stored with a failed scan: the target's fault in its own words, ours as a plain sentence. */
function failureOf(error: unknown): queries.ScanFailure {
  if (error instanceof ScanTargetRefusedError)
    return { code: queries.REFUSED, message: error.message, reason: error.code };
  if (error instanceof ScanTargetUnreachableError) return { code: error.code, message: error.message };
  return { code: TrackingCheckerCodes.scanFailed.code, message: 'The scan failed unexpectedly.' };
}
