import { describe, expect, it } from 'vitest';
import { Scanner, type ScanResult } from '../../src/scanner/index.js';
import { I15_IDS, I15_PAGES } from '../fixtures/scanner/pages-i15.js';
import { I15B_PAGES } from '../fixtures/scanner/pages-i15b.js';
import { useFixtureScanner } from '../fixtures/scanner/use-scanner.js';

// Issue 15, items 10 and 11: the builtin summary never contradicts the structured result, on every fixture page
// (and on a scan whose browser stage failed).

const FIXTURE_PAGES: Array<[string, string]> = [
  ['shop.example.test', '/'],
  ['basic.example.test', '/'],
  ['www.firstparty.test', '/'],
  ['clean.example.test', '/'],
  ['zoo.example.test', '/'],
  ['csp.example.test', '/'],
  ['inert.example.test', '/'],
  ['own-names.example.test', '/'],
  ['held.example.test', '/'],
  ['www.proxied.test', '/'],
  ['www.rudder.test', '/'],
  ['banner.example.test', '/'],
  ['banner.example.test', '/tcf?id=134'],
  ['gtm-config.example.test', '/'],
  ['gtm-click.example.test', '/'],
  ['gtm-allfired.example.test', '/'],
  ...I15_PAGES,
  ...I15B_PAGES,
];

const setup = useFixtureScanner({ bigPageBytes: 10_000 }, { observationCapMs: 4_000 });

const scan = (host: string, path: string, target = setup.scanner) =>
  target.scan({ url: setup.fixture.url(host, path), aiSummary: true, pagespeed: false, language: 'en' });

/** What the English builtin summary says that the structured result does not support; empty when consistent. */
function contradictions(result: ScanResult): string[] {
  const found: string[] = [];
  const text = result.ai_summary?.text ?? '';
  const recommendations = result.ai_summary?.recommendations.join('\n') ?? '';
  const says = (pattern: RegExp) => pattern.test(text);
  const recommends = (pattern: RegExp) => pattern.test(recommendations);
  const check = (ok: boolean, what: string) => {
    if (!ok) found.push(what);
  };
  // A tracker only named in the page's code is not a claim: the summary names it apart, as never loaded.
  const referenced = result.trackers.filter((tracker) => tracker.activation?.state === 'referenced');
  const claimed = result.trackers.filter((tracker) => tracker.activation?.state !== 'referenced');
  const measuring = claimed.filter((tracker) => tracker.category !== 'tag_manager');

  check(!(claimed.length && says(/No trackers were found/)), 'says no trackers next to trackers');
  check(
    says(/never loaded or sent anything/) === referenced.length > 0,
    'referenced trackers stated against activation',
  );
  for (const tracker of result.trackers) check(text.includes(tracker.name), `does not name ${tracker.name}`);
  check(
    !(result.consent.banner_detected === null && says(/no .*cookie banner was detected/i)),
    'says no banner although the banner could not be checked',
  );
  if (result.consent.cmp?.name) check(text.includes(result.consent.cmp.name), 'does not name the CMP');

  const consentMode = result.consent.consent_mode;
  if (consentMode.detected && consentMode.version)
    check(says(new RegExp(`Consent Mode ${consentMode.version} is in use`)), 'misstates the Consent Mode version');
  check(
    recommends(/Upgrade to Consent Mode v2/) === (consentMode.detected && consentMode.version === 'v1'),
    'recommends a v2 upgrade against the version found',
  );
  for (const key of consentMode.missing_v2_keys ?? [])
    check(recommends(new RegExp(`Upgrade to Consent Mode v2 by also setting .*${key}`)), `does not name ${key}`);
  check(
    recommends(/nobody can ever consent/) === result.loss_estimate.consent_never_granted,
    'recommends a consent banner for denied defaults against the loss estimate',
  );
  if (result.loss_estimate.consent_never_granted)
    check(!recommends(/Add a consent management platform/), 'gives the generic CMP advice as well');

  const firing = result.trackers.filter((tracker) => tracker.fires_before_consent);
  if (firing.length) {
    check(!says(/No tracker sent requests before consent/), 'says nothing fired although trackers fired');
    for (const tracker of firing) check(says(new RegExp(`before any consent was given: .*${tracker.name}`)), 'firing');
  } else if (measuring.length && result.stages.browser.status !== 'failed')
    check(says(/No tracker sent requests before consent/), 'does not say that nothing fired');

  check(
    says(/Server-side tagging was detected/) === result.server_side_tagging.detected,
    'contradicts server_side_tagging.detected',
  );
  const { analytics_events: analytics, ad_conversions: ads } = result.loss_estimate;
  check(says(/% of analytics events/) === !!analytics, 'analytics loss stated against loss_estimate');
  check(says(/% of ad conversions/) === !!ads, 'ad conversion loss stated against loss_estimate');
  if (analytics) check(text.includes(`about ${analytics.lost_pct}% of analytics events`), 'analytics loss figure');
  if (ads) check(text.includes(`about ${ads.lost_pct}% of ad conversions`), 'ad conversion loss figure');

  check(
    recommends(/Remove Universal Analytics/) === result.trackers.some((tracker) => tracker.discontinued_since),
    'Universal Analytics advice against the trackers',
  );
  const meta = claimed.find((tracker) => tracker.key === 'meta_pixel');
  check(
    !(recommends(/Conversions API/) && (!meta || meta.conversions_api || meta.server_side)),
    'recommends the Conversions API where it is in use or there is no Meta Pixel',
  );
  const noscriptOnly = result.trackers.filter((tracker) => tracker.activation?.state === 'noscript_only');
  check(says(/install is broken/) === noscriptOnly.length > 0, 'noscript-only install stated against activation');
  check(!(recommends(/No tracking was found/) && claimed.length), 'says no tracking was found next to trackers');
  // Configured tags are named as not fired exactly when a container has a tag of a known vendor the scan did not see.
  const unfired = (result.tag_manager_configs ?? []).flatMap((config) =>
    config.tags.filter((tag) => !tag.fired && tag.key !== null),
  );
  const notFiring = /not seen firing during the scan[^:]*: (.*?)\.(?: [A-Z]|$)/.exec(text)?.[1] ?? null;
  check((notFiring !== null) === unfired.length > 0, 'configured tags not fired stated against tag_manager_configs');
  for (const tag of unfired) check(!!notFiring?.includes(tag.vendor), `does not name configured ${tag.vendor}`);
  return found;
}

