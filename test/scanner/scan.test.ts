import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scanner, ScanResultSchema, ScanTargetUnreachableError, type ScanResult } from '../../src/scanner/index.js';
import { useFixtureScanner } from '../fixtures/scanner/use-scanner.js';

// End to end: real Chromium, real HTTPS fixture server on 127.0.0.1 under vendor host names, no outside network.

const setup = useFixtureScanner({ bigPageBytes: 1_500_000 });

function valid(result: ScanResult): ScanResult {
  const errors = [...Value.Errors(ScanResultSchema, result)].slice(0, 5);
  expect(errors).toEqual([]);
  // JSON round trip: nothing that does not serialise.
  expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  return result;
}

const scan = (
  target: Scanner,
  host: string,
  path = '/',
  extra: Partial<{ aiSummary: boolean; language: 'en' | 'de' | 'fr' }> = {},
) =>
  target
    .scan({
      url: setup.fixture.url(host, path),
      aiSummary: extra.aiSummary ?? false,
      pagespeed: false,
      language: extra.language ?? 'en',
    })
    .then(valid);

const byKey = (result: ScanResult) => Object.fromEntries(result.trackers.map((tracker) => [tracker.key, tracker]));

describe('GTM + GA4 + Meta Pixel behind Cookiebot with Consent Mode v2', () => {
  let result: ScanResult;
  beforeAll(async () => {
    result = await scan(setup.scanner, 'shop.example.test');
  });

  it('runs both stages', () => {
    expect(result.stages.fetch).toMatchObject({ status: 'ok', http_status: 200, redirects: [] });
    expect(result.stages.browser.status).toBe('ok');
    expect(result.final_url).toBe(setup.fixture.url('shop.example.test'));
    expect(new Date(result.scanned_at).toISOString()).toBe(result.scanned_at);
    expect(result.warnings).toEqual([]);
  });

  it('finds the tags with their ids', () => {
    expect(result.trackers.map((tracker) => [tracker.key, tracker.ids, tracker.category])).toEqual([
      ['meta_pixel', ['123456789012345'], 'advertising'],
      ['google_analytics_4', ['G-TEST4567'], 'analytics'],
      ['google_tag_manager', ['GTM-TEST123'], 'tag_manager'],
    ]);
    const trackers = byKey(result);
    const kinds = (key: string) => [...new Set(trackers[key].evidence.map((item) => item.kind))].sort();
    expect(kinds('meta_pixel')).toEqual(['cookie', 'global', 'inline', 'noscript', 'request', 'script']);
    expect(kinds('google_tag_manager')).toEqual(['global', 'inline', 'noscript', 'script']);
    expect(trackers.google_analytics_4.evidence).toContainEqual(
      expect.objectContaining({ kind: 'request', detail: 'GA4 hit (event page_view) with gcs=G100' }),
    );
    for (const tracker of result.trackers) expect([tracker.first_party, tracker.server_side]).toEqual([false, false]);
  });

  it('reads the consent setup', () => {
    expect(result.consent.cmp?.name).toBe('Cookiebot');
    expect(result.consent.banner_detected).toBe(true);
    expect(result.consent.tcf_api).toBe(false);
    expect(result.consent.consent_mode).toEqual({
      detected: true,
      version: 'v2',
      mode: 'advanced',
      mode_explanation: expect.stringMatching(/^Advanced mode: Google tags load before consent/),
      defaults: {
        ad_storage: 'denied',
        analytics_storage: 'denied',
        ad_user_data: 'denied',
        ad_personalization: 'denied',
      },
      gcs: 'G100',
      gcd: '13p3p3p3p5',
    });
  });

  it('reports what fired before consent', () => {
    const trackers = byKey(result);
    expect(trackers.meta_pixel.fires_before_consent).toBe(true);
    expect(trackers.google_analytics_4.fires_before_consent).toBe(true);
    expect(trackers.google_tag_manager.fires_before_consent).toBe(false);
    expect(result.consent.tags_before_consent).toEqual([
      {
        key: 'meta_pixel',
        name: 'Meta Pixel',
        requests: 3,
        first_url: 'https://connect.facebook.net/en_US/fbevents.js',
        cookieless: false,
      },
      {
        key: 'google_analytics_4',
        name: 'Google Analytics 4',
        requests: 2,
        first_url: 'https://www.googletagmanager.com/gtag/js?id=G-TEST4567&l=dataLayer&cx=c',
        cookieless: true,
      },
    ]);
  });

  it('lists cookies with their owner, and no _ga while analytics storage is denied', () => {
    expect(result.cookies).toEqual([
      {
        name: '_fbp',
        domain: 'shop.example.test',
        first_party: true,
        tracker: 'meta_pixel',
        set_by: 'script',
        expires: expect.any(String),
      },
    ]);
  });

  it('estimates the loss with consent applied', () => {
    expect(result.loss_estimate.analytics_events?.lost_pct).toBe(28.2);
    expect(result.loss_estimate.ad_conversions?.lost_pct).toBe(40.2);
    expect(result.server_side_tagging).toEqual({ detected: false, evidence: [], endpoints: [] });
    expect(result.ai_summary).toBeNull();
    expect(result.pagespeed).toBeNull();
  });
});

