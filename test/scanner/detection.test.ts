import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { ScanResultSchema, type ScanResult } from '../../src/scanner/index.js';
import { I15_IDS } from '../fixtures/scanner/pages-i15.js';
import { useFixtureScanner } from '../fixtures/scanner/use-scanner.js';

// Issue 15, items 4–8, end to end in Chromium on the loopback fixture server (pages in fixtures/scanner/pages-i15.ts).

const results = new Map<string, Promise<ScanResult>>();

const setup = useFixtureScanner({ bigPageBytes: 10_000 }, { observationCapMs: 6_000 });

/** Each page is scanned once (with the builtin summary) and shared by the tests that read it. */
function scan(host: string, path = '/'): Promise<ScanResult> {
  const key = `${host}${path}`;
  if (!results.has(key)) {
    results.set(
      key,
      setup.scanner
        .scan({ url: setup.fixture.url(host, path), aiSummary: true, pagespeed: false, language: 'en' })
        .then((result) => {
          expect([...Value.Errors(ScanResultSchema, result)].slice(0, 5)).toEqual([]);
          return result;
        }),
    );
  }
  return results.get(key)!;
}

const byKey = (result: ScanResult) => Object.fromEntries(result.trackers.map((tracker) => [tracker.key, tracker]));
const cookieOwners = (result: ScanResult) =>
  Object.fromEntries(result.cookies.map((item) => [item.name, item.tracker]));

describe('vendors known through third-party-web are fully reported (item 4)', () => {
  it('names HubSpot, Intercom, Mixpanel and FullStory with their ids, and owns their cookies and the server-set FPID', async () => {
    const result = await scan('www.i15-vendors.test');
    expect(result.trackers.map((tracker) => [tracker.key, tracker.category, tracker.ids])).toEqual([
      ['google_analytics_4', 'analytics', [I15_IDS.ga4ViaServer]],
      ['mixpanel', 'analytics', [I15_IDS.mixpanel]],
      ['intercom', 'customer_success', [I15_IDS.intercom]],
      ['hubspot', 'marketing', [I15_IDS.hubspot]],
      ['fullstory', 'session_replay', [I15_IDS.fullstory]],
    ]);
    expect(cookieOwners(result)).toEqual({
      FPID: 'google_analytics_4',
      [`mp_${I15_IDS.mixpanel}_mixpanel`]: 'mixpanel',
      fs_uid: 'fullstory',
      hubspotutk: 'hubspot',
      __hstc: 'hubspot',
      __hssc: 'hubspot',
      [`intercom-id-${I15_IDS.intercom}`]: 'intercom',
      [`intercom-device-id-${I15_IDS.intercom}`]: 'intercom',
    });
    expect(result.cookies.find((item) => item.name === 'FPID')).toMatchObject({ set_by: 'http', first_party: true });
  });

  it('counts HubSpot (marketing) in the loss model, not Intercom (a chat)', async () => {
    const result = await scan('www.i15-vendors.test');
    expect(result.loss_estimate.per_tracker.map((item) => [item.key, item.metric])).toEqual([
      ['google_analytics_4', 'analytics_events'],
      ['mixpanel', 'analytics_events'],
      ['hubspot', 'analytics_events'],
      ['fullstory', 'analytics_events'],
    ]);
  });

  it('a CDN script and look-alike cookies are nobody', async () => {
    const result = await scan('www.i15-plain.test');
    expect(result.trackers).toEqual([]);
    expect(result.cookies.map((item) => [item.name, item.tracker])).toEqual([
      ['_ga', undefined],
      ['mp_settings', undefined],
    ]);
  });
});

