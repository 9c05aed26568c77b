import { describe, expect, it } from 'vitest';
import { matchUrl } from '../../../src/scanner/signatures/urls.js';
import type { UrlMatch } from '../../../src/scanner/signatures/url-match.js';

// Every rule of matchUrl, and the cases between them (the else of Hotjar and Clarity, a URL two rules match, ids cut
// at 200 characters): the URL, the request body, and all it yields, in order.

const CASES: Array<[string, string | null, UrlMatch[]]> = [
  ['not a url', null, []],
  [
    'https://www.googletagmanager.com/gtm.js?id=GTM-ABCD12',
    null,
    [{ key: 'google_tag_manager', role: 'loader', ids: ['GTM-ABCD12'], detail: 'gtm.js loaded for GTM-ABCD12' }],
  ],
  [
    'https://www.googletagmanager.com/gtm.js',
    null,
    [{ key: 'google_tag_manager', role: 'loader', ids: [], detail: 'gtm.js loaded' }],
  ],
  [
    'https://load.shop.test/gtm.js?id=GTM-ABCD12&l=dataLayer',
    null,
    [{ key: 'google_tag_manager', role: 'loader', ids: ['GTM-ABCD12'], detail: 'gtm.js loaded for GTM-ABCD12' }],
  ],
  [
    'https://load.shop.test/gtm.js?id=G-XYZ9876',
    null,
    [{ key: 'google_tag_manager', role: 'loader', ids: [], detail: 'gtm.js loaded for G-XYZ9876' }],
  ],
  [
    'https://load.shop.test/gtm.js.map?id=GTM-ABCD12',
    null,
    [{ key: 'google_tag_manager', role: 'loader', ids: ['GTM-ABCD12'], detail: 'gtm.js loaded for GTM-ABCD12' }],
  ],
  ['https://load.shop.test/gtm.js.map?id=G-XYZ9876', null, []],
  [
    'https://data.shop.test/abcd.js?id=GTM-ABCD12',
    null,
    [
      {
        key: 'google_tag_manager',
        role: 'loader',
        ids: ['GTM-ABCD12'],
        detail: 'GTM container GTM-ABCD12 loaded through the custom loader /abcd.js',
      },
    ],
  ],
  ['https://www.google.com/abcd.js?id=GTM-ABCD12', null, []],
  ['https://data.shop.test/abcd.js?id=G-XYZ9876', null, []],
  [
    'https://www.googletagmanager.com/ns.html?id=GTM-ABCD12',
    null,
    [{ key: 'google_tag_manager', role: 'loader', ids: ['GTM-ABCD12'], detail: 'GTM noscript iframe for GTM-ABCD12' }],
  ],
  [
    'https://data.shop.test/ns.html?id=GTM-ABCD12',
    null,
    [{ key: 'google_tag_manager', role: 'loader', ids: ['GTM-ABCD12'], detail: 'GTM noscript iframe for GTM-ABCD12' }],
  ],
  ['https://www.googletagmanager.com/ns.html?id=G-XYZ9876', null, []],
  [
    'https://www.googletagmanager.com/gtag/js?id=G-XYZ9876',
    null,
    [{ key: 'google_analytics_4', role: 'loader', ids: ['G-XYZ9876'], detail: 'gtag.js loaded for G-XYZ9876' }],
  ],
  [
    'https://www.googletagmanager.com/gtag/js?id=AW-123456789',
    null,
    [{ key: 'google_ads', role: 'loader', ids: ['AW-123456789'], detail: 'gtag.js loaded for AW-123456789' }],
  ],
  [
    'https://www.googletagmanager.com/gtag/js?id=UA-1234567-1',
    null,
    [{ key: 'universal_analytics', role: 'loader', ids: ['UA-1234567-1'], detail: 'gtag.js loaded for UA-1234567-1' }],
  ],
  [
    'https://www.googletagmanager.com/gtag/js?id=DC-1234567',
    null,
    [{ key: 'floodlight', role: 'loader', ids: ['DC-1234567'], detail: 'gtag.js loaded for DC-1234567' }],
  ],
  [
    'https://www.googletagmanager.com/gtag/js?id=GT-ABCDEF',
    null,
    [{ key: 'google_tag', role: 'loader', ids: ['GT-ABCDEF'], detail: 'gtag.js loaded for GT-ABCDEF' }],
  ],
  [
    'https://www.googletagmanager.com/gtag/js',
    null,
    [{ key: 'google_tag', role: 'loader', ids: [], detail: 'gtag.js loaded' }],
  ],
  [
    'https://data.shop.test/gtag/js?id=GTM-ABCD12',
    null,
    [{ key: 'google_tag_manager', role: 'loader', ids: ['GTM-ABCD12'], detail: 'gtag.js loaded for GTM-ABCD12' }],
  ],
  [
    'https://region1.google-analytics.com/g/collect?v=2&tid=G-XYZ9876&gcs=G101&gcd=13q3t3q3q5&en=page_view',
    null,
    [
      {
        key: 'google_analytics_4',
        role: 'hit',
        ids: ['G-XYZ9876'],
        detail: 'GA4 hit (event page_view) with gcs=G101',
        gcs: 'G101',
        gcd: '13q3t3q3q5',
      },
    ],
  ],
  [
    'https://data.shop.test/g/collect?v=2&tid=G-XYZ9876',
    null,
    [{ key: 'google_analytics_4', role: 'hit', ids: ['G-XYZ9876'], detail: 'GA4 hit', gcs: undefined, gcd: undefined }],
  ],
  [
    'https://data.shop.test/g/collect?tid=G-XYZ9876&en=purchase',
    null,
    [
      {
        key: 'google_analytics_4',
        role: 'hit',
        ids: ['G-XYZ9876'],
        detail: 'GA4 hit (event purchase)',
        gcs: undefined,
        gcd: undefined,
      },
    ],
  ],
  ['https://data.shop.test/g/collect?v=1&tid=X', null, []],
  [
    'https://www.google-analytics.com/collect?v=1&tid=UA-1234567-1&t=pageview',
    null,
    [
      {
        key: 'universal_analytics',
        role: 'hit',
        ids: ['UA-1234567-1'],
        detail: 'Universal Analytics hit for UA-1234567-1',
      },
    ],
  ],
  [
    'https://www.google-analytics.com/r/collect?v=1&t=pageview',
    null,
    [{ key: 'universal_analytics', role: 'hit', ids: [], detail: 'Universal Analytics hit' }],
  ],
  [
    'https://www.google-analytics.com/j/collect?tid=UA-1234567-1',
    null,
    [
      {
        key: 'universal_analytics',
        role: 'hit',
        ids: ['UA-1234567-1'],
        detail: 'Universal Analytics hit for UA-1234567-1',
      },
    ],
  ],
  ['https://www.google-analytics.com/collect?v=2', null, []],
  [
    'https://data.shop.test/x/collect?tid=UA-1234567-2&v=1',
    null,
    [
      {
        key: 'universal_analytics',
        role: 'hit',
        ids: ['UA-1234567-2'],
        detail: 'Universal Analytics hit for UA-1234567-2',
      },
    ],
  ],
  ['https://data.shop.test/collect?v=1', null, []],
  [
    'https://www.google-analytics.com/analytics.js',
    null,
    [{ key: 'universal_analytics', role: 'loader', ids: [], detail: 'analytics.js loaded' }],
  ],
  [
    'https://ssl.google-analytics.com/ga.js',
    null,
    [{ key: 'universal_analytics', role: 'loader', ids: [], detail: 'analytics.js loaded' }],
  ],
  ['https://cdn.shop.test/analytics.js', null, []],
  [
    'https://www.googleadservices.com/pagead/conversion/123456789/?label=x',
    null,
    [
      {
        key: 'google_ads',
        role: 'hit',
        ids: ['AW-123456789'],
        detail: 'Google Ads conversion/remarketing hit for AW-123456789',
        gcs: undefined,
        gcd: undefined,
      },
    ],
  ],
  ['https://googleads.g.doubleclick.net/pagead/viewthrough conversion/123456789/', null, []],
  [
    'https://googleads.g.doubleclick.net/pagead/viewthroughconversion/123456789/?gcs=G111&gcd=13r3r3r3r5',
    null,
    [
      {
        key: 'google_ads',
        role: 'hit',
        ids: ['AW-123456789'],
        detail: 'Google Ads conversion/remarketing hit for AW-123456789 with gcs=G111',
        gcs: 'G111',
        gcd: '13r3r3r3r5',
      },
    ],
  ],
  [
    'https://data.shop.test/pagead/conversion/123456789/?gcs=G100',
    null,
    [
      {
        key: 'google_ads',
        role: 'hit',
        ids: ['AW-123456789'],
        detail: 'Google Ads conversion/remarketing hit for AW-123456789 with gcs=G100',
        gcs: 'G100',
        gcd: undefined,
      },
    ],
  ],
  ['https://data.shop.test/pagead/conversion/123456789/', null, []],
  [
    'https://www.google.com/pagead/1p-user-list/123456789/?gcs=G100&gcd=13p3p3p2p5',
    null,
    [
      {
        key: 'google_ads',
        role: 'hit',
        ids: ['AW-123456789'],
        detail: 'Google Ads remarketing ping (1p-user-list) for AW-123456789 with gcs=G100',
        gcs: 'G100',
        gcd: '13p3p3p2p5',
      },
    ],
  ],
  [
    'https://www.google.de/pagead/1p-conversion/987654321/',
    null,
    [
      {
        key: 'google_ads',
        role: 'hit',
        ids: ['AW-987654321'],
        detail: 'Google Ads conversion ping (1p-conversion) for AW-987654321',
        gcs: undefined,
        gcd: undefined,
      },
    ],
  ],
  ['https://data.shop.test/pagead/1p-user-list/123456789/', null, []],
  [
    'https://www.google.com/ccm/collect?tid=AW-123456789&gcs=G100',
    null,
    [
      {
        key: 'google_ads',
        role: 'hit',
        ids: ['AW-123456789'],
        detail: 'Google conversion measurement ping (ccm/collect) for AW-123456789 with gcs=G100',
        gcs: 'G100',
        gcd: undefined,
      },
    ],
  ],
  [
    'https://www.google.com/ccm/collect?tid=G-XYZ9876',
    null,
    [
      {
        key: 'google_analytics_4',
        role: 'hit',
        ids: ['G-XYZ9876'],
        detail: 'Google conversion measurement ping (ccm/collect) for G-XYZ9876',
        gcs: undefined,
        gcd: undefined,
      },
    ],
  ],
  [
    'https://www.google.com/ccm/collect?en=conversion',
    null,
    [
      {
        key: 'google_ads',
        role: 'hit',
        ids: [],
        detail: 'Google conversion measurement ping (ccm/collect)',
        gcs: undefined,
        gcd: undefined,
        untagged: true,
      },
    ],
  ],
  [
    'https://www.google.com/ccm/collect?tid=XYZ&gcd=13l3l3l3l1',
    null,
    [
      {
        key: 'google_ads',
        role: 'hit',
        ids: [],
        detail: 'Google conversion measurement ping (ccm/collect) for XYZ',
        gcs: undefined,
        gcd: '13l3l3l3l1',
        untagged: true,
      },
    ],
  ],
  ['https://data.shop.test/ccm/collect?tid=AW-123456789', null, []],
  [
    'https://ad.doubleclick.net/activity;src=7654321;type=sales;cat=buy;ord=1',
    null,
    [{ key: 'floodlight', role: 'hit', ids: ['DC-7654321'], detail: 'Floodlight activity hit' }],
  ],
  [
    'https://ad.doubleclick.net/activity/type=sales?src=1234567',
    null,
    [{ key: 'floodlight', role: 'hit', ids: ['DC-1234567'], detail: 'Floodlight activity hit' }],
  ],
  [
    'https://ad.doubleclick.net/activity;type=sales',
    null,
    [{ key: 'floodlight', role: 'hit', ids: [], detail: 'Floodlight activity hit' }],
  ],
  [
    'https://connect.facebook.net/en_US/fbevents.js',
    null,
    [{ key: 'meta_pixel', role: 'loader', ids: [], detail: 'fbevents.js loaded' }],
  ],
  [
    'https://connect.facebook.net/signals/config/111222333444?v=2.9',
    null,
    [{ key: 'meta_pixel', role: 'loader', ids: ['111222333444'], detail: 'Meta Pixel configuration loaded' }],
  ],
  [
    'https://www.facebook.com/tr/?id=111222333444&ev=Purchase&eid=order-1',
    null,
    [
      {
        key: 'meta_pixel',
        role: 'hit',
        ids: ['111222333444'],
        detail: 'Meta Pixel hit (Purchase) with an eventID set (deduplication with the Conversions API)',
      },
    ],
  ],
  [
    'https://www.facebook.com/tr?id=111222333444',
    null,
    [{ key: 'meta_pixel', role: 'hit', ids: ['111222333444'], detail: 'Meta Pixel hit' }],
  ],
  [
    'https://data.shop.test/tr?id=111222333444&ev=PageView',
    null,
    [{ key: 'meta_pixel', role: 'hit', ids: ['111222333444'], detail: 'Meta Pixel hit (PageView)' }],
  ],
  ['https://www.shop.test/tr?id=5', null, []],
  ['https://www.facebook.com/tr/?ev=PageView', null, []],
  [
    'https://analytics.tiktok.com/i18n/pixel/events.js?sdkid=CTESTPIXEL0123456789&lib=ttq',
    null,
    [{ key: 'tiktok_pixel', role: 'loader', ids: ['CTESTPIXEL0123456789'], detail: 'TikTok pixel loaded' }],
  ],
  [
    'https://analytics.tiktok.com/api/v2/pixel?x=1',
    null,
    [{ key: 'tiktok_pixel', role: 'hit', ids: [], detail: 'TikTok pixel hit' }],
  ],
  [
    'https://analytics.tiktok.com/api/v2/pixel/act',
    null,
    [{ key: 'tiktok_pixel', role: 'hit', ids: [], detail: 'TikTok pixel hit' }],
  ],
  [
    'https://snap.licdn.com/li.lms-analytics/insight.min.js',
    null,
    [{ key: 'linkedin_insight', role: 'loader', ids: [], detail: 'LinkedIn Insight Tag loaded' }],
  ],
  [
    'https://snap.licdn.com/li.lms-analytics/insight.js',
    null,
    [{ key: 'linkedin_insight', role: 'loader', ids: [], detail: 'LinkedIn Insight Tag loaded' }],
  ],
  [
    'https://px.ads.linkedin.com/collect/?pid=1234567&fmt=gif',
    null,
    [{ key: 'linkedin_insight', role: 'hit', ids: ['1234567'], detail: 'LinkedIn Insight hit' }],
  ],
  [
    'https://px.ads.linkedin.com/attribution_trigger?pid=1234567',
    null,
    [{ key: 'linkedin_insight', role: 'hit', ids: ['1234567'], detail: 'LinkedIn Insight hit' }],
  ],
  [
    'https://www.linkedin.com/collect?pid=42',
    null,
    [{ key: 'linkedin_insight', role: 'hit', ids: ['42'], detail: 'LinkedIn Insight hit' }],
  ],
  ['https://bat.bing.com/bat.js', null, [{ key: 'bing_uet', role: 'loader', ids: [], detail: 'UET bat.js loaded' }]],
  [
    'https://bat.bing.com/action/0?ti=12345678&Ver=2',
    null,
    [{ key: 'bing_uet', role: 'hit', ids: ['12345678'], detail: 'UET hit' }],
  ],
  [
    'https://s.pinimg.com/ct/core.js',
    null,
    [{ key: 'pinterest_tag', role: 'loader', ids: [], detail: 'Pinterest tag loaded' }],
  ],
  [
    'https://ct.pinterest.com/v3/?event=init&tid=2612345678901',
    null,
    [{ key: 'pinterest_tag', role: 'hit', ids: ['2612345678901'], detail: 'Pinterest tag hit' }],
  ],
  ['https://www.pinterest.com/v3/?tid=2612345678901', null, []],
  [
    'https://sc-static.net/scevent.min.js',
    null,
    [{ key: 'snap_pixel', role: 'loader', ids: [], detail: 'Snap Pixel loaded' }],
  ],
  ['https://tr.snapchat.com/p', null, [{ key: 'snap_pixel', role: 'hit', ids: [], detail: 'Snap Pixel hit' }]],
  ['https://tr-shadow.snapchat.com/p', null, [{ key: 'snap_pixel', role: 'hit', ids: [], detail: 'Snap Pixel hit' }]],
  ['https://www.snapchat.com/p', null, []],
  [
    'https://static.ads-twitter.com/uwt.js',
    null,
    [{ key: 'x_pixel', role: 'loader', ids: [], detail: 'X pixel loaded' }],
  ],
  [
    'https://static.ads-twitter.com/oct.js',
    null,
    [{ key: 'x_pixel', role: 'loader', ids: [], detail: 'X pixel loaded' }],
  ],
  [
    'https://analytics.twitter.com/i/adsct?txn_id=o1abc&p_id=Twitter',
    null,
    [{ key: 'x_pixel', role: 'hit', ids: ['o1abc'], detail: 'X pixel hit' }],
  ],
  ['https://t.co/i/adsct?txn_id=o1abc', null, [{ key: 'x_pixel', role: 'hit', ids: ['o1abc'], detail: 'X pixel hit' }]],
  [
    'https://static.hotjar.com/c/hotjar-1234567.js?sv=6',
    null,
    [{ key: 'hotjar', role: 'loader', ids: ['1234567'], detail: 'Hotjar loaded for site 1234567' }],
  ],
  ['https://vc.hotjar.io/sessions/1', null, [{ key: 'hotjar', role: 'hit', ids: [], detail: 'Hotjar request' }]],
  ['https://in.hotjar.com/api/v2/client', null, [{ key: 'hotjar', role: 'hit', ids: [], detail: 'Hotjar request' }]],
  [
    'https://www.clarity.ms/tag/abcdef1234',
    null,
    [{ key: 'clarity', role: 'loader', ids: ['abcdef1234'], detail: 'Clarity tag loaded for project abcdef1234' }],
  ],
  ['https://x.clarity.ms/collect', null, [{ key: 'clarity', role: 'hit', ids: [], detail: 'Clarity hit' }]],
  [
    'https://scripts.clarity.ms/0.7.34/clarity.js',
    null,
    [{ key: 'clarity', role: 'loader', ids: [], detail: 'Clarity script loaded' }],
  ],
  [
    'https://stats.shop.test/matomo.js',
    null,
    [{ key: 'matomo', role: 'loader', ids: [], detail: 'matomo.js loaded', byHost: false }],
  ],
  [
    'https://stats.shop.test/piwik.js',
    null,
    [{ key: 'matomo', role: 'loader', ids: [], detail: 'piwik.js loaded', byHost: false }],
  ],
  [
    'https://shop.matomo.cloud/matomo.js',
    null,
    [{ key: 'matomo', role: 'loader', ids: [], detail: 'matomo.js loaded', byHost: true }],
  ],
  [
    'https://cdn.innocraft.cloud/shop.matomo.cloud/matomo.js',
    null,
    [{ key: 'matomo', role: 'loader', ids: [], detail: 'matomo.js loaded', byHost: true }],
  ],
  [
    'https://shop.piwik.pro/piwik.js',
    null,
    [{ key: 'piwik_pro', role: 'loader', ids: [], detail: 'Piwik PRO request', byHost: true }],
  ],
  [
    'https://stats.shop.test/matomo.php?idsite=3&rec=1',
    null,
    [{ key: 'matomo', role: 'hit', ids: ['3'], detail: 'Matomo hit for site 3', byHost: false }],
  ],
  [
    'https://shop.matomo.cloud/piwik.php?idsite=1',
    null,
    [{ key: 'matomo', role: 'hit', ids: ['1'], detail: 'Matomo hit for site 1', byHost: true }],
  ],
  ['https://stats.shop.test/matomo.php?rec=1', null, []],
  [
    'https://shop.piwik.pro/piwik.php?idsite=1',
    null,
    [{ key: 'piwik_pro', role: 'hit', ids: ['1'], detail: 'Piwik PRO request', byHost: true }],
  ],
  [
    'https://cdn.segment.com/analytics.js/v1/abcdefghij0123456789/analytics.min.js',
    null,
    [
      {
        key: 'segment',
        role: 'loader',
        ids: ['abcdefghij0123456789'],
        detail: 'Segment analytics.js loaded',
        byHost: true,
      },
    ],
  ],
  [
    'https://cdn.shop.test/analytics.js/v1/abcdefghij0123456789/analytics.js',
    null,
    [
      {
        key: 'segment',
        role: 'loader',
        ids: ['abcdefghij0123456789'],
        detail: 'Segment analytics.js loaded',
        byHost: false,
      },
    ],
  ],
  [
    'https://api.segment.io/v1/t',
    null,
    [{ key: 'segment', role: 'hit', ids: [], detail: 'Segment API call', byHost: true }],
  ],
  [
    'https://api.segment.io/v1/batch',
    null,
    [{ key: 'segment', role: 'hit', ids: [], detail: 'Segment API call', byHost: true }],
  ],
  ['https://api.segment.io/v1/other', null, []],
  ['https://www.shop.test/products/gtm.json', null, []],
  ['https://www.shop.test/', null, []],
  [
    'https://data.shop.test/g/collect?v=2&tid=G-XYZ9876&id=GTM-ABCD12',
    null,
    [
      {
        key: 'google_tag_manager',
        role: 'loader',
        ids: ['GTM-ABCD12'],
        detail: 'GTM container GTM-ABCD12 loaded through the custom loader /g/collect',
      },
      { key: 'google_analytics_4', role: 'hit', ids: ['G-XYZ9876'], detail: 'GA4 hit', gcs: undefined, gcd: undefined },
    ],
  ],
  [
    'https://www.google-analytics.com/g/collect?v=2&tid=G-XYZ9876&en=page_view',
    null,
    [
      {
        key: 'google_analytics_4',
        role: 'hit',
        ids: ['G-XYZ9876'],
        detail: 'GA4 hit (event page_view)',
        gcs: undefined,
        gcd: undefined,
      },
    ],
  ],
  [
    'https://www.google.com/pagead/1p-user-list/123456789/?gcs=G100',
    null,
    [
      {
        key: 'google_ads',
        role: 'hit',
        ids: ['AW-123456789'],
        detail: 'Google Ads remarketing ping (1p-user-list) for AW-123456789 with gcs=G100',
        gcs: 'G100',
        gcd: undefined,
      },
    ],
  ],
  [
    'https://data.shop.test/abcd.js?id=GTM-ABCD12&gcs=G100',
    null,
    [
      {
        key: 'google_tag_manager',
        role: 'loader',
        ids: ['GTM-ABCD12'],
        detail: 'GTM container GTM-ABCD12 loaded through the custom loader /abcd.js',
      },
    ],
  ],
  [
    'https://load.shop.test/gtm.js?id=GTM-ABCD12&gcs=G100',
    null,
    [{ key: 'google_tag_manager', role: 'loader', ids: ['GTM-ABCD12'], detail: 'gtm.js loaded for GTM-ABCD12' }],
  ],
  [
    'https://www.facebook.com/tr/?id=111222333444&ev=PageView',
    'id=1&ev=PageView',
    [{ key: 'meta_pixel', role: 'hit', ids: ['111222333444'], detail: 'Meta Pixel hit (PageView)' }],
  ],
  [
    'https://www.googletagmanager.com/gtag/js?id=G-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    null,
    [{ key: 'google_tag', role: 'loader', ids: [], detail: 'gtag.js loaded' }],
  ],
  [
    'https://static.hotjar.com/gtm.js?id=GTM-ABCD12',
    null,
    [
      { key: 'google_tag_manager', role: 'loader', ids: ['GTM-ABCD12'], detail: 'gtm.js loaded for GTM-ABCD12' },
      { key: 'hotjar', role: 'hit', ids: [], detail: 'Hotjar request' },
    ],
  ],
  [
    'https://data.shop.test/collect?tid=UA-1234567-1&id=GTM-ABCD12',
    null,
    [
      {
        key: 'google_tag_manager',
        role: 'loader',
        ids: ['GTM-ABCD12'],
        detail: 'GTM container GTM-ABCD12 loaded through the custom loader /collect',
      },
      {
        key: 'universal_analytics',
        role: 'hit',
        ids: ['UA-1234567-1'],
        detail: 'Universal Analytics hit for UA-1234567-1',
      },
    ],
  ],
  [
    'https://www.clarity.ms/tag/abcdef1234/collect',
    null,
    [{ key: 'clarity', role: 'loader', ids: ['abcdef1234'], detail: 'Clarity tag loaded for project abcdef1234' }],
  ],
  [
    'https://analytics.tiktok.com/i18n/pixel/events.js',
    null,
    [{ key: 'tiktok_pixel', role: 'loader', ids: [], detail: 'TikTok pixel loaded' }],
  ],
  [
    'https://connect.facebook.net/signals/config/111222333444/fbevents.js',
    null,
    [
      { key: 'meta_pixel', role: 'loader', ids: [], detail: 'fbevents.js loaded' },
      { key: 'meta_pixel', role: 'loader', ids: ['111222333444'], detail: 'Meta Pixel configuration loaded' },
    ],
  ],
];

describe('matchUrl, rule by rule', () => {
  it.each(CASES)('%s', (url, body, expected) => {
    expect(matchUrl(url, body)).toStrictEqual(expected);
  });
});