it('Consent Mode basic: GTM waits, GA4 never loads', async () => {
  const result = await scan(setup.scanner, 'basic.example.test');
  expect(result.trackers.map((tracker) => tracker.key)).toEqual(['google_tag_manager']);
  expect(result.consent.consent_mode).toMatchObject({ detected: true, version: 'v2', mode: 'basic' });
  expect(result.consent.consent_mode.gcs).toBeUndefined();
  expect(result.consent.tags_before_consent).toEqual([]);
  expect(result.consent.cmp?.name).toBe('Cookiebot');
});

it('first-party server-side GTM on a subdomain', async () => {
  const result = await scan(setup.scanner, 'www.firstparty.test');
  const trackers = byKey(result);
  expect(Object.keys(trackers).sort()).toEqual(['google_analytics_4', 'google_tag_manager']);
  for (const key of ['google_analytics_4', 'google_tag_manager'])
    expect([trackers[key].first_party, trackers[key].server_side]).toEqual([true, true]);
  expect(result.server_side_tagging.detected).toBe(true);
  expect(result.server_side_tagging.endpoints).toEqual(['https://sgtm.firstparty.test']);
  expect(result.server_side_tagging.evidence.map((item) => item.detail)).toEqual([
    "gtm.js served from sgtm.firstparty.test (the site's own domain), not from Google",
    "gtag/js served from sgtm.firstparty.test (the site's own domain), not from Google",
    'GA4 hits sent to sgtm.firstparty.test, not to Google: a server-side container',
    "_ga set by an HTTP response on the site's domain (server-set cookie)",
  ]);
  expect(result.cookies).toEqual([
    {
      name: '_ga',
      domain: 'firstparty.test',
      first_party: true,
      tracker: 'google_analytics_4',
      set_by: 'http',
      expires: expect.any(String),
    },
  ]);
  expect(result.consent.cmp).toBeNull();
  expect(result.consent.banner_detected).toBe(false);
  // No consent mechanism: no consent loss; GA4 already first-party, so nothing left to recover.
  expect(result.loss_estimate.analytics_events).toEqual({
    lost_pct: 1.8,
    by_cause: { consent: 0, ad_blockers: 1.8, itp: 0 },
    lost_pct_with_server_side: 1.8,
    recoverable_pct: 0,
  });
});

it('a clean page has no findings', async () => {
  const result = await scan(setup.scanner, 'clean.example.test', '/', { aiSummary: true, language: 'de' });
  expect(result.trackers).toEqual([]);
  expect(result.cookies).toEqual([]);
  expect(result.consent).toEqual({
    cmp: null,
    tcf_api: false,
    consent_mode: {
      detected: false,
      version: null,
      mode: null,
      defaults: { ad_storage: null, analytics_storage: null, ad_user_data: null, ad_personalization: null },
    },
    banner_detected: false,
    tags_before_consent: [],
  });
  expect(result.loss_estimate).toMatchObject({ analytics_events: null, ad_conversions: null, per_tracker: [] });
  expect(result.ai_summary).toEqual({
    provider: 'builtin',
    language: 'de',
    text: 'Auf clean.example.test wurden keine Tracker gefunden. Weder eine Consent-Management-Plattform noch ein Cookie-Banner wurde erkannt.',
    recommendations: [
      'Es wurde kein Tracking gefunden: Falls Sie hier Analytics- oder Werbe-Tags erwarten, prüfen Sie, ob sie veröffentlicht sind.',
    ],
  });
});

