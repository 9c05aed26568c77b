import { joiner, type SummaryTexts, type WarningTexts } from './texts.js';

export const summary: SummaryTexts = {
  decimal: '.',
  list: joiner('and'),
  trackers: (host, names) =>
    names.length === 0
      ? `No trackers were found on ${host}.`
      : `${names.length} tracker${names.length === 1 ? '' : 's'} found on ${host}: ${summary.list(names)}.`,
  tagManagers: (names) => `Tag management: ${summary.list(names)}.`,
  onlyTagManagers: (host, names) =>
    `No measuring trackers were found on ${host}, only tag management: ${summary.list(names)}.`,
  cmp: (name) => `Consent management platform: ${name}.`,
  noCmp: (banner) =>
    banner
      ? 'No known consent management platform was detected, but a cookie notice is visible.'
      : 'No consent management platform or cookie banner was detected.',
  noTrackersUnchecked: (host) =>
    `No trackers were found in the HTML of ${host}; trackers that scripts load could not be checked because the browser stage did not complete.`,
  noCmpUnchecked:
    'No consent management platform was found in the page code; whether a cookie banner is shown could not be checked because the browser stage did not complete.',
  noscriptOnly: (names) =>
    `Installed only inside <noscript>, which never runs for visitors with JavaScript, so the install is broken and measures nothing: ${summary.list(names)}.`,
  referenced: (names) =>
    `Named in the page's code but never loaded or sent anything during the scan, so not counted as trackers: ${summary.list(names)}.`,
  configuredNotFired: (items) =>
    `Configured in the tag manager but not seen firing during the scan (the scan never clicks, submits a form or gives consent): ${summary.list(items)}.`,
  consentMode: (version, mode, analytics, ads) =>
    `Google Consent Mode ${version} is in use${mode ? ` in ${summary.mode(mode)} mode` : ''} (default: analytics_storage ${summary.state(analytics)}, ad_storage ${summary.state(ads)}).`,
  noConsentMode: 'Google Consent Mode was not detected although Google tags are present.',
  beforeConsent: (names) =>
    `${names.length} tracker${names.length === 1 ? '' : 's'} sent requests before any consent was given: ${summary.list(names)}.`,
  cookieless: (names) => `${summary.list(names)} only sent cookieless Consent Mode pings.`,
  nothingBeforeConsent: 'No tracker sent requests before consent.',
  beforeConsentUnknown:
    'Whether trackers fire before consent could not be checked because the browser stage did not complete.',
  serverSide: (endpoints) => `Server-side tagging was detected${endpoints.length ? ` (${endpoints.join(', ')})` : ''}.`,
  noServerSide: 'No server-side tagging was detected: tags send data directly to the vendors.',
  loss: (analytics, ads) => {
    const parts = [
      analytics && `about ${analytics}% of analytics events`,
      ads && `about ${ads}% of ad conversions`,
    ].filter(Boolean) as string[];
    return `Estimated data loss: ${summary.list(parts)}.`;
  },
  recover: (points) => `Server-side tagging on a first-party domain could recover about ${points} percentage points.`,
  pagespeed: (score, lcp, tbt, cls) =>
    `Mobile performance score: ${score}/100 (LCP ${lcp} s, TBT ${tbt} ms, CLS ${cls}).`,
  state: (value) => (value === 'granted' ? 'granted' : value === 'denied' ? 'denied' : 'not set'),
  mode: (mode) => (mode === 'advanced' ? 'advanced' : 'basic'),
  modeExplanation: {
    advanced:
      'Advanced mode: Google tags load before consent and, while storage is denied, send cookieless pings (no cookies read or written; Google uses them to model conversions). These pings are requests made before consent, so the tags sending them count as firing before consent.',
    basic:
      'Basic mode: Google tags are held back until the visitor consents, so nothing is sent to Google before consent; Google models conversions without any data from visitors who refuse.',
  },
  rec: {
    consentNeverGranted: `Google Consent Mode denies storage by default, but no consent platform or banner lets visitors grant it: nobody can ever consent. Add a consent banner that sends gtag('consent', 'update', …) when visitors accept, or remove the denied defaults if consent is not required.`,
    addCmp: 'Add a consent management platform and load tracking tags only after visitors consent.',
    blockBeforeConsent: (names) =>
      `Hold back ${summary.list(names)} until the visitor consents (CMP script blocking or consent triggers in your tag manager).`,
    addConsentMode:
      'Implement Google Consent Mode v2 (ad_storage, analytics_storage, ad_user_data, ad_personalization) through your CMP.',
    upgradeConsentMode: (keys) =>
      `Upgrade to Consent Mode v2 by also setting ${summary.list(keys)}, required for ad personalisation in the EEA since March 2024.`,
    serverSide: (domain, points) =>
      `Move your tags to server-side tagging on a first-party subdomain (e.g. data.${domain}) to recover about ${points} percentage points of lost data.`,
    removeUa: 'Remove Universal Analytics: it stopped processing data in July 2023.',
    fixNoscriptOnly: (names) =>
      `Install ${summary.list(names)} with the vendor's JavaScript snippet: a <noscript> fallback alone never runs in browsers with JavaScript.`,
    metaCapi: 'Send Meta events through the Conversions API in addition to the browser pixel.',
    pagespeed: (score) =>
      `Improve page speed (score ${score}/100): load tags asynchronously and defer the ones not needed for the first view.`,
    noTracking: 'No tracking was found: if you expect analytics or ad tags here, check that they are published.',
  },
  neverGrantedLoss: (names) =>
    `Google Consent Mode denies storage by default and nothing on the page can grant it, so ${summary.list(names)} ${names.length === 1 ? 'loses' : 'lose'} all consent-gated measurement (counted as 100% consent loss).`,
  lossExplanation: ({ analytics, ads, consent, rates }) =>
    [
      `Per tracker, the share of data kept is (1 − consent loss) × (1 − blocker loss) × (1 − ITP loss).`,
      consent
        ? `A consent banner was found, so ${rates.consent}% of visitors are assumed to refuse consent.`
        : 'No consent mechanism was found, so no consent loss is counted (tags may then run without the consent the law requires).',
      `Ad blockers are active on ${rates.blockers}% of page views; ${rates.analyticsBlock}% of them also block analytics and ${rates.adBlock}% block ad pixels. Tags served from the site's own domain avoid ${rates.escape}% of that blocking.`,
      `Safari (${rates.safari}% of traffic) drops ${rates.itp}% of its ad conversions because script-set cookies expire after 7 days; a first-party tagging server recovers ${rates.itpRecovery}% of that.`,
      analytics || ads
        ? `Result: ${summary.list([analytics && `${analytics}% of analytics events`, ads && `${ads}% of ad conversions`].filter(Boolean) as string[])} lost.`
        : 'No measuring trackers were found, so there is nothing to lose.',
      'Consent refusal cannot and should not be recovered by server-side tagging.',
    ].join(' '),
};

