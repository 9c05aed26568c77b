import { describe, expect, it } from 'vitest';
import { detect } from '../../src/scanner/detect.js';
import { parseHtml } from '../../src/scanner/parse.js';
import {
  CMP_RULES,
  ALL_CODE_RULES,
  collectionUrlsInCode,
  consentCommandsInCode,
  matchCode,
  matchScriptAttributes,
  matchUrl,
  serverUrlsInCode,
  trackerForCookie,
} from '../../src/scanner/signatures.js';
import { holdOf } from '../../src/scanner/signatures/holds.js';

// Stage-1 rules on their own: each with a case it must match and one that only looks like it.

describe('code signatures match identifiers, not substrings', () => {
  it.each(ALL_CODE_RULES.map((rule, index) => [index, rule.key, rule] as const))(
    'rule %i (%s) matches its example and not its counterexample',
    (_index, key, rule) => {
      expect(matchCode(rule.example).map((match) => match.key)).toContain(key);
      expect(matchCode(rule.counterexample).map((match) => match.key)).not.toContain(key);
    },
  );

  it('every CMP code pattern starts at an identifier or host boundary', () => {
    for (const rule of CMP_RULES)
      for (const pattern of rule.code) expect(pattern.source, rule.name).toMatch(/^(\(\?<!\[\\w[$-]\]\)|\\b)/);
  });

  it('consent commands, server and collection URLs are read from calls, not from longer names', () => {
    expect(consentCommandsInCode("gtag('consent', 'default', { ad_storage: 'denied' })")).toHaveLength(1);
    expect(consentCommandsInCode("mygtag('consent', 'default', { ad_storage: 'denied' })")).toEqual([]);
    expect(serverUrlsInCode("{ transport_url: 'https://sgtm.site.test' }")).toHaveLength(1);
    expect(serverUrlsInCode("{ my_transport_url: 'https://sgtm.site.test' }")).toEqual([]);
    expect(collectionUrlsInCode("posthog.init('phc_x', { api_host: 'https://e.site.test' })")).toEqual([
      { key: 'posthog', param: 'api_host', url: 'https://e.site.test' },
    ]);
    expect(collectionUrlsInCode("myposthog.init('phc_x', { api_host: 'https://e.site.test' })")).toEqual([]);
    // PostHog's documented rewrite: a path on the site itself.
    const rewrite = `<script>posthog.init('phc_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', { api_host: '/ingest', ui_host: 'https://eu.posthog.com' });</script>`;
    const detection = detect('https://www.site.test/', parseHtml(rewrite, 'https://www.site.test/'), null);
    expect(detection.trackers.map((tracker) => [tracker.key, tracker.first_party, tracker.endpoints])).toEqual([
      ['posthog', true, ['https://www.site.test/ingest']],
    ]);
  });
});

