import type { Database } from '../../db/index.js';
import type { ScanRow } from '../../db/schema.js';
import type { AuthContext } from '../../http/context.js';
import { newId } from '../../lib/ids.js';
import { ScanTargetRefusedError, ScanTargetUnreachableError } from '../../scanner/errors.js';
import type { Scanner } from '../../scanner/index.js';
import { type Language, LANGUAGES, type ScanResult } from '../../scanner/schema.js';
import type { TenantService } from '../tenants/service.js';
import type { WebhookService } from '../webhooks/service.js';
import { TrackingCheckerCodes, TrackingCheckerErrors } from './errors.js';
import * as queries from './queries.js';
import type { ScanRequestInput, ScanSummaryDto } from './schemas.js';

/** The request's logger: failures of ours during a scan are logged with the request id, never sent. */
export interface ScanLog {
  warn(object: object, message: string): void;
}

export const SCAN_WINDOW_SECONDS = 3600;
export const DEFAULT_HOURLY_SCANS = 60;
/** Time past the scan cap before a `running` scan counts as interrupted (its writes and webhook may lag the cap). */
export const INTERRUPTED_AFTER_CAP_MS = 60_000;
const INTERRUPTED_ERROR = {
  code: queries.INTERRUPTED,
  message:
    'The scan was interrupted (the server stopped) before it finished; it does not count against the hourly quota.',
};

export interface ScanQuota {
  limit: number;
  remaining: number;
  /** Seconds until the oldest scan in the window leaves it (a slot frees). */
  resetSeconds: number;
}

/** Checks the URL before any quota is spent: an absolute https URL with a host and no credentials. */
export function parseScanUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw TrackingCheckerErrors.invalidUrl('url must be an absolute URL such as https://example.com/.');
  }
  if (url.protocol !== 'https:')
    throw TrackingCheckerErrors.invalidUrl(`url must use https, not ${url.protocol.replace(':', '')}.`);
  if (url.username || url.password) throw TrackingCheckerErrors.invalidUrl('url must not contain credentials.');
  if (!url.hostname) throw TrackingCheckerErrors.invalidUrl('url must have a host name.');
  return url;
}

const logInternalError = (log: ScanLog | undefined) => (error: unknown) =>
  log?.warn({ err: error }, 'scan stage failed');

function quotaOf(limit: number, usage: queries.QuotaUsage): ScanQuota {
  const resetMs = usage.oldest
    ? usage.oldest.getTime() + SCAN_WINDOW_SECONDS * 1000 - Date.now()
    : SCAN_WINDOW_SECONDS * 1000;
  return { limit, remaining: Math.max(0, limit - usage.used), resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)) };
}

/** The scan quota as items of the IETF `RateLimit-Policy` and `RateLimit` header lists. */
export function scanQuotaHeaderItems(quota: ScanQuota): { policy: string; state: string } {
  return {
    policy: `"scan-hourly";q=${quota.limit};w=${SCAN_WINDOW_SECONDS}`,
    state: `"scan-hourly";r=${quota.remaining};t=${quota.resetSeconds}`,
  };
}

/** The supported language of a BCP 47 tag, case-insensitive: its primary language (`de-DE`, `DE` → `de`). */
export function resolveLanguage(tag = 'en'): Language {
  const primary = tag.split('-')[0].toLowerCase();
  if ((LANGUAGES as readonly string[]).includes(primary)) return primary as Language;
  throw TrackingCheckerErrors.unsupportedLanguage(tag, LANGUAGES);
}

export interface TrackingCheckerDependencies {
  database: Database;
  scanner: Scanner;
  webhooks: WebhookService;
  tenants: TenantService;
}

export class TrackingCheckerService {
  private readonly database: Database;
  private readonly scanner: Scanner;
  private readonly webhooks: WebhookService;
  private readonly tenants: TenantService;

  constructor(
    { database, scanner, webhooks, tenants }: TrackingCheckerDependencies,
    private readonly settings: { scanTimeoutMs: number },
  ) {
    this.database = database;
    this.scanner = scanner;
    this.webhooks = webhooks;
    this.tenants = tenants;
  }

  /**
   * Fails the scans a crashed or killed process left `running` (they would count against the quota forever),
   * gives back their quota slots and announces each with `tracking_checker.scan.failed`.
   */
  async failInterruptedScans(): Promise<number> {
    const interrupted = await queries.failStaleScans(
      this.database.db,
      this.settings.scanTimeoutMs + INTERRUPTED_AFTER_CAP_MS,
      INTERRUPTED_ERROR,
    );
    for (const scan of interrupted) {
      await this.webhooks.publish(scan.tenantId, 'tracking_checker.scan.failed', {
        scan_id: scan.id,
        url: scan.url,
        error: INTERRUPTED_ERROR,
      });
    }
    return interrupted.length;
  }

  /** The tenant's hourly scan quota as it stands now. */
  async quota(tenantId: string): Promise<ScanQuota> {
    const [limit, usage] = await Promise.all([
      this.hourlyQuota(tenantId),
      queries.quotaUsage(this.database.db, tenantId),
    ]);
    return quotaOf(limit, usage);
  }

