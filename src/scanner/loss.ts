import { lossExplanation } from './i18n.js';
import type { LossAssumptions } from './loss-assumptions.js';
import type { ConsentResult, Language, LossEstimate, Tracker } from './schema.js';

/**
 * Loss model: how much tracking data a site loses to consent refusal, ad/privacy blockers and Safari ITP,
 * and how much server-side tagging on a first-party domain would win back.
 *
 * Per measuring tracker (see metricFor), with c = consent loss, a = blocker loss, i = ITP loss (all fractions):
 *   kept = (1 − c)(1 − a)(1 − i),  lost = 1 − kept
 *   split by cause in the order consent → blockers → ITP: c, (1 − c)·a, (1 − c)(1 − a)·i
 * where
 *   c = consent_refusal_rate when a consent mechanism (CMP or banner) was found, else 0, except
 *       c = 1 for a tag gated by a Consent Mode default that nothing can ever grant (see consentNeverGranted)
 *   a = ad_blocker_rate × (analytics: blockers_blocking_analytics | ads: blockers_blocking_ad_pixels)
 *       × (1 − first_party_escape_rate when the tracker is already served first-party/server-side)
 *   i = 0 for analytics events (ITP shortens cookies; events are still counted);
 *       safari_share × itp_conversion_loss × (1 − itp_server_side_recovery when already server-side) for ad conversions
 * "With server-side tagging" applies both first-party reductions; consent refusal is never recovered.
 */

export const LOSS_MODEL_VERSION = '2025.1';

export const DEFAULT_ASSUMPTIONS: LossAssumptions = {
  ad_blocker_rate: 0.21,
  blockers_blocking_analytics: 0.35,
  blockers_blocking_ad_pixels: 0.9,
  first_party_escape_rate: 0.75,
  safari_share: 0.195,
  itp_conversion_loss: 0.25,
  itp_server_side_recovery: 0.5,
  consent_refusal_rate: 0.225,
};

export const ASSUMPTION_SOURCES: Record<keyof LossAssumptions, string> = {
  ad_blocker_rate:
    'Share of page views with an active ad blocker: Blockthrough/PageFair 2022 measured an average 21% block rate over more than 10 billion page views (by users, roughly a third run one: GWI; DataReportal 2024 ~31.5% of 16–64 year olds). Desktop blocks far more than mobile.',
  blockers_blocking_analytics:
    'Share of blocker users whose lists also block analytics (privacy lists such as EasyPrivacy): contentpass 2018 found more than 25% of desktop blocker users run EasyPrivacy, and it is on by default in uBlock Origin and Brave. 0.35 is a Tagport estimate between those.',
  blockers_blocking_ad_pixels:
    'Share of blocker users whose default lists (EasyList and derivatives) block ad and conversion pixels. Tagport estimate.',
  first_party_escape_rate:
    "Share of blocking avoided when a tag is served from the site's own (sub)domain: domain-based filter lists miss first-party endpoints, path rules and CNAME uncloaking still catch some. Tagport estimate.",
  safari_share: 'Safari share of web traffic, about 19–20% overall and about 25% on mobile (StatCounter 2023).',
  itp_conversion_loss:
    'Share of Safari ad conversions not attributed because script-set cookies expire after 7 days (ITP 2.1; 24 hours after link decoration from tracking domains, ITP 2.2): conversions more than 7 days after the click. Tagport estimate.',
  itp_server_side_recovery:
    "Share of the ITP loss recovered by cookies set by a first-party tagging server. Safari 16.4 caps server-set cookies at 7 days when the server's IP range differs from the site's, so recovery is partial. Tagport estimate.",
  consent_refusal_rate:
    'Share of visitors refusing consent where a consent banner is shown: opt-in rates of about 74–81% with a visible reject option (Didomi 2024 benchmarks), midpoint used; 50–70% refuse when "reject all" is as prominent as "accept" (studies collected 2023–24). Applied only when a consent mechanism was found.',
};

type Figure = Omit<LossEstimate['per_tracker'][number], 'key' | 'name' | 'metric' | 'server_side'>;

const round1 = (value: number) => Math.round(value * 10) / 10;

/** Percent figure from fractions; lost_pct is the sum of the rounded causes so the split adds up exactly. */
function figure(c: number, a: number, i: number, aServerSide: number, iServerSide: number): Figure {
  const split = (blockers: number, itp: number) => ({
    consent: round1(100 * c),
    ad_blockers: round1(100 * (1 - c) * blockers),
    itp: round1(100 * (1 - c) * (1 - blockers) * itp),
  });
  const now = split(a, i);
  const withServerSide = split(aServerSide, iServerSide);
  const lost = round1(now.consent + now.ad_blockers + now.itp);
  const lostServerSide = round1(withServerSide.consent + withServerSide.ad_blockers + withServerSide.itp);
  return {
    lost_pct: lost,
    by_cause: now,
    lost_pct_with_server_side: lostServerSide,
    recoverable_pct: round1(Math.max(0, lost - lostServerSide)),
  };
}

/**
 * What a tracker measures. Marketing automation (HubSpot, Marketo…) tracks page views and visitors like an analytics
 * tool. A discontinued product (Universal Analytics) measures nothing any more, and a tag present only in
 * <noscript> never runs for visitors with JavaScript, and one the page only refers to did not run: none has data
 * to lose.
 */