it('many vendors without any consent mechanism', async () => {
  const result = await scan(setup.scanner, 'zoo.example.test');
  expect(Object.fromEntries(result.trackers.map((tracker) => [tracker.key, tracker.ids]))).toEqual({
    linkedin_insight: ['1234567'],
    bing_uet: ['87654321'],
    tiktok_pixel: ['CTESTPIXEL0123456789'],
    segment: ['SEGMENTWRITEKEY0123456789'],
    hotjar: ['3456789'],
    clarity: ['abcd1234ef'],
  });
  for (const tracker of result.trackers) {
    expect(tracker.fires_before_consent).toBe(true);
    expect(tracker.evidence.some((item) => item.kind === 'request')).toBe(true);
  }
  expect(result.cookies.map((cookie) => [cookie.name, cookie.tracker, cookie.set_by]).sort()).toEqual([
    ['_clck', 'clarity', 'script'],
    ['_hjSessionUser_3456789', 'hotjar', 'script'],
    ['_ttp', 'tiktok_pixel', 'script'],
    ['_uetvid', 'bing_uet', 'script'],
    ['ajs_anonymous_id', 'segment', 'script'],
  ]);
  expect(result.consent.cmp).toBeNull();
  for (const item of result.loss_estimate.per_tracker) expect(item.by_cause.consent).toBe(0);
});

it('follows a redirect chain to another host', async () => {
  const result = await scan(setup.scanner, 'redirect.example.test', '/start');
  expect(result.url).toBe(setup.fixture.url('redirect.example.test', '/start'));
  expect(result.final_url).toBe(setup.fixture.url('shop.example.test'));
  expect(result.stages.fetch.redirects).toEqual([
    setup.fixture.url('redirect.example.test', '/start'),
    setup.fixture.url('redirect.example.test', '/step2'),
  ]);
  expect(result.trackers.map((tracker) => tracker.key)).toContain('meta_pixel');
});

it('a redirect loop makes the target unreachable', async () => {
  const error = await setup.scanner
    .scan({
      url: setup.fixture.url('redirect.example.test', '/loop/0'),
      aiSummary: false,
      pagespeed: false,
      language: 'en',
    })
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ScanTargetUnreachableError);
  expect((error as Error).message).toContain('Stopped after 5 redirects');
});

it('an unknown host is unreachable', async () => {
  await expect(
    setup.scanner.scan({ url: 'https://nowhere.example.test/', aiSummary: false, pagespeed: false, language: 'en' }),
  ).rejects.toMatchObject({ name: 'ScanTargetUnreachableError', code: 'target_unreachable' });
});

