import type { FetchWarningCode } from '../warning-codes.js';

/**
 * The shape of a locale: every human-readable text of a scan result in one language. `summary` holds the texts
 * of the builtin summary (see i18n.ts), `warnings` those of the scan warnings (see warnings.ts).
 */
export interface Locale {
  summary: SummaryTexts;
  warnings: WarningTexts;
}

export interface SummaryTexts {
  decimal: string;
  list: (items: string[]) => string;
  trackers: (host: string, names: string[]) => string;
  tagManagers: (names: string[]) => string;
  /** No measuring tracker, only tag managers: never "no trackers" next to a tag manager. */
  onlyTagManagers: (host: string, names: string[]) => string;
  cmp: (name: string) => string;
  noCmp: (banner: boolean | null) => string;
  /** No tracker in the HTML and no browser stage: never "no trackers" when scripts could not run. */
  noTrackersUnchecked: (host: string) => string;
  /** No CMP in the HTML and no browser stage: whether a banner shows is unknown. */
  noCmpUnchecked: string;
  /** Trackers present only inside <noscript>: a broken install. */
  noscriptOnly: (names: string[]) => string;
  referenced: (names: string[]) => string;
  /**
   * Tags a tag-manager container is configured with that the scan did not see firing, one item per vendor with the
   * triggers they wait for (`tag_manager_configs[].tags[]` with `fired: false`); see `configuredItems`.
   */
  configuredNotFired: (items: string[]) => string;
  consentMode: (version: string, mode: string | null, analytics: string | null, ads: string | null) => string;
  noConsentMode: string;
  beforeConsent: (names: string[]) => string;
  cookieless: (names: string[]) => string;
  nothingBeforeConsent: string;
  beforeConsentUnknown: string;
  serverSide: (endpoints: string[]) => string;
  noServerSide: string;
  loss: (analytics: string | null, ads: string | null) => string;
  recover: (points: string) => string;
  pagespeed: (score: number, lcp: string, tbt: number, cls: string) => string;
  state: (value: string | null) => string;
  mode: (mode: string) => string;
  /** What Consent Mode's advanced and basic modes mean for what the scan saw (`consent.consent_mode.mode_explanation`). */
  modeExplanation: { advanced: string; basic: string };
  rec: {
    addCmp: string;
    /** Consent Mode denies by default and no consent platform lets anyone grant consent. */
    consentNeverGranted: string;
    blockBeforeConsent: (names: string[]) => string;
    addConsentMode: string;
    /** The Consent Mode v2 keys the page does not set. */
    upgradeConsentMode: (keys: string[]) => string;
    serverSide: (domain: string, points: string) => string;
    removeUa: string;
    fixNoscriptOnly: (names: string[]) => string;
    metaCapi: string;
    pagespeed: (score: number) => string;
    noTracking: string;
  };
  /** Appended to the loss explanation: trackers whose denied-by-default consent nobody can grant (100% consent loss). */
  neverGrantedLoss: (names: string[]) => string;
  lossExplanation: (parts: {
    analytics: string | null;
    ads: string | null;
    consent: boolean;
    rates: Record<string, string>;
  }) => string;
}

export interface WarningTexts {
  /** A browser refusal names an example; a Lighthouse one does not. */
  refused: (count: number, example: string | undefined) => string;
  consentWithoutInteraction: string;
  timeLimit: (ms: number) => string;
  parseFailed: (detail: string) => string;
  truncated: (bytes: number) => string;
  fetch: Record<Exclude<FetchWarningCode, 'fetch_timeout'>, (detail: string) => string> & {
    fetch_timeout: string;
    partial: (bytes: number) => string;
  };
  httpStatus: (status: number) => string;
  observationCut: (ms: number) => string;
  consentRunCut: string;
  /** A scan of `asked` pages found only `found` internal pages linked from the start page. */
  pagesFewer: (asked: number, found: number) => string;
  /** Pages left out because the scan time limit was reached. */
  pagesSkipped: (count: number) => string;
  browserPartial: string;
  browserIncomplete: (detail: string) => string;
  browserFailed: (timedOut: boolean, detail: string) => string;
  pagespeedNoTime: string;
  /** `fromLighthouse`: the detail is Lighthouse's own explanation, not an error of the run. */
  pagespeed: (detail: string, fromLighthouse: boolean) => string;
  aiFallback: (detail: string | undefined) => string;
}

/** A vendor configured in a tag manager and not seen firing, with its triggers in the result's terms. */
export function configuredItem(item: { name: string; triggers: string[] }): string {
  return item.triggers.length ? `${item.name} (${item.triggers.join(', ')})` : item.name;
}

/** A list joined with commas and the language's word for "and" before the last item. */
export function joiner(and: string) {
  return (items: string[]) =>
    items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} ${and} ${items[items.length - 1]}`;
}
