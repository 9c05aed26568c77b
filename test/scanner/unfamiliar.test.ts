import { describe, expect, it } from 'vitest';
import { Scanner, type ScanResult } from '../../src/scanner/index.js';
import { scanFixture, useFixtureScanner } from '../fixtures/scanner/use-scanner.js';

// Set-ups the first fixtures did not have (issues 15 and 18), end to end in Chromium on the loopback fixture server.

const setup = useFixtureScanner({ bigPageBytes: 10_000 }, { observationCapMs: 10_000 });

const scan = (host: string, path = '/', target = setup.scanner): Promise<ScanResult> =>
  scanFixture(setup, host, path, target);

const byKey = (result: ScanResult) => Object.fromEntries(result.trackers.map((tracker) => [tracker.key, tracker]));

describe('what did not run is not a tracker', () => {
  it('requests refused by CSP or failed at the network level are blocked, not fired', async () => {
    const result = await scan('csp.example.test');
    const trackers = byKey(result);
    expect(trackers.meta_pixel).toMatchObject({
      ids: ['555566667777888'],
      fires_before_consent: false,
      blocked: [
        { url: 'https://connect.facebook.net/en_US/fbevents.js', reason: 'Content-Security-Policy (script-src-elem)' },
      ],
    });
    expect(trackers.tiktok_pixel).toMatchObject({
      fires_before_consent: false,
      blocked: [{ reason: 'Content-Security-Policy (img-src)' }],
    });
    // connect-src refuses a fetch before it starts: only the violation report shows it.
    expect(trackers.google_analytics_4).toMatchObject({
      ids: ['G-CSPBLOCK1'],
      fires_before_consent: false,
      blocked: [{ reason: 'Content-Security-Policy (connect-src)' }],
    });
    expect(trackers.linkedin_insight.fires_before_consent).toBe(false);
    expect(trackers.linkedin_insight.blocked?.[0].reason).toMatch(/^network error: net::ERR_/);
    expect(result.consent.tags_before_consent).toEqual([]);
  });

  it('markup that never runs is not a tag; a <noscript>-only pixel is reported as such', async () => {
    const result = await scan('inert.example.test');
    expect(
      result.trackers.map((tracker) => [tracker.key, tracker.ids, tracker.activation, tracker.fires_before_consent]),
    ).toEqual([['meta_pixel', ['111122223333444'], { state: 'noscript_only', mechanism: null }, false]]);
  });

  it('scripts a consent platform parks are held for consent, with the platform named', async () => {
    const result = await scan('held.example.test');
    expect(byKey(result).google_analytics_4).toMatchObject({
      ids: ['G-HELD00001'],
      activation: { state: 'held_for_consent', mechanism: 'Cookiebot' },
      fires_before_consent: false,
    });
    expect(result.consent.cmp?.name).toBe('Cookiebot');
  });
});

