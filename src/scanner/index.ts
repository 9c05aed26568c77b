import { BrowserPool, CaptureSession, capturePage, type RuntimeFindings } from './browser.js';
import { detect, registrableDomain } from './detect.js';
import { BrowserUnavailableError, ScanTargetRefusedError, ScanTargetUnreachableError } from './errors.js';
import { LOCALES, stageFetch } from './fetch-stage.js';
import { consentNeverGranted, estimateLoss } from './loss.js';
import { LANGUAGES, type Language, type ScanResult, type ScanWarning } from './schema.js';
import { localiseWarning, type WarningDraft } from './warnings.js';
import { SsrfGuard } from './ssrf.js';
import { hardLimit, messageOf, pagespeedStage, summaryStage, type StageOutcome } from './optional-stages.js';
import { buildConsentCheck } from './consent-check.js';
import type { ConsentAction } from './autoconsent.js';
import { detectBehaviours } from './behaviours.js';
import { DEFAULT_SCANNER_OPTIONS, type ScannerOptions } from './options.js';
import {
  MAX_PAGES,
  describePages,
  mergeRuntime,
  mergeStatic,
  pickInternalLinks,
  visitPages,
  type PageVisit,
} from './pages.js';

export { LANGUAGES, ScanResultSchema } from './schema.js';
export type {
  Language,
  ScanResult,
  ScanWarning,
  Tracker,
  Evidence,
  LossEstimate,
  AiSummary,
  PagespeedResult,
} from './schema.js';
export type { Behaviour } from './schema-behaviours.js';
export type { UnlistedTracker } from './schema-unlisted.js';
export {
  BrowserUnavailableError,
  ScanTargetRefusedError,
  ScanTargetUnreachableError,
  type ScanTargetRefusedCode,
} from './errors.js';
export { DEFAULT_HOST_RESOLVER_RULES } from './browser.js';
export { DEFAULT_SCANNER_OPTIONS, type ScannerOptions } from './options.js';
export { blockedAddressReason, type ResolveHost } from './ssrf.js';

export interface ScanRequest {
  url: string;
  aiSummary: boolean;
  pagespeed: boolean;
  language: Language;
  /** Also load the page after "reject all" and after "accept all" (autoconsent clicks) and compare. Default false. */
  consentCheck?: boolean;
  /**
   * Pages to scan, 1–5 (default 1): the start page, then internal pages linked from it, in one browser session and
   * within the scan's time limit; the result is merged, with `pages` listing each.
   */
  pages?: number;
  /** Receives a failure of ours (the browser could not start) for the log; the result describes it in plain words. */
  onInternalError?: (error: unknown) => void;
}

/** The browser stage produced nothing: its warning (always there then) says why, in the scan's language. */
function partialBecause(warnings: ScanWarning[]): NonNullable<ScanResult['partial']> {
  const reason = warnings.find((warning) => BROWSER_FAILURES.has(warning.code));
  return { code: reason?.code ?? 'browser_failed', message: reason?.message ?? 'The browser stage produced nothing.' };
}

const BROWSER_FAILURES = new Set(['browser_timeout', 'browser_failed', 'browser_busy']);
const AI_RESERVE_MS = 8_000;
const ASSEMBLY_RESERVE_MS = 300;

export class Scanner {
  readonly options: ScannerOptions;
  private readonly pool: BrowserPool;

