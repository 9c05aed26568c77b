import { LOCALES } from './locales/index.js';
import { configuredItem, type SummaryTexts } from './locales/texts.js';
import type { LossAssumptions } from './loss-assumptions.js';
import type { Language, LossEstimate } from './schema.js';

/**
 * The builtin summary and the loss explanation, written from the texts of `locales/<language>.ts`.
 * Texts are built from findings only; numbers are formatted with the language's decimal separator.
 */

type LossFigure = NonNullable<LossEstimate['analytics_events']>;

export interface SummaryFacts {
  host: string;
  trackers: string[];
  tagManagers: string[];
  cmp: string | null;
  bannerDetected: boolean | null;
  googleTags: boolean;
  consentMode: {
    detected: boolean;
    version: string | null;
    mode: string | null;
    analytics: string | null;
    ads: string | null;
    /** Consent Mode v2 keys no default or update sets. */
    missingV2Keys: string[];
  };
  /** null when firing could not be observed (no browser stage). */
  beforeConsent: { names: string[]; cookielessNames: string[] } | null;
  serverSide: { detected: boolean; endpoints: string[] };
  loss: { analytics: LossFigure | null; ads: LossFigure | null };
  pagespeed: { score: number; lcpMs: number; tbtMs: number; cls: number } | null;
  universalAnalytics: boolean;
  /** Trackers present only inside <noscript> (never run for visitors with JavaScript). */
  noscriptOnly: string[];
  /** Trackers the page only refers to (code or a global naming them): none of their scripts or requests ran. */
  referenced: string[];
  /** Vendors a tag-manager container is configured with that the scan did not see firing, with their triggers. */
  configuredNotFired: Array<{ name: string; triggers: string[] }>;
  metaPixelClientOnly: boolean;
  /** Consent Mode denies by default and nothing can grant consent (`loss_estimate.consent_never_granted`). */
  consentNeverGranted: boolean;
  siteDomain: string;
}

/** The summary texts of every language. */
export const TEXTS = Object.fromEntries(
  Object.entries(LOCALES).map(([language, locale]) => [language, locale.summary]),
) as Record<Language, SummaryTexts>;

/** Formats a number with at most `digits` decimals and the language's decimal separator. */
export function formatNumber(language: Language, value: number, digits = 1): string {
  const factor = 10 ** digits;
  return String(Math.round(value * factor) / factor).replace('.', TEXTS[language].decimal);
}

export function lossExplanation(
  language: Language,
  input: {
    analytics: LossFigure | null;
    ads: LossFigure | null;
    consentApplied: boolean;
    /** Trackers whose consent can never be granted (Consent Mode denied by default, no consent mechanism). */
    neverGranted: string[];
    assumptions: LossAssumptions;
  },
): string {
  const pct = (fraction: number) => formatNumber(language, fraction * 100);
  const A = input.assumptions;
  const text = TEXTS[language].lossExplanation({
    analytics: input.analytics ? formatNumber(language, input.analytics.lost_pct) : null,
    ads: input.ads ? formatNumber(language, input.ads.lost_pct) : null,
    consent: input.consentApplied,
    rates: {
      consent: pct(A.consent_refusal_rate),
      blockers: pct(A.ad_blocker_rate),
      analyticsBlock: pct(A.blockers_blocking_analytics),
      adBlock: pct(A.blockers_blocking_ad_pixels),
      escape: pct(A.first_party_escape_rate),
      safari: pct(A.safari_share),
      itp: pct(A.itp_conversion_loss),
      itpRecovery: pct(A.itp_server_side_recovery),
    },
  });
  return input.neverGranted.length ? `${text} ${TEXTS[language].neverGrantedLoss(input.neverGranted)}` : text;
}

/** What the Consent Mode mode found means, in the scan's language. */
export function modeExplanation(language: Language, mode: 'advanced' | 'basic'): string {
  return TEXTS[language].modeExplanation[mode];
}