export function metricFor(
  tracker: Pick<Tracker, 'category'> & Partial<Pick<Tracker, 'discontinued_since' | 'activation'>>,
): 'analytics_events' | 'ad_conversions' | null {
  const state = tracker.activation?.state;
  if (tracker.discontinued_since || state === 'noscript_only' || state === 'referenced') return null;
  switch (tracker.category) {
    case 'analytics':
    case 'session_replay':
    case 'customer_data_platform':
    case 'marketing':
      return 'analytics_events';
    case 'advertising':
      return 'ad_conversions';
    default:
      return null; // tag managers, social widgets, chat and video do not measure events or conversions themselves
  }
}

function mean(figures: Figure[]): Figure | null {
  if (figures.length === 0) return null;
  const avg = (pick: (figure: Figure) => number) =>
    round1(figures.reduce((sum, item) => sum + pick(item), 0) / figures.length);
  const by_cause = {
    consent: avg((f) => f.by_cause.consent),
    ad_blockers: avg((f) => f.by_cause.ad_blockers),
    itp: avg((f) => f.by_cause.itp),
  };
  const lost = round1(by_cause.consent + by_cause.ad_blockers + by_cause.itp);
  const lostServerSide = avg((f) => f.lost_pct_with_server_side);
  return {
    lost_pct: lost,
    by_cause,
    lost_pct_with_server_side: lostServerSide,
    recoverable_pct: round1(Math.max(0, lost - lostServerSide)),
  };
}

/** Google tags that honour Consent Mode, with the consent type that gates what they measure. */
const CONSENT_MODE_GATES: Record<string, 'analytics_storage' | 'ad_storage'> = {
  google_analytics_4: 'analytics_storage',
  google_ads: 'ad_storage',
  floodlight: 'ad_storage',
};

/**
 * Consent Mode defaults that deny storage on a page without any consent platform or banner: no visitor can grant
 * consent, so everything the denied type gates is lost for every visitor (cookieless pings in advanced mode are
 * Google's modelling input, not measurement the site gets back).
 */
export interface NeverGrantedConsent {
  analytics_storage: boolean;
  ad_storage: boolean;
}

/**
 * The consent types nobody can grant: denied by Consent Mode defaults while the browser stage saw no banner and no
 * consent platform was found. null when consent can be given, or when no browser stage could look for a banner.
 */
export function consentNeverGranted(consent: ConsentResult): NeverGrantedConsent | null {
  if (consent.cmp || consent.banner_detected !== false) return null;
  const defaults = consent.consent_mode.defaults;
  const denied = {
    analytics_storage: defaults.analytics_storage === 'denied',
    ad_storage: defaults.ad_storage === 'denied',
  };
  return denied.analytics_storage || denied.ad_storage ? denied : null;
}

export interface LossInput {
  trackers: Array<
    Pick<Tracker, 'key' | 'name' | 'category' | 'first_party' | 'server_side'> &
      Partial<Pick<Tracker, 'discontinued_since' | 'activation'>>
  >;
  /** A CMP or a consent banner was found. */
  consentMechanism: boolean;
  /** Consent types denied by default with no consent mechanism to grant them; null or absent when not the case. */
  consentNeverGranted?: NeverGrantedConsent | null;
  language: Language;
  assumptions?: LossAssumptions;
}

export function estimateLoss(input: LossInput): LossEstimate {
  const A = input.assumptions ?? DEFAULT_ASSUMPTIONS;
  const refusal = input.consentMechanism ? A.consent_refusal_rate : 0;
  const never = input.consentMechanism ? null : (input.consentNeverGranted ?? null);
  const perTracker: LossEstimate['per_tracker'] = [];
  const gatedNames: string[] = [];
  for (const tracker of input.trackers) {
    const metric = metricFor(tracker);
    if (!metric) continue;
    const gate = CONSENT_MODE_GATES[tracker.key];
    const gated = !!never && !!gate && never[gate];
    if (gated) gatedNames.push(tracker.name);
    const c = gated ? 1 : refusal;
    const served = tracker.server_side || tracker.first_party;
    const blockShare = metric === 'analytics_events' ? A.blockers_blocking_analytics : A.blockers_blocking_ad_pixels;
    const aThirdParty = A.ad_blocker_rate * blockShare;
    const aFirstParty = aThirdParty * (1 - A.first_party_escape_rate);
    const iThirdParty = metric === 'ad_conversions' ? A.safari_share * A.itp_conversion_loss : 0;
    const iServerSide = iThirdParty * (1 - A.itp_server_side_recovery);
    const a = served ? aFirstParty : aThirdParty;
    const i = tracker.server_side ? iServerSide : iThirdParty;
    perTracker.push({
      key: tracker.key,
      name: tracker.name,
      metric,
      server_side: served,
      ...(gated ? { consent_never_granted: true } : {}),
      ...figure(c, a, i, aFirstParty, iServerSide),
    });
  }
  const analytics = mean(perTracker.filter((item) => item.metric === 'analytics_events'));
  const ads = mean(perTracker.filter((item) => item.metric === 'ad_conversions'));
  return {
    model_version: LOSS_MODEL_VERSION,
    consent_never_granted: gatedNames.length > 0,
    analytics_events: analytics,
    ad_conversions: ads,
    per_tracker: perTracker,
    assumptions: (Object.keys(A) as Array<keyof LossAssumptions>).map((key) => ({
      key,
      value: A[key],
      source: ASSUMPTION_SOURCES[key],
    })),
    explanation: lossExplanation(input.language, {
      analytics,
      ads,
      consentApplied: input.consentMechanism,
      neverGranted: gatedNames,
      assumptions: A,
    }),
  };
}
