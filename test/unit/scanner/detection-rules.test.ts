import thirdPartyWeb from 'third-party-web';
import { describe, expect, it } from 'vitest';
import { emptyRuntimeFindings, type RuntimeFindings } from '../../../src/scanner/browser.js';
import { detect } from '../../../src/scanner/detect.js';
import { missingV2Keys } from '../../../src/scanner/detect/consent.js';
import { TPW_CATEGORIES } from '../../../src/scanner/detect/third-party-web.js';
import { metricFor } from '../../../src/scanner/loss.js';
import { matchUrl, trackerForCookie } from '../../../src/scanner/signatures.js';

// Issue 15, items 4–8: the pure rules behind the fixtures of test/scanner/detection.test.ts.

const matches = (url: string, body: string | null = null) =>
  matchUrl(url, body).map((match) => [match.key, match.role, match.ids]);

describe('third-party-web categories and the loss model (item 4)', () => {
  it('maps every category the installed third-party-web uses', () => {
    const categories = new Set(thirdPartyWeb.entities.map((entity) => entity.category));
    expect([...categories].filter((category) => !(category in TPW_CATEGORIES))).toEqual([]);
  });

  it('counts marketing automation as analytics; chat, discontinued and noscript-only tags measure nothing', () => {
    expect(metricFor({ category: 'marketing' })).toBe('analytics_events');
    expect(metricFor({ category: 'customer_success' })).toBeNull();
    expect(metricFor({ category: 'analytics', discontinued_since: '2023-07-01' })).toBeNull();
    expect(metricFor({ category: 'advertising', activation: { state: 'noscript_only', mechanism: null } })).toBeNull();
    expect(metricFor({ category: 'advertising', activation: { state: 'delayed', mechanism: 'WP Rocket' } })).toBe(
      'ad_conversions',
    );
  });
});

describe('ids in vendors’ hits (item 4)', () => {
  const token = '0123456789abcdef0123456789abcdef';
  const event = JSON.stringify([{ event: '$mp_web_page_view', properties: { token } }]);

  it.each([
    ['https://js.hs-analytics.net/analytics/1700000000000/1234567.js', null, 'hubspot', '1234567'],
    [
      'https://api-js.mixpanel.com/track/?verbose=1',
      `data=${encodeURIComponent(Buffer.from(event).toString('base64'))}`,
      'mixpanel',
      token,
    ],
    [`https://api-js.mixpanel.com/track/?data=${encodeURIComponent(event)}`, null, 'mixpanel', token],
    ['https://rs.fullstory.com/rec/page?OrgId=o-1ABCDE-na1', null, 'fullstory', 'o-1ABCDE-na1'],
    ['https://edge.fullstory.com/s/settings/o-1ABCDE-na1/v1/web', null, 'fullstory', 'o-1ABCDE-na1'],
  ])('%s is %s %s', (url, body, key, id) => {
    expect(matchUrl(url, body).map((match) => [match.key, match.ids])).toEqual([[key, [id]]]);
  });

  it('reads no id where the hit has none', () => {
    expect(matches('https://api-js.mixpanel.com/track/?verbose=1', 'data=bm90IGpzb24=')).toEqual([
      ['mixpanel', 'hit', []],
    ]);
    expect(matches('https://js.hs-analytics.net/analytics/1700000000000/banner.js')).toEqual([
      ['hubspot', 'loader', []],
    ]);
  });
});

describe('the _ga cookie belongs to what was found (item 5)', () => {
  it('is GA4’s when GA4 was found, else Universal Analytics’, else nobody’s', () => {
    expect(trackerForCookie('_ga')).toBeNull();
    expect(trackerForCookie('_ga', (key) => key === 'universal_analytics')).toBe('universal_analytics');
    expect(trackerForCookie('_ga', () => true)).toBe('google_analytics_4');
    expect(trackerForCookie('_ga_ABC123')).toBe('google_analytics_4');
    expect(trackerForCookie('_gid')).toBe('universal_analytics');
  });
});

