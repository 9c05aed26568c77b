import type { Database } from '../../db/index.js';
import type { ScanRow } from '../../db/schema.js';
import type { AuthContext } from '../../http/context.js';
import { newId } from '../../lib/ids.js';
import type { JobEngine } from '../../jobs/engine.js';
import { JobTimeoutError } from '../../jobs/errors.js';
import { serviceUnavailable } from '../../lib/errors.js';
import { ScanTargetRefusedError, ScanTargetUnreachableError } from '../../scanner/errors.js';
import { type Language, LANGUAGES, type ScanResult } from '../../scanner/schema.js';
import type { TenantService } from '../tenants/service.js';
import type { EventLog } from '../events/service.js';
import { TrackingCheckerErrors } from './errors.js';
import * as queries from './queries.js';
import type { ScanRequestInput, ScanStateDto, ScanSummaryDto } from './schemas.js';
import { ANONYMOUS_SCANS, SCANS, type AnonymousScanJob, type AnonymousScanOutcome, type ScanJob } from './worker.js';
import type { ListWindow } from '../../lib/list-window.js';

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
  events: EventLog;
  tenants: TenantService;
  jobs: Pick<JobEngine, 'send' | 'call'>;
}

/** How often a synchronous scan request looks whether its worker has finished. */
const SYNC_POLL_MS = 100;

export class TrackingCheckerService {
  private readonly database: Database;
  private readonly events: EventLog;
  private readonly tenants: TenantService;
  private readonly jobs: Pick<JobEngine, 'send' | 'call'>;