  private async hourlyQuota(tenantId: string): Promise<number> {
    const value = (await this.tenants.features(tenantId)).tracking_checker_api_hourly;
    return typeof value === 'number' ? value : DEFAULT_HOURLY_SCANS;
  }

  /**
   * Runs a scan for the tenant: reserves a slot of the hourly quota (exactly, under concurrency), scans,
   * stores the result. `onQuota` receives the quota state for the response headers, also when refused.
   */
  async scan(
    auth: AuthContext,
    input: ScanRequestInput,
    onQuota: (quota: ScanQuota) => void,
    log?: ScanLog,
  ): Promise<ScanResult & { scan_id: string; language: Language }> {
    const url = parseScanUrl(input.url);
    const language = resolveLanguage(input.language);
    const options = { ai_summary: input.ai_summary ?? false, pagespeed: input.pagespeed ?? false };
    const limit = await this.hourlyQuota(auth.tenantId);
    const id = newId('scan');
    const { reserved, usage } = await queries.reserveScan(
      this.database.db,
      {
        id,
        tenantId: auth.tenantId,
        apiKeyId: auth.apiKeyId,
        url: url.toString(),
        language,
        options,
        status: 'running',
      },
      limit,
    );
    const quota = quotaOf(limit, usage);
    onQuota(quota);
    if (!reserved) {
      throw TrackingCheckerErrors.quotaExceeded(limit, SCAN_WINDOW_SECONDS, quota.resetSeconds);
    }
    try {
      const result = await this.scanner.scan({
        url: url.toString(),
        aiSummary: options.ai_summary,
        pagespeed: options.pagespeed,
        language,
        onInternalError: logInternalError(log),
      });
      await queries.completeScan(this.database.db, id, result as unknown as Record<string, unknown>);
      await this.webhooks.publish(auth.tenantId, 'tracking_checker.scan.completed', {
        scan_id: id,
        url: result.url,
        final_url: result.final_url,
        trackers: result.trackers.length,
      });
      return { scan_id: id, language, ...result };
    } catch (error) {
      if (error instanceof ScanTargetRefusedError) {
        await queries.releaseScan(this.database.db, id);
        onQuota({ ...quota, remaining: quota.remaining + 1 });
        throw TrackingCheckerErrors.urlNotAllowed(error);
      }
      const failure =
        error instanceof ScanTargetUnreachableError
          ? { code: error.code, message: error.message }
          : { code: TrackingCheckerCodes.scanFailed.code, message: 'The scan failed unexpectedly.' };
      await queries.failScan(this.database.db, id, failure);
      if (error instanceof ScanTargetUnreachableError) {
        // The page was never reached: the stored failure leaves the quota (queries.countsTowardQuota).
        onQuota({ ...quota, remaining: quota.remaining + 1 });
        throw TrackingCheckerErrors.targetUnreachable(error, id);
      }
      throw error;
    }
  }

  /** The public checker: same scanner, no tenant, nothing stored (the caller limits it per IP). */
  async scanAnonymously(input: ScanRequestInput, log?: ScanLog): Promise<ScanResult> {
    const url = parseScanUrl(input.url);
    try {
      return await this.scanner.scan({
        url: url.toString(),
        aiSummary: input.ai_summary ?? false,
        pagespeed: input.pagespeed ?? false,
        language: resolveLanguage(input.language),
        onInternalError: logInternalError(log),
      });
    } catch (error) {
      if (error instanceof ScanTargetRefusedError) throw TrackingCheckerErrors.urlNotAllowed(error);
      if (error instanceof ScanTargetUnreachableError) throw TrackingCheckerErrors.targetUnreachable(error);
      throw error;
    }
  }

  async list(auth: AuthContext, limit: number, offset: number) {
    const { rows, total } = await queries.listScans(this.database.db, auth.tenantId, limit, offset);
    const results: ScanSummaryDto[] = rows.map((row) => ({
      scan_id: row.id,
      url: row.url,
      language: row.language as Language,
      ai_summary: row.options.ai_summary,
      pagespeed: row.options.pagespeed,
      status: row.status as ScanSummaryDto['status'],
      tracker_count: row.trackerCount === null ? null : Number(row.trackerCount),
      error: row.error ?? null,
      created_at: row.createdAt.toISOString(),
      completed_at: row.completedAt?.toISOString() ?? null,
    }));
    return { results, total };
  }

  async get(auth: AuthContext, id: string): Promise<ScanResult & { scan_id: string; language: Language }> {
    const row: ScanRow | null = await queries.findScan(this.database.db, auth.tenantId, id);
    if (!row) throw TrackingCheckerErrors.notFound(id);
    if (row.status === 'running') throw TrackingCheckerErrors.inProgress();
    if (row.status === 'failed' || !row.result) {
      throw TrackingCheckerErrors.failed(row.error);
    }
    return { scan_id: row.id, language: row.language as Language, ...(row.result as unknown as ScanResult) };
  }
}