it('runs scans in parallel up to the pool size', async () => {
  let maxActive = 0;
  let maxWaiting = 0;
  const poll = setInterval(() => {
    maxActive = Math.max(maxActive, setup.scanner.browserStats.active);
    maxWaiting = Math.max(maxWaiting, setup.scanner.browserStats.waiting);
  }, 20);
  try {
    const results = await Promise.all(
      ['shop.example.test', 'zoo.example.test', 'clean.example.test', 'www.firstparty.test'].map((host) =>
        scan(setup.scanner, host),
      ),
    );
    expect(results.map((result) => result.stages.browser.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(results.map((result) => result.trackers.length)).toEqual([3, 6, 0, 2]);
  } finally {
    clearInterval(poll);
  }
  expect(maxActive).toBe(2);
  expect(maxWaiting).toBeGreaterThan(0);
  expect(setup.scanner.browserStats).toEqual({ active: 0, waiting: 0 });
});

describe('limits', () => {
  let limited: Scanner;
  beforeAll(() => {
    limited = new Scanner(setup.fixture.scannerOptions({ maxPageBytes: 200_000, scanTimeoutMs: 6_000 }));
  });
  afterAll(() => limited?.close());

  it('cuts an oversized page at the cap and still analyses the start of it', async () => {
    const result = await scan(limited, 'big.example.test');
    expect(result.stages.fetch.status).toBe('partial');
    expect(result.warnings).toContainEqual({
      code: 'page_truncated',
      message: 'The page is larger than 200000 bytes; only the first 200000 bytes were analysed.',
    });
    expect(byKey(result).google_tag_manager.ids).toEqual(['GTM-BIG0001']);
  });

  it('writes warnings in the requested language', async () => {
    const german = await scan(limited, 'big.example.test', '/', { language: 'de' });
    expect(german.warnings).toContainEqual({
      code: 'page_truncated',
      message: 'Die Seite ist größer als 200000 Bytes; nur die ersten 200000 Bytes wurden ausgewertet.',
    });
    const french = await scan(limited, 'slow.example.test', '/', { language: 'fr' });
    expect(french.warnings.map((warning) => warning.code)).toEqual(['fetch_timeout', 'browser_timeout']);
    expect(french.warnings[0].message).toMatch(
      /^La requête HTTP a atteint sa limite de temps\. Les \d+ octets reçus jusque-là ont été analysés\.$/,
    );
    expect(french.warnings[1].message).toBe(
      "La page n'a pas fini de se charger à temps ; les résultats couvrent ce qu'elle a fait jusque-là.",
    );
  });

  it('returns a partial result when the page never finishes, within the scan time limit', async () => {
    const started = Date.now();
    const result = await scan(limited, 'slow.example.test');
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(result.duration_ms).toBeLessThanOrEqual(6_000);
    expect(result.stages.fetch.status).toBe('timeout');
    expect(result.stages.browser.status).toBe('timeout');
    expect(result.warnings.map((warning) => warning.code)).toEqual(['fetch_timeout', 'browser_timeout']);
    // The tag in the part that arrived was seen by both stages.
    const gtm = byKey(result).google_tag_manager;
    expect(gtm.ids).toEqual(['GTM-SLOW001']);
    expect(gtm.evidence.map((item) => item.kind)).toEqual(expect.arrayContaining(['inline', 'script']));
  });
});

it('a failing browser stage leaves a stage-1 result with a warning', async () => {
  const broken = new Scanner(setup.fixture.scannerOptions({ chromiumPath: '/nonexistent/chromium' }));
  try {
    const result = await scan(broken, 'shop.example.test');
    expect(result.stages.browser.status).toBe('failed');
    expect(result.warnings.map((warning) => warning.code)).toEqual(['browser_failed']);
    // GA4 is only loaded by the GTM container at run time, so the HTML alone shows GTM and the Meta Pixel.
    expect(result.trackers.map((tracker) => [tracker.key, tracker.fires_before_consent])).toEqual([
      ['meta_pixel', null],
      ['google_tag_manager', null],
    ]);
    expect(result.consent.banner_detected).toBeNull();
    expect(result.consent.consent_mode).toMatchObject({ detected: true, version: 'v2', mode: null });
  } finally {
    await broken.close();
  }
});

describe('ai_summary through the scanner', () => {
  let server: http.Server;
  let base: string;
  let fail = false;
  let lastBody: { messages: Array<{ content: string }> } | null = null;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        lastBody = JSON.parse(raw);
        if (fail) {
          res.writeHead(503).end('{}');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            choices: [
              {
                message: {
                  role: 'assistant',
                  content: JSON.stringify({ summary: 'Zusammenfassung.', recommendations: ['Eins.'] }),
                },
              },
            ],
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('uses the configured model, and falls back to the builtin writer when it fails', async () => {
    const withAi = new Scanner(
      setup.fixture.scannerOptions({ ai: { baseUrl: base, model: 'local-model', apiKey: 'k' } }),
    );
    try {
      const ok = await scan(withAi, 'shop.example.test', '/', { aiSummary: true, language: 'de' });
      expect(ok.ai_summary).toEqual({
        provider: 'openai_compatible',
        model: 'local-model',
        language: 'de',
        text: 'Zusammenfassung.',
        recommendations: ['Eins.'],
      });
      expect(lastBody?.messages[1].content).toContain('G-TEST4567');
      fail = true;
      const fallback = await scan(withAi, 'shop.example.test', '/', { aiSummary: true, language: 'de' });
      expect(fallback.ai_summary?.provider).toBe('builtin');
      expect(fallback.ai_summary?.text).toMatch(/^2 Tracker auf shop\.example\.test gefunden/);
      expect(fallback.warnings.map((warning) => warning.code)).toEqual(['ai_summary_fallback']);
      expect(fallback.stages.summary?.status).toBe('partial');
    } finally {
      await withAi.close();
    }
  });
});