  constructor(
    { database, events, tenants, jobs }: TrackingCheckerDependencies,
    private readonly settings: {
      scanTimeoutMs: number;
      /** How long a synchronous request waits for a worker beyond the scan cap (queue wait). */
      syncWaitMs: number;
    },
  ) {
    this.database = database;
    this.events = events;
    this.tenants = tenants;
    this.jobs = jobs;
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
      await this.events.record(
        scan.tenantId,
        'tracking_checker.scan.failed',
        { type: 'scan', id: scan.id },
        {
          scan_id: scan.id,
          url: scan.url,
          error: INTERRUPTED_ERROR,
        },
      );
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
   * Starts a scan for the tenant: reserves a slot of the hourly quota (exactly, under concurrency) and queues the scan
   * for a worker. `respondAsync`: answers at once with the queued scan; otherwise waits for the worker's result, as
   * the synchronous API always did. `onQuota` receives the quota state for the response headers, also when refused.
   */
  async scan(
    auth: AuthContext,
    input: ScanRequestInput,
    onQuota: (quota: ScanQuota) => void,
    { respondAsync = false, requestId }: { respondAsync?: boolean; requestId?: string } = {},
  ): Promise<{ accepted: ScanStateDto } | { completed: ScanResult & { scan_id: string; language: Language } }> {
    const url = parseScanUrl(input.url);
    const language = resolveLanguage(input.language);
    const options = {
      ai_summary: input.ai_summary ?? false,
      pagespeed: input.pagespeed ?? false,
      consent_check: input.consent_check ?? false,
      pages: input.pages ?? 1,
    };
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
        status: 'queued',
      },
      limit,
    );
    const quota = quotaOf(limit, usage);
    onQuota(quota);
    if (!reserved) {
      throw TrackingCheckerErrors.quotaExceeded(limit, SCAN_WINDOW_SECONDS, quota.resetSeconds);
    }
    const job: ScanJob = { scanId: id, waited: !respondAsync, requestId };
    await this.jobs.send(SCANS, job);
    if (respondAsync) return { accepted: await this.state(auth, id) };
    const row = await this.waitForEnd(id);
    if (row.status === 'completed' && row.result) {
      const result = row.result;
      // A partial result (no browser stage) leaves the quota (queries.countsTowardQuota).
      if (result.partial) onQuota({ ...quota, remaining: quota.remaining + 1 });
      return { completed: { scan_id: id, language, ...result } };
    }
    const failure = row.error;
    if (failure?.code === queries.REFUSED) {
      await queries.releaseScan(this.database.db, id);
      onQuota({ ...quota, remaining: quota.remaining + 1 });
      throw TrackingCheckerErrors.urlNotAllowed(
        new ScanTargetRefusedError(failure.reason ?? 'private_address', failure.message),
      );
    }
    if (failure?.code === TrackingCheckerErrors.targetUnreachable.code) {
      // The page was never reached: the stored failure leaves the quota (queries.countsTowardQuota).
      onQuota({ ...quota, remaining: quota.remaining + 1 });
      throw TrackingCheckerErrors.targetUnreachable(new ScanTargetUnreachableError(failure.message), id);
    }
    throw new Error(`scan ${id} failed: ${failure?.message ?? 'unknown error'}`);
  }

  /** Waits for a worker to end the scan (a queue wait plus the scan cap, then 503: the scan goes on). */
  private async waitForEnd(id: string): Promise<ScanRow> {
    const deadline = Date.now() + this.settings.scanTimeoutMs + this.settings.syncWaitMs;
    for (;;) {
      const row = await queries.findScanById(this.database.db, id);
      if (row && (row.status === 'completed' || row.status === 'failed')) return row;
      if (Date.now() > deadline) throw TrackingCheckerErrors.stillQueued(id);
      await new Promise((resolve) => setTimeout(resolve, SYNC_POLL_MS));
    }
  }

  /** The public checker: same scanner (on a worker), no tenant, nothing stored (the caller limits it per IP). */
  async scanAnonymously(input: ScanRequestInput, requestId?: string): Promise<ScanResult> {
    const url = parseScanUrl(input.url);
    const job: AnonymousScanJob = {
      requestId,
      url: url.toString(),
      aiSummary: input.ai_summary ?? false,
      pagespeed: input.pagespeed ?? false,
      consentCheck: input.consent_check ?? false,
      pages: input.pages ?? 1,
      language: resolveLanguage(input.language),
    };
    let outcome: AnonymousScanOutcome;
    try {
      outcome = await this.jobs.call(ANONYMOUS_SCANS, job, this.settings.scanTimeoutMs + this.settings.syncWaitMs);
    } catch (error) {
      if (error instanceof JobTimeoutError) throw serviceUnavailable(error);
      throw error;
    }
    if ('refused' in outcome)
      throw TrackingCheckerErrors.urlNotAllowed(
        new ScanTargetRefusedError(outcome.refused.reason, outcome.refused.message),
      );
    if ('unreachable' in outcome)
      throw TrackingCheckerErrors.targetUnreachable(new ScanTargetUnreachableError(outcome.unreachable.message));
    return outcome.result;
  }

  async list(auth: AuthContext, window: ListWindow) {
    const { rows, total } = await queries.listScans(this.database.db, auth.tenantId, window);
    const results: ScanSummaryDto[] = rows.map((row) => ({
      scan_id: row.id,
      url: row.url,
      language: row.language,
      ai_summary: row.options.ai_summary,
      pagespeed: row.options.pagespeed,
      pages: row.options.pages ?? 1,
      status: row.status,
      stage: row.status === 'running' ? (row.stage ?? 'scanning') : null,
      tracker_count: row.trackerCount === null ? null : Number(row.trackerCount),
      error: row.error ?? null,
      created_at: row.createdAt.toISOString(),
      completed_at: row.completedAt?.toISOString() ?? null,
    }));
    return { results, total };
  }

  /** The scan resource: its state, and once completed its result (the same shape as the synchronous answer). */
  async state(auth: AuthContext, id: string): Promise<ScanStateDto> {
    const row: ScanRow | null = await queries.findScan(this.database.db, auth.tenantId, id);
    if (!row) throw TrackingCheckerErrors.notFound(id);
    const base = {
      scan_id: row.id,
      created_at: row.createdAt.toISOString(),
      started_at: row.startedAt?.toISOString() ?? null,
      completed_at: row.completedAt?.toISOString() ?? null,
    };
    if (row.status === 'completed' && row.result)
      return {
        ...row.result,
        language: row.language,
        ...base,
        status: 'completed',
      };
    if (row.status === 'failed') {
      const { code, message } = row.error ?? { code: TrackingCheckerErrors.failed.code, message: 'unknown error' };
      return { ...base, status: 'failed', url: row.url, error: { code, message } };
    }
    return {
      ...base,
      status: row.status as 'queued' | 'running',
      stage: row.status === 'running' ? (row.stage ?? 'scanning') : null,
      url: row.url,
    };
  }
}