export const warnings: WarningTexts = {
  refused: (n, example) =>
    example === undefined
      ? `${n} request(s) to non-public addresses were blocked.`
      : `${n} browser request(s) to non-public addresses were blocked, e.g. ${example}.`,
  consentWithoutInteraction:
    'A consent update granting storage ran although the scanner never clicked a consent banner (it only scrolls, moves the pointer, presses a key and touches the page).',
  timeLimit: (ms) => `The scan took longer than its ${ms} ms limit.`,
  parseFailed: (detail) => `The HTML could not be parsed: ${detail}`,
  truncated: (bytes) => `The page is larger than ${bytes} bytes; only the first ${bytes} bytes were analysed.`,
  fetch: {
    fetch_timeout: 'The HTTP fetch hit its time limit.',
    fetch_failed: (detail) => `${detail}.`,
    too_many_redirects: (detail) => `${detail}.`,
    not_html: (detail) => `${detail}.`,
    partial: (bytes) => ` The ${bytes} bytes received until then were analysed.`,
  },
  httpStatus: (status) => `The page answered HTTP ${status}.`,
  observationCut: (ms) =>
    `The page was still busy when observation ended after ${ms} ms; tags that fire later were not seen.`,
  consentRunCut:
    'The consent check could not finish every run within the scan time limit (reject all or accept all was cut short); its comparison covers what was observed until then.',
  pagesFewer: (asked, found) =>
    `Only ${found} internal page${found === 1 ? '' : 's'} linked from the start page could be added to the ${asked} pages asked for.`,
  pagesSkipped: (count) =>
    `${count} page${count === 1 ? ' was' : 's were'} skipped: the scan time limit left no room for ${count === 1 ? 'it' : 'them'}.`,
  browserPartial: 'The page did not finish loading in time; findings cover what it did until then.',
  browserIncomplete: (detail) => `Some page data could not be read: ${detail}`,
  browserFailed: (timedOut, detail) =>
    `Browser stage ${timedOut ? 'timed out' : 'failed'}: ${detail}. Results come from the HTML only.`,
  pagespeedNoTime: 'No time was left for the page-speed run.',
  pagespeed: (detail, fromLighthouse) => (fromLighthouse ? detail : `Page speed: ${detail}`),
  aiFallback: (detail) =>
    detail
      ? `The language model could not write the summary (${detail}); the builtin writer was used.`
      : 'No time was left for the language model; the builtin writer was used.',
};