describe('scripts held back on purpose', () => {
  it.each([
    [{ type: 'text/plain', 'data-cookieconsent': 'marketing' }, 'consent', 'Cookiebot'],
    [{ type: 'text/plain', class: 'optanon-category-C0004' }, 'consent', 'OneTrust'],
    [{ type: 'text/plain', 'data-usercentrics': 'Google Analytics' }, 'consent', 'Usercentrics'],
    [{ type: 'text/plain', class: 'cmplz-script', 'data-category': 'marketing' }, 'consent', 'Complianz'],
    [{ type: 'text/plain', 'data-category': 'analytics' }, 'consent', 'CookieConsent (orestbida)'],
    [{ type: 'didomi/javascript', 'data-vendor': 'c:acme' }, 'consent', 'Didomi'],
    [{ type: 'text/template', 'data-borlabs-cookie-script-blocker-id': 'ga' }, 'consent', 'Borlabs Cookie'],
    [{ type: 'text/plain', 'data-cookie-category': 'stats' }, 'consent', null],
    [
      { type: 'rocketlazyloadscript', 'data-rocket-src': '/x.js' },
      'interaction',
      'WP Rocket (delay JavaScript execution)',
    ],
    [{ type: 'litespeed/javascript', 'data-src': '/x.js' }, 'interaction', 'LiteSpeed Cache (delay JS)'],
    [{ type: 'pmdelayedscript', src: '/x.js' }, 'interaction', 'Perfmatters (delay JavaScript)'],
    [{ type: 'lazy', 'data-src': '/x.js' }, 'interaction', 'Flying Scripts'],
    [{ type: 'text/partytown' }, 'worker', 'Partytown (runs in a web worker)'],
  ] as Array<[Record<string, string>, string, string | null]>)('%j is held (%s) by %s', (attributes, by, mechanism) => {
    expect(holdOf(attributes)).toMatchObject({ by, mechanism });
  });

  it.each([
    [{ type: 'text/template' }],
    [{ type: 'text/plain' }],
    [{ type: 'text/x-handlebars-template', 'data-name': 'row' }],
    [{ type: 'application/ld+json' }],
    [{ type: 'application/json', 'data-src': '/config.json' }],
  ])('%j is inert markup', (attributes) => {
    expect(holdOf(attributes)).toBeNull();
  });
});

describe('inert markup is not a tag', () => {
  const html = `<!doctype html><html><head>
<noscript><img src="https://www.facebook.com/tr?id=111122223333444&ev=PageView&noscript=1"></noscript>
<script type="text/template">gtag('config', 'G-TEMPLATE1');</script>
</head><body>
<template><script src="https://analytics.tiktok.com/i18n/pixel/events.js?sdkid=CTEMPLATE0123456789"></script><noscript><img src="https://px.ads.linkedin.com/collect/?pid=1"></noscript></template>
<!-- <script src="https://bat.bing.com/bat.js"></script> -->
<script type="text/plain" src="https://connect.facebook.net/en_US/fbevents.js"></script>
<noscript><img src="https://px.ads.linkedin.com/collect/?pid=4455667&fmt=gif"></noscript>
<script type="text/plain" data-cookieconsent="statistics">gtag('config', 'G-HELD00001');</script>
</body></html>`;
  const findings = parseHtml(html, 'https://www.inert.test/');

  it('keeps only scripts that run or are held back, and notes where <noscript> was', () => {
    expect(findings.scripts.map((script) => [script.src, script.hold?.mechanism ?? null])).toEqual([
      [null, 'Cookiebot'],
    ]);
    expect(findings.noscript.map((item) => [item.url, item.inHead])).toEqual([
      ['https://www.facebook.com/tr?id=111122223333444&ev=PageView&noscript=1', true],
      ['https://px.ads.linkedin.com/collect/?pid=4455667&fmt=gif', false],
    ]);
  });

  it('reports what is left as held or noscript-only', () => {
    const trackers = detect('https://www.inert.test/', findings, null).trackers;
    expect(trackers.map((tracker) => [tracker.key, tracker.ids, tracker.activation])).toEqual([
      ['linkedin_insight', ['4455667'], { state: 'noscript_only', mechanism: null }],
      ['meta_pixel', ['111122223333444'], { state: 'noscript_only', mechanism: null }],
      ['google_analytics_4', ['G-HELD00001'], { state: 'held_for_consent', mechanism: 'Cookiebot' }],
    ]);
  });
});