  constructor(options: Partial<ScannerOptions> = {}) {
    this.options = {
      ...DEFAULT_SCANNER_OPTIONS,
      ...Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)),
    };
    if (!(this.options.browserConcurrency >= 1)) throw new RangeError('browserConcurrency must be at least 1');
    this.pool = new BrowserPool({
      chromiumPath: this.options.chromiumPath,
      concurrency: this.options.browserConcurrency,
      hostResolverRules: this.options.hostResolverRules,
      ignoreCertSpkiList: this.options.ignoreCertSpkiList,
    });
  }

  /** Browser scans running and waiting for a slot. */
  get browserStats(): { active: number; waiting: number } {
    return this.pool.stats;
  }

  async scan(request: ScanRequest): Promise<ScanResult> {
    if (!LANGUAGES.includes(request.language)) throw new RangeError(`language must be one of ${LANGUAGES.join(', ')}`);
    const pages = request.pages ?? 1;
    if (!Number.isInteger(pages) || pages < 1 || pages > MAX_PAGES)
      throw new RangeError(`pages must be an integer from 1 to ${MAX_PAGES}`);
    const started = Date.now();
    const scannedAt = new Date(started).toISOString();
    const deadline = started + this.options.scanTimeoutMs;
    const warnings: WarningDraft[] = [];
    const target = SsrfGuard.parseTarget(request.url);
    const guard = new SsrfGuard({
      allowPrivateNetworks: this.options.allowPrivateNetworks,
      resolveHost: this.options.resolveHost,
    });
    try {
      await guard.checkUrl(target);
    } catch (error) {
      if (error instanceof ScanTargetRefusedError) throw error;
      throw new ScanTargetUnreachableError(`Cannot resolve ${target.hostname}: ${messageOf(error)}`, { cause: error });
    }

    const reserve = request.aiSummary && this.options.ai ? AI_RESERVE_MS : 0;
    // Stages 1 and 2 run side by side until this point; what is left is for the summary and assembly.
    const stagesDeadline = Math.max(
      started + this.options.scanTimeoutMs * 0.4,
      deadline - reserve - ASSEMBLY_RESERVE_MS,
    );
    const abort = new AbortController();
    // Lighthouse runs beside stages 1 and 2 with its own budget (to the deadline, less half the AI reserve); `abort`
    // ends it when the scan fails. pagespeedStage never rejects.
    const pagespeedRun = request.pagespeed
      ? pagespeedStage(target.href, this.options, guard, deadline - (reserve ? reserve / 2 : 500), abort.signal)
      : null;
    const refusal = (error: unknown): never => {
      if (error instanceof ScanTargetRefusedError && !abort.signal.aborted) abort.abort(error);
      throw error;
    };
    const [fetched, browsed] = await Promise.allSettled([
      stageFetch(target, guard, stagesDeadline, request.language, abort.signal, this.options).catch(refusal),
      this.stageBrowser(target, guard, stagesDeadline, request, abort.signal).catch(refusal),
    ]);
    // The stages report their own failures; they only reject when the target (or a redirect of it) is refused.
    if (fetched.status === 'rejected') throw fetched.reason;
    if (browsed.status === 'rejected') throw browsed.reason;
    const fetchStage = fetched.value;
    const browserStage = browsed.value;
    warnings.push(...fetchStage.warnings, ...browserStage.warnings);
    const outcome = fetchStage.outcome;
    const runtime = browserStage.value;
    // Neither stage produced anything (failed or timed out): there is no result to show, only why.
    if (!fetchStage.value && !runtime) {
      abort.abort();
      const fetchError = outcome?.error?.message ?? (fetchStage.status === 'timeout' ? 'no answer in time' : 'failed');
      throw new ScanTargetUnreachableError(
        `The page could not be loaded within the scan's time limit: fetch: ${fetchError}; browser: ${browserStage.error ?? browserStage.status}`,
        { cause: browserStage.failure },
      );
    }

    const finalUrl = runtime?.finalUrl ?? outcome?.finalUrl ?? target.href;
    const siteDomain = registrableDomain(new URL(finalUrl).hostname);
    const visits = browserStage.morePages ?? [];
    const startVisit = (): PageVisit => ({
      url: request.url,
      finalUrl,
      status: runtime ? browserStage.status : fetchStage.status,
      httpStatus: outcome?.status ?? null,
      durationMs: Math.max(fetchStage.durationMs, browserStage.durationMs),
      static: fetchStage.value,
      runtime,
      error: browserStage.error,
    });
    const merged = mergeRuntime([runtime, ...visits.map((visit) => visit.runtime)]);
    const detection = detect(
      finalUrl,
      mergeStatic([fetchStage.value, ...visits.map((visit) => visit.static)]),
      merged,
      request.language,
    );
    warnings.push(...detection.warnings);
    const lossEstimate = estimateLoss({
      trackers: detection.trackers,
      consentMechanism: !!detection.consent.cmp || detection.consent.banner_detected === true,
      consentNeverGranted: consentNeverGranted(detection.consent),
      language: request.language,
    });

    const result: ScanResult = {
      url: request.url,
      final_url: finalUrl,
      scanned_at: scannedAt,
      duration_ms: 0,
      stages: {
        fetch: {
          status: fetchStage.status,
          duration_ms: fetchStage.durationMs,
          ...(outcome?.status ? { http_status: outcome.status } : {}),
          redirects: outcome?.redirects ?? [],
        },
        browser: {
          status: browserStage.status,
          duration_ms: browserStage.durationMs,
          ...(runtime?.observation
            ? {
                observation: {
                  load_ms: runtime.observation.loadMs,
                  window_ms: runtime.observation.windowMs,
                  ended_by: runtime.observation.endedBy,
                  interactions: runtime.observation.interactions,
                },
              }
            : {}),
        },
      },
      trackers: detection.trackers,
      ...(detection.unlistedTrackers ? { unlisted_trackers: detection.unlistedTrackers } : {}),
      consent: detection.consent,
      server_side_tagging: detection.serverSide,
      ...(detection.tagManagerConfigs ? { tag_manager_configs: detection.tagManagerConfigs } : {}),
      cookies: detection.cookies,
      loss_estimate: lossEstimate,
      ai_summary: null,
      pagespeed: null,
      ...(request.consentCheck
        ? { consent_check: buildConsentCheck(finalUrl, runtime, browserStage.consentRuns, request.language) }
        : {}),
      ...(merged ? { behaviours: detectBehaviours(merged) } : {}),
      ...(pages > 1 ? { pages: describePages(startVisit(), visits, pages, warnings, request.language) } : {}),
      warnings: [], // written in the scan's language once every stage has reported
    };

    if (pagespeedRun) {
      const pagespeed = await pagespeedRun;
      result.pagespeed = pagespeed.value;
      result.stages.pagespeed = { status: pagespeed.status, duration_ms: pagespeed.durationMs };
      warnings.push(...pagespeed.warnings);
    }
    if (request.aiSummary) {
      const summary = await summaryStage(result, request.language, siteDomain, deadline, this.options.ai ?? null);
      result.ai_summary = summary.value;
      result.stages.summary = { status: summary.status, duration_ms: summary.durationMs };
      warnings.push(...summary.warnings);
    }
    result.duration_ms = Date.now() - started;
    if (Date.now() > deadline) {
      warnings.push({ code: 'scan_time_limit', facts: { kind: 'time_limit', ms: this.options.scanTimeoutMs } });
    }
    result.warnings = warnings.map((warning) => localiseWarning(request.language, warning));
    if (!runtime) result.partial = partialBecause(result.warnings);
    return result;
  }

  private async stageBrowser(
    target: URL,
    guard: SsrfGuard,
    deadline: number,
    request: ScanRequest,
    signal: AbortSignal,
  ): Promise<
    StageOutcome<RuntimeFindings> & {
      warnings: WarningDraft[];
      error: string | null;
      failure?: unknown;
      consentRuns?: { rejected: RuntimeFindings | null; accepted: RuntimeFindings | null };
      morePages?: PageVisit[];
    }
  > {
    const started = Date.now();
    const warnings: WarningDraft[] = [];
    let slot: Awaited<ReturnType<BrowserPool['acquire']>> | null = null;
    const stageAbort = new AbortController();
    const forward = () => stageAbort.abort(signal.reason);
    signal.addEventListener('abort', forward, { once: true });
    try {
      slot = await this.pool.acquire(deadline - 3_000).catch((error: unknown) => {
        throw (error as { code?: string }).code === 'browser_busy' ? error : new BrowserUnavailableError(error);
      });
      const browser = slot.browser;
      const sessionOptions = {
        guard,
        locale: LOCALES[request.language],
        hostRules: this.options.hostResolverRules,
        signal: stageAbort.signal,
      };
      const pageOptions = (pageDeadline: number) => ({
        deadline: pageDeadline,
        observationCapMs: this.options.observationCapMs,
        quietMs: 700,
        longLivedMs: 1_500,
      });
      const limited = <T>(run: Promise<T>, pageDeadline: number) =>
        hardLimit(run, pageDeadline - Date.now() + 3_000, 'browser_timeout');
      const capture = (consentAction: ConsentAction) =>
        limited(
          capturePage(browser, target.href, { ...sessionOptions, ...pageOptions(deadline), consentAction }),
          deadline,
        );
      // The consent check's runs share the browser and the deadline (one scan): parallel contexts.
      const clicked = (action: ConsentAction) =>
        capture(action).catch((error: unknown) => {
          if (error instanceof ScanTargetRefusedError) throw error;
          return null;
        });
      // The start page, then the internal pages it links to, as one visitor: one session (context) for all.
      const visit = async () => {
        const session = await CaptureSession.open(browser, sessionOptions);
        try {
          const start = await limited(session.capture(target.href, pageOptions(deadline)), deadline);
          const links = pickInternalLinks(start.finalUrl, start.links ?? [], (request.pages ?? 1) - 1);
          const morePages = await visitPages(links, {
            capture: (url, pageDeadline) =>
              limited(session.capture(url, { ...pageOptions(pageDeadline), typeIntoForms: false }), pageDeadline),
            guard,
            language: request.language,
            deadline,
            signal: stageAbort.signal,
            options: this.options,
          });
          return { start, morePages };
        } finally {
          await session.close();
        }
      };
      const [{ start: findings, morePages }, rejected, accepted] = await Promise.all([
        visit(),
        request.consentCheck ? clicked('optOut') : null,
        request.consentCheck ? clicked('optIn') : null,
      ]);
      const consentRuns = request.consentCheck ? { rejected, accepted } : undefined;
      if (findings.timedOut) {
        warnings.push({ code: 'browser_timeout', facts: { kind: 'browser_partial' } });
      } else if (findings.observation?.endedBy === 'cap') {
        warnings.push({
          code: 'observation_cut_short',
          facts: { kind: 'observation_cut', ms: findings.observation.windowMs },
        });
      }
      if (consentRuns && [rejected, accepted].some((run) => !run || run.timedOut))
        warnings.push({ code: 'consent_check_cut_short', facts: { kind: 'consent_run_cut' } });
      if (findings.problems.length) {
        warnings.push({
          code: 'browser_incomplete',
          facts: { kind: 'browser_incomplete', detail: findings.problems.join('; ').slice(0, 500) },
        });
      }
      return {
        value: findings,
        status: findings.timedOut ? 'timeout' : 'ok',
        durationMs: Date.now() - started,
        warnings,
        error: null,
        consentRuns,
        morePages,
      };
    } catch (error) {
      if (error instanceof ScanTargetRefusedError) throw error;
      if (error instanceof BrowserUnavailableError) request.onInternalError?.(error);
      stageAbort.abort();
      const code = (error as { code?: string }).code;
      const timedOut = code === 'browser_timeout' || code === 'browser_busy';
      warnings.push({
        code: code === 'browser_busy' ? 'browser_busy' : timedOut ? 'browser_timeout' : 'browser_failed',
        facts: { kind: 'browser_failed', timedOut, detail: messageOf(error) },
      });
      return {
        value: null,
        status: timedOut ? 'timeout' : 'failed',
        durationMs: Date.now() - started,
        warnings,
        error: messageOf(error),
        failure: error,
      };
    } finally {
      signal.removeEventListener('abort', forward);
      slot?.release();
    }
  }

  /** Closes the shared browser. Scans still running fail. */
  async close(): Promise<void> {
    await this.pool.close();
  }
}
