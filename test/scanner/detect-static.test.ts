import { describe, expect, it } from 'vitest';
import { detect, registrableDomain } from '../../src/scanner/detect.js';
import { parseHtml } from '../../src/scanner/parse.js';
import { matchCode, matchUrl } from '../../src/scanner/signatures.js';

// Stage 1 only: HTML in, findings out, no network.

const PAGE = `<!doctype html><html><head>
<meta charset="iso-8859-1"><meta name="generator" content="WordPress 6.5">
<title>Static &amp; friends</title>
<base href="https://www.static.test/sub/">
<script async src="https://www.googletagmanager.com/gtag/js?id=G-ABCDEF1234"></script>
<script>
  window.dataLayer = window.dataLayer || [];
  function gtag(){dataLayer.push(arguments);}
  gtag('consent', 'default', {'ad_storage': 'denied', 'analytics_storage': 'granted'});
  gtag('js', new Date());
  gtag('config', 'G-ABCDEF1234', { 'transport_url': 'https://collect.static.test', 'first_party_collection': true });
  gtag('config', 'AW-123456789');
  gtag('config', 'DC-1234567');
  gtag('config', 'UA-12345-6');
</script>
<script type="text/plain" data-cookieconsent="marketing">
  !function(){ var s=document.createElement('script'); s.src='https://connect.facebook.net/en_US/fbevents.js'; document.head.appendChild(s); }();
  fbq("init", "998877665544332");
</script>
<script>twq('config', 'o1abc');</script>
<script>pintrk('load', '2612345678901', { em: '' }); pintrk('page');</script>
<script>snaptr('init', 'a1b2c3d4-e5f6-4a5b-8c9d-0e1f2a3b4c5d', {});</script>
<script>
  var _paq = window._paq = window._paq || [];
  _paq.push(['trackPageView']);
  (function() { var u="https://stats.static.test/"; _paq.push(['setTrackerUrl', u+'matomo.php']); _paq.push(['setSiteId', '7']); })();
</script>
<script>(function(h,o,t,j){ h._hjSettings={hjid:1122334,hjsv:6}; })(window,document);</script>
<script>(function(c,l,a,r,i,t,y){ c[a]=c[a]||function(){}; })(window, document, "clarity", "script", "k9x8y7z6w5");</script>
<script>(function(w,d,t,r,u){ var o={ti:"55667788", enableAutoSpaTracking: true}; })(window,document,"script","//bat.bing.com/bat.js","uetq");</script>
<script type="application/ld+json">{"@type": "Organization", "name": "GTM-NOTATAG"}</script>
<script src="/wp-content/plugins/complianz-gdpr/cookiebanner/js/complianz.min.js"></script>
<link rel="preload" as="script" href="https://cdn.segment.com/analytics.js/v1/AbCdEfGhIjKlMnOp/analytics.min.js">
</head><body>
<noscript><img height="1" width="1" src="https://px.ads.linkedin.com/collect/?pid=4455667&fmt=gif"></noscript>
<noscript><img src="https://stats.static.test/matomo.php?idsite=7&rec=1" alt=""></noscript>
</body></html>`;

describe('parseHtml', () => {
  const findings = parseHtml(PAGE, 'https://www.static.test/');

  it('reads scripts, resolving URLs against <base>, and skips non-script types', () => {
    const srcs = findings.scripts.filter((script) => script.src).map((script) => script.src);
    expect(srcs).toContain('https://www.googletagmanager.com/gtag/js?id=G-ABCDEF1234');
    expect(srcs).toContain(
      'https://www.static.test/wp-content/plugins/complianz-gdpr/cookiebanner/js/complianz.min.js',
    );
    expect(findings.scripts.some((script) => script.code.includes('GTM-NOTATAG'))).toBe(false);
    expect(findings.preloads).toEqual(['https://cdn.segment.com/analytics.js/v1/AbCdEfGhIjKlMnOp/analytics.min.js']);
  });

  it('marks scripts held back by a CMP', () => {
    const gated = findings.scripts.find((script) => script.code.includes('fbq'));
    expect(gated?.hold).toEqual({
      by: 'consent',
      mechanism: 'Cookiebot',
      markers: 'type="text/plain" data-cookieconsent="marketing"',
    });
  });

  it('reads noscript pixels, meta and title', () => {
    expect(findings.noscript.map((item) => item.url)).toEqual([
      'https://px.ads.linkedin.com/collect/?pid=4455667&fmt=gif',
      'https://stats.static.test/matomo.php?idsite=7&rec=1',
    ]);
    expect(findings.meta).toEqual({ charset: 'iso-8859-1', refresh: null, generator: 'WordPress 6.5' });
    expect(findings.title).toBe('Static & friends');
  });
});