/** The builtin summary: one paragraph from the findings, and recommendations that follow from them. */
export function composeSummary(language: Language, facts: SummaryFacts): { text: string; recommendations: string[] } {
  const t = TEXTS[language];
  const n = (value: number) => formatNumber(language, value);
  const sentences: string[] = [];
  if (!facts.trackers.length && facts.tagManagers.length)
    sentences.push(t.onlyTagManagers(facts.host, facts.tagManagers));
  else if (!facts.trackers.length && facts.bannerDetected === null) sentences.push(t.noTrackersUnchecked(facts.host));
  else {
    sentences.push(t.trackers(facts.host, facts.trackers));
    if (facts.tagManagers.length) sentences.push(t.tagManagers(facts.tagManagers));
  }
  if (facts.noscriptOnly.length) sentences.push(t.noscriptOnly(facts.noscriptOnly));
  if (facts.referenced.length) sentences.push(t.referenced(facts.referenced));
  if (facts.configuredNotFired.length)
    sentences.push(t.configuredNotFired(facts.configuredNotFired.map(configuredItem)));
  if (facts.cmp) sentences.push(t.cmp(facts.cmp));
  else sentences.push(facts.bannerDetected === null ? t.noCmpUnchecked : t.noCmp(facts.bannerDetected));
  if (facts.consentMode.detected && facts.consentMode.version) {
    sentences.push(
      t.consentMode(
        facts.consentMode.version,
        facts.consentMode.mode,
        facts.consentMode.analytics,
        facts.consentMode.ads,
      ),
    );
  } else if (facts.googleTags) {
    sentences.push(t.noConsentMode);
  }
  if (facts.trackers.length) {
    if (!facts.beforeConsent) sentences.push(t.beforeConsentUnknown);
    else if (facts.beforeConsent.names.length) {
      sentences.push(t.beforeConsent(facts.beforeConsent.names));
      if (facts.beforeConsent.cookielessNames.length) sentences.push(t.cookieless(facts.beforeConsent.cookielessNames));
    } else sentences.push(t.nothingBeforeConsent);
  }
  if (facts.serverSide.detected) sentences.push(t.serverSide(facts.serverSide.endpoints));
  else if (facts.trackers.length) sentences.push(t.noServerSide);
  const { analytics, ads } = facts.loss;
  if (analytics || ads) {
    sentences.push(t.loss(analytics ? n(analytics.lost_pct) : null, ads ? n(ads.lost_pct) : null));
    const recoverable = Math.max(analytics?.recoverable_pct ?? 0, ads?.recoverable_pct ?? 0);
    if (recoverable > 0) sentences.push(t.recover(n(recoverable)));
  }
  if (facts.pagespeed) {
    sentences.push(
      t.pagespeed(
        facts.pagespeed.score,
        formatNumber(language, facts.pagespeed.lcpMs / 1000),
        Math.round(facts.pagespeed.tbtMs),
        formatNumber(language, facts.pagespeed.cls, 2),
      ),
    );
  }

  const recommendations: string[] = [];
  const consentMechanism = !!facts.cmp || facts.bannerDetected === true;
  if (facts.consentNeverGranted) recommendations.push(t.rec.consentNeverGranted);
  else if (facts.trackers.length && !consentMechanism) recommendations.push(t.rec.addCmp);
  const blocking =
    facts.beforeConsent?.names.filter((name) => !facts.beforeConsent!.cookielessNames.includes(name)) ?? [];
  if (blocking.length) recommendations.push(t.rec.blockBeforeConsent(blocking));
  if (facts.googleTags && !facts.consentMode.detected) recommendations.push(t.rec.addConsentMode);
  if (facts.consentMode.detected && facts.consentMode.version === 'v1')
    recommendations.push(t.rec.upgradeConsentMode(facts.consentMode.missingV2Keys));
  if (facts.universalAnalytics) recommendations.push(t.rec.removeUa);
  if (facts.noscriptOnly.length) recommendations.push(t.rec.fixNoscriptOnly(facts.noscriptOnly));
  const recoverable = Math.max(analytics?.recoverable_pct ?? 0, ads?.recoverable_pct ?? 0);
  if (!facts.serverSide.detected && recoverable > 0)
    recommendations.push(t.rec.serverSide(facts.siteDomain, n(recoverable)));
  if (facts.metaPixelClientOnly) recommendations.push(t.rec.metaCapi);
  if (facts.pagespeed && facts.pagespeed.score < 50) recommendations.push(t.rec.pagespeed(facts.pagespeed.score));
  const nothingFound = !facts.trackers.length && !facts.tagManagers.length;
  if (nothingFound && facts.bannerDetected !== null) recommendations.push(t.rec.noTracking);
  return { text: sentences.join(' '), recommendations };
}