describe('collection protocols and script attributes', () => {
  const keys = (url: string, body: string | null = null) => matchUrl(url, body).map((match) => [match.key, match.ids]);

  it('recognises each protocol on any host, by path and payload', () => {
    expect(
      keys('https://stats.site.test/api/event', '{"n":"pageview","u":"https://site.test/","d":"site.test"}'),
    ).toEqual([['plausible', ['site.test']]]);
    expect(
      keys(
        'https://site.test/api/send',
        '{"type":"event","payload":{"website":"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"}}',
      ),
    ).toEqual([['umami', ['0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d']]]);
    expect(keys('https://e.site.test/e/?ip=1&ver=1.200.0', '{"api_key":"phc_abc"}')).toEqual([
      ['posthog', ['phc_abc']],
    ]);
    expect(keys('https://site.test/cdn-cgi/zaraz/t')).toEqual([['cloudflare_zaraz', []]]);
    expect(keys('https://seg.site.test/v1/p', '{"writeKey":"KEY123"}')).toEqual([['segment', ['KEY123']]]);
    expect(keys('https://site.test/count?p=%2F&rnd=abc')).toEqual([['goatcounter', []]]);
    expect(keys('https://acme.piwik.pro/ppms.php?idsite=0a1b&rec=1')).toEqual([['piwik_pro', ['0a1b']]]);
    expect(keys('https://www.site.test/cdn-cgi/rum')).toEqual([['cloudflare_web_analytics', []]]);
    expect(keys('https://www.site.test/_vercel/insights/view')).toEqual([['vercel_web_analytics', []]]);
  });

  it('does not take look-alike requests for them', () => {
    expect(keys('https://site.test/api/event', '{"name":"signup"}')).toEqual([]);
    expect(keys('https://site.test/api/event', 'n=pageview')).toEqual([]);
    expect(keys('https://site.test/api/send', '{"payload":{"website":"home"}}')).toEqual([]);
    expect(keys('https://site.test/e/')).toEqual([]);
    expect(keys('https://site.test/v1/p', '{"type":"page"}')).toEqual([]);
    expect(keys('https://site.test/count?p=%2F')).toEqual([]);
    expect(keys('https://site.test/cdn-cgi/challenge-platform/h/b')).toEqual([]);
    expect(keys('https://site.test/_vercel/image?url=x')).toEqual([]);
    expect(keys('https://site.test/api/rum')).toEqual([]);
  });

  it('reads tools configured through data-* attributes, only with their own script', () => {
    expect(
      matchScriptAttributes('https://plausible.io/js/script.outbound-links.js', { 'data-domain': 'site.test' }),
    ).toMatchObject([{ key: 'plausible', id: 'site.test', endpoint: null }]);
    expect(
      matchScriptAttributes('https://stats.site.test/script.js', {
        'data-website-id': '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
        'data-host-url': 'https://stats.site.test',
      }),
    ).toMatchObject([{ key: 'umami', endpoint: 'https://stats.site.test' }]);
    expect(
      matchScriptAttributes('https://static.cloudflareinsights.com/beacon.min.js', {
        'data-cf-beacon': '{"token": "0123456789abcdef0123456789abcdef"}',
      }),
    ).toMatchObject([{ key: 'cloudflare_web_analytics', id: '0123456789abcdef0123456789abcdef' }]);
    expect(matchScriptAttributes('https://cdn.site.test/app.js', { 'data-domain': 'site.test' })).toEqual([]);
    expect(matchScriptAttributes('https://cdn.site.test/widget.js', { 'data-site': 'ABCDEF' })).toEqual([]);
  });
});

describe('host evidence outranks shared APIs', () => {
  const matomoApi = `<script>var _paq = window._paq = window._paq || []; _paq.push(['setSiteId', '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d']); _paq.push(['setTrackerUrl', u + 'ppms.php']);</script>`;

  it('the Matomo API with a Piwik PRO host is Piwik PRO', () => {
    const html = `<html><head>${matomoApi.replace("'setSiteId', '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'", "'setSiteId', '12'")}<script src="https://acme.piwik.pro/ppms.js"></script></head></html>`;
    const trackers = detect('https://www.site.test/', parseHtml(html, 'https://www.site.test/'), null).trackers;
    expect(trackers.map((tracker) => [tracker.key, tracker.ids])).toEqual([['piwik_pro', ['12']]]);
    expect(trackers[0].evidence[0].detail).toMatch(
      /^Named Piwik PRO by its host acme\.piwik\.pro: the Matomo tracking API/,
    );
  });

  it('the Matomo API alone is Matomo', () => {
    const html = `<html><head>${matomoApi.replace("'setSiteId', '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'", "'setSiteId', '12'")}<script src="https://stats.site.test/matomo.js"></script></head></html>`;
    const trackers = detect('https://www.site.test/', parseHtml(html, 'https://www.site.test/'), null).trackers;
    expect(trackers.map((tracker) => [tracker.key, tracker.ids])).toEqual([['matomo', ['12']]]);
  });
});