describe('the summary never contradicts the result', () => {
  it.each(FIXTURE_PAGES)('%s%s', async (host, path) => {
    const result = await scan(host, path);
    expect(result.ai_summary?.provider).toBe('builtin');
    expect(contradictions(result)).toEqual([]);
  });

  it('when the browser stage fails', async () => {
    const broken = new Scanner(setup.fixture.scannerOptions({ chromiumPath: '/nonexistent/chromium' }));
    try {
      const result = await scan('zoo.example.test', '/', broken);
      expect(result.consent.banner_detected).toBeNull();
      expect(contradictions(result)).toEqual([]);
      expect(result.ai_summary?.text).toMatch(/whether a cookie banner is shown could not be checked/);
    } finally {
      await broken.close();
    }
  });

  it('GTM alone is tag management, not "no trackers"', async () => {
    const result = await scan('www.i15-loader.test', '/');
    expect(result.ai_summary?.text).toMatch(
      /^No measuring trackers were found on www\.i15-loader\.test, only tag management: Google Tag Manager\./,
    );
  });

  it('a Meta Pixel sending eventIDs uses the Conversions API: it is not recommended', async () => {
    const result = await scan('www.i15-capi.test', '/');
    expect(result.trackers.find((tracker) => tracker.key === 'meta_pixel')).toMatchObject({
      ids: [I15_IDS.metaCapi],
      conversions_api: true,
    });
    expect(result.ai_summary?.recommendations.join(' ')).not.toMatch(/Conversions API/);
  });

  it('a pixel only in <noscript> is a broken install, left out of the loss estimate', async () => {
    const result = await scan('inert.example.test', '/');
    expect(result.trackers.map((tracker) => [tracker.key, tracker.activation?.state])).toEqual([
      ['meta_pixel', 'noscript_only'],
    ]);
    expect(result.loss_estimate.per_tracker).toEqual([]);
    expect(result.loss_estimate.ad_conversions).toBeNull();
    expect(result.ai_summary?.text).toMatch(
      /Installed only inside <noscript>, .* the install is broken .*: Meta Pixel\./,
    );
    expect(result.ai_summary?.recommendations).toContain(
      "Install Meta Pixel with the vendor's JavaScript snippet: a <noscript> fallback alone never runs in browsers with JavaScript.",
    );
  });
});