describe('detect from static HTML only', () => {
  const detection = detect('https://www.static.test/', parseHtml(PAGE, 'https://www.static.test/'), null);
  const byKey = Object.fromEntries(detection.trackers.map((tracker) => [tracker.key, tracker]));

  it('finds every tracker with its ids', () => {
    expect(Object.fromEntries(detection.trackers.map((tracker) => [tracker.key, tracker.ids]))).toEqual({
      google_analytics_4: ['G-ABCDEF1234'],
      google_ads: ['AW-123456789'],
      floodlight: ['DC-1234567'],
      universal_analytics: ['UA-12345-6'],
      meta_pixel: ['998877665544332'],
      x_pixel: ['o1abc'],
      pinterest_tag: ['2612345678901'],
      snap_pixel: ['a1b2c3d4-e5f6-4a5b-8c9d-0e1f2a3b4c5d'],
      matomo: ['7'],
      hotjar: ['1122334'],
      clarity: ['k9x8y7z6w5'],
      bing_uet: ['55667788'],
      segment: ['AbCdEfGhIjKlMnOp'],
      linkedin_insight: ['4455667'],
    });
  });

  it('cannot tell firing without a browser', () => {
    for (const tracker of detection.trackers) expect(tracker.fires_before_consent).toBeNull();
    expect(detection.consent.banner_detected).toBeNull();
    expect(detection.consent.tcf_api).toBeNull();
    expect(detection.consent.tags_before_consent).toEqual([]);
    expect(detection.cookies).toEqual([]);
  });

  it('keeps the CMP gating in the evidence', () => {
    expect(byKey.meta_pixel.evidence[0]).toEqual({
      kind: 'inline',
      detail: `fbq('init', '998877665544332') (held for consent by Cookiebot: type="text/plain" data-cookieconsent="marketing")`,
    });
    expect(byKey.meta_pixel.activation).toEqual({ state: 'held_for_consent', mechanism: 'Cookiebot' });
    expect(byKey.linkedin_insight.evidence[0].kind).toBe('noscript');
    expect(byKey.matomo.first_party).toBe(false); // only inline code and a noscript pixel: nothing was served
  });

  it('reads consent defaults (v1 keys only) and the CMP from its plugin path', () => {
    expect(detection.consent.cmp?.name).toBe('Complianz');
    expect(detection.consent.consent_mode).toEqual({
      detected: true,
      version: 'v1',
      missing_v2_keys: ['ad_user_data', 'ad_personalization'],
      mode: null,
      defaults: { ad_storage: 'denied', analytics_storage: 'granted', ad_user_data: null, ad_personalization: null },
    });
  });

  it('treats transport_url as server-side tagging for that measurement id', () => {
    expect(detection.serverSide.detected).toBe(true);
    expect(detection.serverSide.endpoints).toEqual(['https://collect.static.test']);
    expect(byKey.google_analytics_4.server_side).toBe(true);
    expect(byKey.google_ads.server_side).toBe(false);
  });
});

describe('signature rules', () => {
  it('classifies hits and loaders on vendor and first-party hosts', () => {
    expect(
      matchUrl('https://region1.google-analytics.com/g/collect?v=2&tid=G-XYZ9876&gcs=G101&gcd=13q3t3q3q5&en=page_view'),
    ).toEqual([
      {
        key: 'google_analytics_4',
        role: 'hit',
        ids: ['G-XYZ9876'],
        detail: 'GA4 hit (event page_view) with gcs=G101',
        gcs: 'G101',
        gcd: '13q3t3q3q5',
      },
    ]);
    expect(matchUrl('https://data.shop.test/g/collect?v=2&tid=G-XYZ9876')[0]).toMatchObject({
      key: 'google_analytics_4',
      role: 'hit',
    });
    expect(matchUrl('https://load.shop.test/gtm.js?id=GTM-ABCD12')[0]).toMatchObject({
      key: 'google_tag_manager',
      role: 'loader',
      ids: ['GTM-ABCD12'],
    });
    expect(matchUrl('https://www.googleadservices.com/pagead/conversion/123456789/?label=x')[0]).toMatchObject({
      key: 'google_ads',
      ids: ['AW-123456789'],
    });
    expect(matchUrl('https://ad.doubleclick.net/activity;src=7654321;type=sales;cat=buy;ord=1')[0]).toMatchObject({
      key: 'floodlight',
      ids: ['DC-7654321'],
    });
    expect(matchUrl('https://www.facebook.com/tr/?id=111222333444&ev=Purchase')[0]).toMatchObject({
      key: 'meta_pixel',
      role: 'hit',
      ids: ['111222333444'],
    });
    expect(matchUrl('https://ct.pinterest.com/v3/?event=init&tid=2612345678901')[0]).toMatchObject({
      key: 'pinterest_tag',
      ids: ['2612345678901'],
    });
    expect(matchUrl('https://analytics.twitter.com/i/adsct?txn_id=o1abc&p_id=Twitter')[0]).toMatchObject({
      key: 'x_pixel',
      ids: ['o1abc'],
    });
    expect(matchUrl('https://stats.shop.test/matomo.php?idsite=3&rec=1')[0]).toMatchObject({
      key: 'matomo',
      ids: ['3'],
    });
    expect(matchUrl('https://www.shop.test/products/gtm.json')).toEqual([]);
    expect(matchUrl('https://www.shop.test/tr?id=5')).toEqual([]); // /tr on a non-Meta host without an event is not a pixel
  });

  it('does not read ids out of unrelated strings', () => {
    expect(matchCode('var label = "G-Unit"; var x = "GTM-"; var y = "UA-1";')).toEqual([]);
  });

  it('computes registrable domains with public suffixes', () => {
    expect(registrableDomain('sgtm.shop.example.co.uk')).toBe('example.co.uk');
    expect(registrableDomain('www.firstparty.test')).toBe('firstparty.test');
  });
});
