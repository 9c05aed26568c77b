import { registrableDomain } from './detect.js';
import type { ScannerOptions } from './options.js';
import { runPagespeed } from './pagespeed.js';
import type { AiSummary, Language, PagespeedResult, ScanResult, StageStatus } from './schema.js';
import type { SsrfGuard } from './ssrf.js';
import { BuiltinSummaryProvider, OpenAiCompatibleProvider, type SummaryProvider } from './summary.js';
import type { WarningDraft } from './warnings.js';

export interface StageOutcome<T> {
  value: T | null;
  status: StageStatus;
  durationMs: number;
}

/**
 * Resolves with the promise's value, or rejects once `ms` has passed (the promise keeps running on its own). A limit
 * already used up (`ms` ≤ 0: the deadline passed before the work began) rejects at once and says so.
 */
export function hardLimit<T>(promise: Promise<T>, ms: number, code: string): Promise<T> {
  const limitMs = Math.max(0, Math.round(ms));
  const message =
    limitMs === 0
      ? `${code}: the time limit was used up before it could start`
      : `${code}: no answer within ${limitMs} ms`;
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(message), { code })), limitMs);
    }),
  ]);
}

export function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0].slice(0, 300);
}

/** Stage 3, on request: Lighthouse's performance score, within what is left of the scan's time. */
export async function pagespeedStage(
  url: string,
  options: Pick<ScannerOptions, 'chromiumPath' | 'hostResolverRules' | 'ignoreCertSpkiList'>,
  guard: SsrfGuard,
  deadline: number,
  signal?: AbortSignal,
): Promise<StageOutcome<PagespeedResult> & { warnings: WarningDraft[] }> {
  const started = Date.now();
  const timeoutMs = deadline - started;
  if (timeoutMs < 5_000) {
    return {
      value: null,
      status: 'skipped',
      durationMs: 0,
      warnings: [{ code: 'pagespeed_timeout', facts: { kind: 'pagespeed_no_time' } }],
    };
  }
  const abort = new AbortController();
  const forward = () => abort.abort();
  signal?.addEventListener('abort', forward, { once: true });
  try {
    const outcome = await hardLimit(
      runPagespeed(url, {
        chromiumPath: options.chromiumPath,
        hostResolverRules: options.hostResolverRules,
        ignoreCertSpkiList: options.ignoreCertSpkiList,
        guard,
        timeoutMs,
        signal: abort.signal,
      }),
      timeoutMs + 3_000,
      'pagespeed_timeout',
    );
    const warnings: WarningDraft[] = [];
    if (outcome.error)
      warnings.push({
        code: outcome.error.code,
        facts: { kind: 'pagespeed', detail: outcome.error.message, fromLighthouse: true },
      });
    if (outcome.refused.length)
      warnings.push({
        code: 'requests_refused',
        facts: { kind: 'refused', count: outcome.refused.length, lighthouse: true },
      });
    return {
      value: outcome.result,
      status: outcome.result ? 'ok' : outcome.error?.code === 'pagespeed_timeout' ? 'timeout' : 'failed',
      durationMs: Date.now() - started,
      warnings,
    };
  } catch (error) {
    abort.abort();
    const timedOut = (error as { code?: string }).code === 'pagespeed_timeout';
    return {
      value: null,
      status: timedOut ? 'timeout' : 'failed',
      durationMs: Date.now() - started,
      warnings: [
        {
          code: timedOut ? 'pagespeed_timeout' : 'pagespeed_failed',
          facts: { kind: 'pagespeed', detail: messageOf(error), fromLighthouse: false },
        },
      ],
    };
  } finally {
    signal?.removeEventListener('abort', forward);
  }
}

/** Stage 4, on request: the summary, from the configured AI provider or else the built-in writer. */
export async function summaryStage(
  result: ScanResult,
  language: Language,
  siteDomain: string,
  deadline: number,
  ai: ScannerOptions['ai'],
): Promise<StageOutcome<AiSummary> & { warnings: WarningDraft[] }> {
  const started = Date.now();
  const builtin = new BuiltinSummaryProvider((url) =>
    url === result.final_url ? siteDomain : registrableDomain(new URL(url).hostname),
  );
  const warnings: WarningDraft[] = [];
  const provider: SummaryProvider | null = ai ? new OpenAiCompatibleProvider(ai) : null;
  if (provider) {
    const timeoutMs = Math.min(20_000, deadline - started);
    if (timeoutMs >= 1_000) {
      try {
        const value = await provider.summarize(result, language, { timeoutMs });
        return { value, status: 'ok', durationMs: Date.now() - started, warnings };
      } catch (error) {
        warnings.push({ code: 'ai_summary_fallback', facts: { kind: 'ai_fallback', detail: messageOf(error) } });
      }
    } else {
      warnings.push({ code: 'ai_summary_fallback', facts: { kind: 'ai_fallback' } });
    }
  }
  const value = await builtin.summarize(result, language);
  return { value, status: provider ? 'partial' : 'ok', durationMs: Date.now() - started, warnings };
}
