import { LOCALES } from './locales/index.js';
import type { WarningTexts } from './locales/texts.js';
import type { Language, ScanWarning } from './schema.js';
import type { FetchWarningCode } from './warning-codes.js';

/**
 * Scan warnings in the requested language. Stages record a warning's code and the facts it is made of;
 * `localiseWarning` writes it in the scan's language at the end. Technical details (error texts from the
 * network or the browser) are quoted as they are.
 */
export type WarningFacts =
  | { kind: 'refused'; count: number; example?: string; lighthouse?: boolean }
  | { kind: 'consent_without_interaction' }
  | { kind: 'time_limit'; ms: number }
  | { kind: 'parse_failed'; detail: string }
  | { kind: 'truncated'; bytes: number }
  | { kind: 'fetch'; code: FetchWarningCode; detail: string; receivedBytes?: number }
  | { kind: 'http_status'; status: number }
  | { kind: 'browser_partial' }
  | { kind: 'consent_run_cut' }
  | { kind: 'pages_fewer'; asked: number; found: number }
  | { kind: 'pages_skipped'; count: number }
  | { kind: 'observation_cut'; ms: number }
  | { kind: 'browser_incomplete'; detail: string }
  | { kind: 'browser_failed'; timedOut: boolean; detail: string }
  | { kind: 'pagespeed_no_time' }
  | { kind: 'pagespeed'; detail: string; fromLighthouse: boolean }
  | { kind: 'ai_fallback'; detail?: string };

export interface WarningDraft {
  code: string;
  facts: WarningFacts;
}

function write(texts: WarningTexts, facts: WarningFacts): string {
  switch (facts.kind) {
    case 'refused':
      return (facts.lighthouse ? 'Lighthouse: ' : '') + texts.refused(facts.count, facts.example);
    case 'consent_without_interaction':
      return texts.consentWithoutInteraction;
    case 'time_limit':
      return texts.timeLimit(facts.ms);
    case 'parse_failed':
      return texts.parseFailed(facts.detail);
    case 'truncated':
      return texts.truncated(facts.bytes);
    case 'fetch': {
      const lead =
        facts.code === 'fetch_timeout'
          ? texts.fetch.fetch_timeout
          : texts.fetch[facts.code](facts.detail.replace(/\.$/, ''));
      return lead + (facts.receivedBytes === undefined ? '' : texts.fetch.partial(facts.receivedBytes));
    }
    case 'http_status':
      return texts.httpStatus(facts.status);
    case 'browser_partial':
      return texts.browserPartial;
    case 'consent_run_cut':
      return texts.consentRunCut;
    case 'pages_fewer':
      return texts.pagesFewer(facts.asked, facts.found);
    case 'pages_skipped':
      return texts.pagesSkipped(facts.count);
    case 'observation_cut':
      return texts.observationCut(facts.ms);
    case 'browser_incomplete':
      return texts.browserIncomplete(facts.detail);
    case 'browser_failed':
      return texts.browserFailed(facts.timedOut, facts.detail);
    case 'pagespeed_no_time':
      return texts.pagespeedNoTime;
    case 'pagespeed':
      return texts.pagespeed(facts.detail, facts.fromLighthouse);
    case 'ai_fallback':
      return texts.aiFallback(facts.detail);
  }
}

/** The warning as the API shows it: its code and its message in `language`. */
export function localiseWarning(language: Language, warning: WarningDraft): ScanWarning {
  return { code: warning.code, message: write(LOCALES[language].warnings, warning.facts) };
}