describe('Consent Mode v2 keys (item 6)', () => {
  const command = (kind: 'default' | 'update', keys: string[]) => ({
    command: kind,
    values: Object.fromEntries(keys.map((key) => [key, 'denied'])),
    source: 'code' as const,
  });

  it('needs both keys in the defaults or the updates', () => {
    expect(
      missingV2Keys([command('default', ['ad_storage', 'ad_user_data', 'ad_personalization'])], undefined),
    ).toEqual([]);
    expect(
      missingV2Keys(
        [command('default', ['ad_storage']), command('update', ['ad_user_data', 'ad_personalization'])],
        undefined,
      ),
    ).toEqual([]);
    expect(missingV2Keys([command('default', ['ad_storage', 'ad_user_data'])], '13p3p3p3p5')).toEqual([
      'ad_personalization',
    ]);
  });

  it('gcd alone is not v2: only its letters for the v2 keys count when no command was read', () => {
    expect(missingV2Keys([], '13p3p3l3l5')).toEqual(['ad_user_data', 'ad_personalization']);
    expect(missingV2Keys([], '13p3p3p3p5')).toEqual([]);
    expect(missingV2Keys([], 'garbled')).toEqual(['ad_user_data', 'ad_personalization']);
    expect(missingV2Keys([], undefined)).toEqual(['ad_user_data', 'ad_personalization']);
  });
});

describe('Google Ads cookieless pings (item 7)', () => {
  it.each([
    ['https://www.google.com/pagead/1p-user-list/123456789/?random=1&gcs=G100', 'AW-123456789'],
    ['https://www.google.de/pagead/1p-conversion/123456789/?random=1&gcs=G100', 'AW-123456789'],
    ['https://www.google.com/ccm/collect?en=page_view&gcs=G100', null],
    ['https://www.google.com/ccm/collect?en=page_view&tid=AW-123456789', 'AW-123456789'],
  ])('%s is a Google Ads hit', (url, id) => {
    expect(matches(url)).toEqual([['google_ads', 'hit', id ? [id] : []]]);
  });

  it('a GA4 id keeps ccm/collect GA4’s; the paths elsewhere are nobody’s', () => {
    expect(matches('https://www.google.com/ccm/collect?tid=G-ABC123')).toEqual([
      ['google_analytics_4', 'hit', ['G-ABC123']],
    ]);
    expect(matches('https://www.shop.test/pagead/1p-user-list/123456789/')).toEqual([]);
    expect(matches('https://www.shop.test/ccm/collect?en=page_view')).toEqual([]);
  });
});

describe('GTM custom loaders (item 8)', () => {
  it('a container id on another path of a non-Google host is a GTM loader', () => {
    expect(matches('https://data.shop.test/abcd.js?id=GTM-ABCD123')).toEqual([
      ['google_tag_manager', 'loader', ['GTM-ABCD123']],
    ]);
    expect(matches('https://data.shop.test/tm/gtm.js?id=GTM-ABCD123')).toEqual([
      ['google_tag_manager', 'loader', ['GTM-ABCD123']],
    ]);
  });

  it('other ids, Google’s own other paths and the noscript iframe are not', () => {
    expect(matches('https://data.shop.test/abcd.js?id=12345')).toEqual([]);
    expect(matches('https://data.shop.test/abcd.js?id=GTM')).toEqual([]);
    expect(matches('https://www.googletagmanager.com/other.js?id=GTM-ABCD123')).toEqual([]);
    expect(matches('https://data.shop.test/ns.html?id=GTM-ABCD123')).toEqual([
      ['google_tag_manager', 'loader', ['GTM-ABCD123']],
    ]);
  });
});

describe('a ccm/collect ping without a tag id (item 7)', () => {
  const runtime = (urls: string[]): RuntimeFindings => ({
    ...emptyRuntimeFindings('https://www.site.test/'),
    requests: urls.map((url, index) => ({
      url,
      method: 'GET',
      resourceType: url.includes('/gtag/js') ? 'script' : 'image',
      status: 200,
      failure: null,
      frameUrl: null,
      atMs: index,
      postData: null,
    })),
  });
  const ping = 'https://www.google.com/ccm/collect?en=page_view&gcs=G100';
  const firing = (urls: string[]) =>
    detect('https://www.site.test/', null, runtime(urls)).trackers.map((tracker) => [
      tracker.key,
      tracker.fires_before_consent,
    ]);

  it('is Google Ads’ when the page has Google Ads, or no other Google tag', () => {
    expect(firing(['https://www.googletagmanager.com/gtag/js?id=AW-123456789', ping])).toEqual([['google_ads', true]]);
    expect(firing([ping])).toEqual([['google_ads', true]]);
  });

  it('is GA4’s on a page with GA4 and no Google Ads', () => {
    expect(firing(['https://www.googletagmanager.com/gtag/js?id=G-ABC123', ping])).toEqual([
      ['google_analytics_4', true],
    ]);
  });
});