describe('Universal Analytics is its own, discontinued product (item 5)', () => {
  it('analytics.js with a UA- id is Universal Analytics, owns _ga, stays out of the loss model and is to be removed', async () => {
    const result = await scan('www.i15-ua.test');
    expect(result.trackers.map((tracker) => [tracker.key, tracker.ids, tracker.discontinued_since])).toEqual([
      ['universal_analytics', [I15_IDS.ua], '2023-07-01'],
    ]);
    expect(cookieOwners(result)).toEqual({ _ga: 'universal_analytics', _gid: 'universal_analytics' });
    expect(result.loss_estimate.per_tracker).toEqual([]);
    expect(result.loss_estimate.analytics_events).toBeNull();
    expect(result.ai_summary?.recommendations).toContain(
      'Remove Universal Analytics: it stopped processing data in July 2023.',
    );
  });

  it('gtag.js with a G- id is GA4, which owns _ga', async () => {
    const result = await scan('www.i15-ga4.test');
    expect(result.trackers.map((tracker) => [tracker.key, tracker.ids, tracker.discontinued_since])).toEqual([
      ['google_analytics_4', [I15_IDS.ga4], undefined],
    ]);
    expect(cookieOwners(result)).toEqual({ _ga: 'google_analytics_4' });
    expect(result.loss_estimate.per_tracker.map((item) => item.key)).toEqual(['google_analytics_4']);
  });
});

describe('Consent Mode version (item 6)', () => {
  it('v1 defaults are v1 although the hits carry gcd, with the missing keys recommended', async () => {
    const result = await scan('www.i15-cmv1.test');
    expect(result.consent.consent_mode).toMatchObject({
      detected: true,
      version: 'v1',
      missing_v2_keys: ['ad_user_data', 'ad_personalization'],
      gcd: expect.stringMatching(/^13p3p3l3l5$/),
    });
    expect(result.ai_summary?.recommendations).toContain(
      'Upgrade to Consent Mode v2 by also setting ad_user_data and ad_personalization, required for ad personalisation in the EEA since March 2024.',
    );
  });

  it('v2 keys set in the defaults, or only in an update, are v2', async () => {
    for (const host of ['www.i15-ads.test', 'www.i15-ads-basic.test']) {
      const result = await scan(host);
      expect(result.consent.consent_mode.version).toBe('v2');
      expect(result.consent.consent_mode.missing_v2_keys).toBeUndefined();
      expect(result.ai_summary?.recommendations.join(' ')).not.toMatch(/Upgrade to Consent Mode v2/);
    }
  });
});

describe('Google Ads cookieless pings (item 7)', () => {
  it('advanced mode: 1p-user-list and ccm/collect pings are requests before consent', async () => {
    const result = await scan('www.i15-ads.test');
    expect(byKey(result).google_ads).toMatchObject({ ids: [`AW-${I15_IDS.ads}`], fires_before_consent: true });
    const urls = byKey(result).google_ads.evidence.map((item) => item.url ?? '');
    expect(urls.some((url) => url.startsWith(`https://www.google.com/pagead/1p-user-list/${I15_IDS.ads}/`))).toBe(true);
    expect(urls.some((url) => url.startsWith('https://www.google.com/ccm/collect?'))).toBe(true);
    expect(result.consent.tags_before_consent).toEqual([
      expect.objectContaining({ key: 'google_ads', requests: 3, cookieless: true }),
    ]);
    expect(result.consent.consent_mode).toMatchObject({
      mode: 'advanced',
      mode_explanation: expect.stringMatching(/^Advanced mode: .*cookieless pings.*count as firing before consent\.$/),
    });
  });

  it('basic mode: the Ads tag waits for consent, sends nothing and is explained', async () => {
    const result = await scan('www.i15-ads-basic.test');
    expect(byKey(result).google_ads).toMatchObject({ ids: [`AW-${I15_IDS.adsBasic}`], fires_before_consent: false });
    expect(result.consent.tags_before_consent).toEqual([]);
    expect(result.consent.consent_mode).toMatchObject({
      mode: 'basic',
      mode_explanation: expect.stringMatching(/^Basic mode: .*nothing is sent to Google before consent/),
    });
  });
});

describe('GTM through a custom loader (item 8)', () => {
  it('a loader on the site’s own subdomain is first-party and server-side', async () => {
    const result = await scan('www.i15-loader.test');
    expect(byKey(result).google_tag_manager).toMatchObject({
      ids: [I15_IDS.gtmFirstParty],
      first_party: true,
      server_side: true,
    });
    expect(result.server_side_tagging.endpoints).toEqual(['https://data.i15-loader.test']);
  });

  it('a loader on a third-party tagging host is server-side, not first-party', async () => {
    const result = await scan('www.i15-loader.test', '/third');
    expect(byKey(result).google_tag_manager).toMatchObject({
      ids: [I15_IDS.gtmThirdParty],
      first_party: false,
      server_side: true,
    });
  });
});
