import { ScanTargetRefusedError } from './errors.js';
import { fetchPage, type FetchOutcome } from './fetch.js';
import type { ScannerOptions } from './options.js';
import { hardLimit, messageOf, type StageOutcome } from './optional-stages.js';
import { parseHtml, type StaticFindings } from './parse.js';
import type { Language, StageStatus } from './schema.js';
import type { SsrfGuard } from './ssrf.js';
import type { FetchWarningCode } from './warning-codes.js';
import type { WarningDraft } from './warnings.js';

/** Stage 1 of a scan: the plain HTTP fetch and the static analysis of its HTML. */

export const LOCALES: Record<Language, string> = {
  en: 'en-US',
  de: 'de-DE',
  fr: 'fr-FR',
  es: 'es-ES',
  it: 'it-IT',
  nl: 'nl-NL',
  pt: 'pt-PT',
  pl: 'pl-PL',
};
const STAGE1_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const MAX_REDIRECTS = 5;

export async function stageFetch(
  target: URL,
  guard: SsrfGuard,
  deadline: number,
  language: Language,
  signal: AbortSignal,
  options: ScannerOptions,
): Promise<StageOutcome<StaticFindings> & { outcome: FetchOutcome | null; warnings: WarningDraft[] }> {
  const started = Date.now();
  const warnings: WarningDraft[] = [];
  const timeoutMs = Math.max(1_000, Math.min(20_000, deadline - started));
  const outcome = await hardLimit(
    fetchPage(target, {
      guard,
      maxPageBytes: options.maxPageBytes,
      maxRedirects: MAX_REDIRECTS,
      timeoutMs,
      hopTimeoutMs: Math.min(10_000, timeoutMs),
      extraCaCertificates: options.extraCaCertificates,
      userAgent: STAGE1_USER_AGENT,
      acceptLanguage: `${LOCALES[language]},${language};q=0.9,en;q=0.5`,
      signal,
    }),
    timeoutMs + 2_000,
    'fetch_timeout',
  ).catch((error: unknown) => {
    if (error instanceof ScanTargetRefusedError) throw error;
    return {
      finalUrl: target.href,
      redirects: [],
      status: null,
      contentType: null,
      html: null,
      truncated: null,
      bytes: 0,
      error: { code: 'fetch_timeout', message: messageOf(error) },
      timedOut: true,
    } satisfies FetchOutcome;
  });
  let findings: StaticFindings | null = null;
  if (outcome.html !== null) {
    try {
      findings = parseHtml(outcome.html, outcome.finalUrl);
    } catch (error) {
      warnings.push({ code: 'parse_failed', facts: { kind: 'parse_failed', detail: messageOf(error) } });
    }
  }
  if (outcome.truncated === 'size') {
    warnings.push({ code: 'page_truncated', facts: { kind: 'truncated', bytes: options.maxPageBytes } });
  }
  if (outcome.error) {
    const code: FetchWarningCode =
      outcome.error.code === 'too_many_redirects' || outcome.error.code === 'not_html'
        ? outcome.error.code
        : outcome.timedOut
          ? 'fetch_timeout'
          : 'fetch_failed';
    const receivedBytes = outcome.truncated === 'timeout' ? outcome.bytes : undefined;
    warnings.push({ code, facts: { kind: 'fetch', code, detail: outcome.error.message, receivedBytes } });
  }
  if (outcome.status && outcome.status >= 400) {
    warnings.push({ code: 'http_error_status', facts: { kind: 'http_status', status: outcome.status } });
  }
  let status: StageStatus;
  if (findings && !outcome.error && !outcome.truncated) status = 'ok';
  else if (findings) status = outcome.timedOut ? 'timeout' : 'partial';
  else status = outcome.timedOut ? 'timeout' : 'failed';
  return { value: findings, status, durationMs: Date.now() - started, outcome, warnings };
}