describe('the long tail through third-party-web', () => {
  it('maps every tracking category (customer success, video) and names consent providers as CMPs', () => {
    const html = `<html><head><script src="https://widget.intercom.io/widget/abc123"></script><script src="https://player.vimeo.com/api/player.js"></script><script src="https://admiral.mgr.consensu.org/cmp.js"></script></head></html>`;
    const detection = detect('https://www.site.test/', parseHtml(html, 'https://www.site.test/'), null);
    expect(detection.trackers.map((tracker) => [tracker.key, tracker.category])).toEqual([
      ['intercom', 'customer_success'],
      ['tpw:Vimeo', 'video'],
    ]);
    expect(detection.consent.cmp?.name).toBe('Admiral CMP');
  });
});

describe('ids and cookies of vendors known by host', () => {
  it.each([
    ['https://mc.yandex.ru/watch/12345678?page-url=x', 'yandex_metrica', '12345678'],
    ['https://js.hs-scripts.com/1234567.js', 'hubspot', '1234567'],
    ['https://cdn.heapanalytics.com/js/heap-1234567890.js', 'heap', '1234567890'],
    ['https://cdn.taboola.com/libtrc/unip/1234567/tfa.js', 'taboola', '1234567'],
    ['https://widget.intercom.io/widget/abc123de', 'intercom', 'abc123de'],
    ['https://sslwidget.criteo.com/event?a=12345&v=5', 'criteo', '12345'],
    ['https://tr.outbrain.com/unifiedPixel?marketerId=00a1b2&obApiVersion=1', 'outbrain', '00a1b2'],
  ])('%s is %s %s', (url, key, id) => {
    expect(matchUrl(url).map((match) => [match.key, match.ids])).toEqual([[key, [id]]]);
  });

  it.each([
    ['https://notmc.yandex.ru/watch/12345678'],
    ['https://cdn.site.test/js/heap-1234567890.js'],
    ['https://www.site.test/1234567.js'],
    ['https://site.test/widget/abc123de'],
  ])('%s is nobody', (url) => {
    expect(matchUrl(url)).toEqual([]);
  });

  it.each([
    ['mp_0123456789abcdef0123456789abcdef_mixpanel', 'mixpanel'],
    ['AMP_0123456789', 'amplitude'],
    ['_hp2_id.1234567890', 'heap'],
    ['_ym_uid', 'yandex_metrica'],
    ['hubspotutk', 'hubspot'],
    ['cto_bundle', 'criteo'],
    ['intercom-id-abc123de', 'intercom'],
    ['ph_phc_AbCdEf0123_posthog', 'posthog'],
    ['cfz_google-analytics', 'cloudflare_zaraz'],
    ['FPID', 'google_analytics_4'],
    ['_pk_id.3.1fff', 'matomo'],
    ['_pk_id.0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.1fff', 'piwik_pro'],
    ['rl_anonymous_id', 'rudderstack'],
  ])('cookie %s belongs to %s', (name, key) => {
    expect(trackerForCookie(name)).toBe(key);
  });

  it.each([['mp_settings'], ['AMP_TOKEN'], ['fs_theme'], ['_ym'], ['intercom'], ['FPIDX'], ['rl_consent']])(
    'cookie %s belongs to nobody',
    (name) => {
      expect(trackerForCookie(name)).toBeNull();
    },
  );
});