describe('a name is not a tracker', () => {
  it("the site's own globals and a snippet that never runs are only referenced: not counted, not estimated", async () => {
    const result = await setup.scanner.scan({
      url: setup.fixture.url('own-names.example.test', '/'),
      aiSummary: true,
      pagespeed: false,
      language: 'en',
    });
    const referenced = result.trackers.filter((tracker) => tracker.activation?.state === 'referenced');
    expect(referenced.map((tracker) => tracker.key).sort()).toEqual(['clarity', 'meta_pixel', 'pinterest_tag']);
    expect(referenced.every((tracker) => tracker.fires_before_consent === false)).toBe(true);
    expect(result.trackers).toHaveLength(referenced.length);
    expect(result.loss_estimate.analytics_events).toBeNull();
    expect(result.loss_estimate.ad_conversions).toBeNull();
    expect(result.ai_summary?.text).toMatch(/Named in the page's code but never loaded or sent anything/);
  });
});

describe('tags that load late', () => {
  it('scripts delayed until an interaction are named with their plug-in and run after a simulated visitor', async () => {
    const result = await scan('held.example.test');
    const trackers = byKey(result);
    // Each plug-in stand-in waits for one kind of interaction: key press, touch, scroll, pointer move.
    expect(
      Object.fromEntries(
        ['tiktok_pixel', 'hotjar', 'clarity', 'linkedin_insight'].map((key) => [
          key,
          [trackers[key].activation?.mechanism, trackers[key].fires_before_consent],
        ]),
      ),
    ).toEqual({
      tiktok_pixel: ['WP Rocket (delay JavaScript execution)', true],
      hotjar: ['Flying Scripts', true],
      clarity: ['LiteSpeed Cache (delay JS)', true],
      linkedin_insight: ['Perfmatters (delay JavaScript)', true],
    });
    expect(result.stages.browser.observation?.interactions).toEqual(['pointer_move', 'scroll', 'key_press', 'touch']);
  });

  it('brings forward a tag on a 6 s timer instead of waiting; a request that never answers does not hold the settle', async () => {
    const result = await scan('timer.example.test');
    expect(byKey(result).meta_pixel.fires_before_consent).toBe(true);
    expect(byKey(result).meta_pixel.activation).toBeUndefined();
    expect(result.stages.browser.observation).toMatchObject({ ended_by: 'network_quiet' });
    // Waiting for the timer took at least 6 s from the page's start.
    const observation = result.stages.browser.observation;
    expect(observation?.window_ms).toBeLessThan(6_000);
    expect(observation?.load_ms).toBeGreaterThan(0);
    expect(observation?.load_ms).toBeLessThan(observation?.window_ms ?? 0);
    expect(result.warnings).toEqual([]);
  });

  it('scrolls a long page to its end, so a tag on a 90 % scroll-depth trigger fires', async () => {
    const result = await scan('scroll.example.test');
    expect(byKey(result).meta_pixel).toMatchObject({ ids: ['777788889999000'], fires_before_consent: true });
    expect(result.stages.browser.observation?.interactions).toContain('scroll');
  });

  it('reports a window cut short by the cap', async () => {
    const capped = new Scanner(setup.fixture.scannerOptions({ observationCapMs: 2_000 }));
    try {
      const result = await scan('busy.example.test', '/', capped);
      expect(result.stages.browser.observation?.ended_by).toBe('cap');
      expect(result.warnings.map((warning) => warning.code)).toEqual(['observation_cut_short']);
      expect(result.warnings[0].message).toMatch(/^The page was still busy when observation ended after \d+ ms/);
    } finally {
      await capped.close();
    }
  });
});

describe('products are named by their own evidence', () => {
  it('first-party proxies: PostHog, Zaraz, Plausible, Segment and Matomo on the site’s own domain', async () => {
    const result = await scan('www.proxied.test');
    const trackers = byKey(result);
    const port = setup.fixture.port;
    expect(
      Object.fromEntries(
        result.trackers.map((tracker) => [tracker.key, [tracker.ids, tracker.first_party, tracker.endpoints]]),
      ),
    ).toEqual({
      posthog: [['phc_Fixture0123456789abcdefghijKLMN'], true, ['https://e.proxied.test', 'https://e.proxied.test/e/']],
      cloudflare_zaraz: [[], true, [`https://www.proxied.test:${port}/cdn-cgi/zaraz/t`]],
      plausible: [['proxied.test'], true, ['https://stats.proxied.test/api/event']],
      segment: [['SEGPROXYKEY0123456789'], true, ['https://seg.proxied.test/v1/p']],
      matomo: [['3'], true, ['https://stats.proxied.test/matomo.php']],
    });
    expect(trackers.posthog.server_side).toBe(true);
    expect(result.server_side_tagging.detected).toBe(true);
    expect(result.cookies.find((cookie) => cookie.name === 'cfz_google-analytics')?.tracker).toBe('cloudflare_zaraz');
  });

  it('the host of an API-compatible product outranks the shared API', async () => {
    const result = await scan('www.rudder.test');
    expect(result.trackers.map((tracker) => [tracker.key, tracker.ids])).toEqual([
      ['rudderstack', ['RUDDERWRITEKEY0123456789']],
    ]);
    expect(result.trackers[0].evidence[0].detail).toMatch(/^Named RudderStack by its host cdn\.rudderlabs\.com: /);
    expect(result.cookies.map((cookie) => [cookie.name, cookie.tracker])).toEqual([
      ['ajs_anonymous_id', 'rudderstack'],
    ]);
  });

  it('a banner no rule knows, and TCF CMPs by their registered id', async () => {
    const unknown = await scan('banner.example.test');
    expect(unknown.consent.cmp).toMatchObject({ name: null, banner_detected: true });
    expect(unknown.consent.banner_detected).toBe(true);
    const known = await scan('banner.example.test', '/tcf?id=134');
    expect(known.consent.cmp).toMatchObject({ name: 'Cookiebot', tcf_cmp_id: 134 });
    const unregistered = await scan('banner.example.test', '/tcf?id=4242');
    expect(unregistered.consent.cmp).toMatchObject({ name: null, tcf_cmp_id: 4242 });
  });
});
