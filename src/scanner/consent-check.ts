import type { Static } from 'typebox';
import type { AutoconsentOutcome } from './autoconsent.js';
import type { RuntimeFindings } from './browser.js';
import { detect } from './detect.js';
import type { Language } from './schema.js';
import type { ConsentCheck, RunSchema } from './schema-consent.js';

/** Consent check: the page run with no interaction, after "reject all" and after "accept all" (autoconsent clicks). */

type Run = Static<typeof RunSchema>;
const NOT_JUDGED = new Set(['tag_manager', 'consent']);

function perTracker(siteUrl: string, runtime: RuntimeFindings | null, language: Language) {
  const out = new Map<string, { name: string; category: string; run: Run }>();
  if (!runtime) return out;
  const { trackers, cookies } = detect(siteUrl, null, runtime, language);
  for (const tracker of trackers) {
    out.set(tracker.key, {
      name: tracker.name,
      category: tracker.category,
      run: {
        fired: tracker.fires_before_consent === true,
        cookies: cookies.filter((cookie) => cookie.tracker === tracker.key).map((cookie) => cookie.name),
      },
    });
  }
  return out;
}

function click(outcome: AutoconsentOutcome | undefined, runtime: RuntimeFindings | null) {
  return { clicked: outcome?.popupFound ? outcome.clicked === true : null, cut_short: !runtime || runtime.timedOut };
}

export function buildConsentCheck(
  siteUrl: string,
  plain: RuntimeFindings | null,
  clicked: { rejected: RuntimeFindings | null; accepted: RuntimeFindings | null } | undefined,
  language: Language,
): ConsentCheck {
  const runs = { none: plain, rejected: clicked?.rejected ?? null, accepted: clicked?.accepted ?? null };
  const none = perTracker(siteUrl, runs.none, language);
  const rejected = perTracker(siteUrl, runs.rejected, language);
  const accepted = perTracker(siteUrl, runs.accepted, language);
  const idle: Run = { fired: false, cookies: [] };
  const keys = [...new Set([...none.keys(), ...rejected.keys(), ...accepted.keys()])];
  const trackers = keys.map((key) => {
    const known = none.get(key) ?? rejected.get(key) ?? accepted.get(key);
    return {
      key,
      name: known?.name ?? key,
      no_interaction: none.get(key)?.run ?? idle,
      rejected: rejected.get(key)?.run ?? idle,
      accepted: accepted.get(key)?.run ?? idle,
    };
  });
  const reject = click(runs.rejected?.consentClick, runs.rejected);
  const accept = click(runs.accepted?.consentClick, runs.accepted);
  const violations =
    reject.clicked === true
      ? trackers
          .filter((tracker) => !NOT_JUDGED.has((none.get(tracker.key) ?? rejected.get(tracker.key))?.category ?? ''))
          .filter((tracker) => tracker.rejected.fired || tracker.rejected.cookies.length > 0)
          .map((tracker) => ({ tracker: tracker.key, name: tracker.name, ...tracker.rejected }))
      : [];
  const cmp = runs.rejected?.consentClick?.cmp ?? runs.accepted?.consentClick?.cmp ?? null;
  const bannerFound = !!(runs.rejected?.consentClick?.popupFound || runs.accepted?.consentClick?.popupFound);
  return {
    violations,
    cmp,
    banner_found: bannerFound,
    reject,
    accept,
    trackers,
    note: noteFor(bannerFound, cmp, reject.clicked, violations.length),
  };
}

function noteFor(bannerFound: boolean, cmp: string | null, rejectClicked: boolean | null, violations: number): string {
  if (!bannerFound)
    return cmp
      ? `autoconsent recognised ${cmp} but found no visible banner to click; the reject and accept runs are plain loads.`
      : 'autoconsent found no consent banner it can click; the reject and accept runs are plain loads.';
  if (rejectClicked !== true) return `autoconsent found the ${cmp} banner but could not click "reject all".`;
  return violations
    ? `${violations} tracker(s) fired or set cookies after "reject all" on the ${cmp} banner.`
    : `No tracker fired or set cookies after "reject all" on the ${cmp} banner.`;
}
