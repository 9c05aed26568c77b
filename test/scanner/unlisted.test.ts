import { describe, expect, it } from 'vitest';
import type { UnlistedTracker } from '../../src/scanner/index.js';
import { scanFixture, useFixtureScanner } from '../fixtures/scanner/use-scanner.js';

// Issue 31, mechanisms 1 and 2: third parties no rule names, reported from what they did (pages-unlisted.ts).

const setup = useFixtureScanner({ bigPageBytes: 10_000 }, { observationCapMs: 4_000 });

const scan = (host: string) => scanFixture(setup, host);

/** Everything but the evidence details, which name URLs with the fixture's port. */
const outline = (found: UnlistedTracker) => ({ ...found, evidence: found.evidence.map((item) => item.kind) });

describe('unlisted trackers, named from evidence', () => {
  it('a session-replay vendor no list knows: script, project id, its cookie, what was typed, a service worker', async () => {
    const result = await scan('www.replay-shop.test');
    expect(result.unlisted_trackers?.map(outline)).toEqual([
      {
        domain: 'example-replay.test',
        first_party: false,
        name: null,
        hosts: ['cdn.example-replay.test', 'ingest.example-replay.test'],
        category_guess: 'session_replay',
        confidence: 'high',
        evidence: ['typed_value_sent', 'service_worker', 'id_parameter', 'cookie', 'beacon', 'script'],
        ids: ['prj_8Hk2Lq'],
      },
    ]);
    const details = result.unlisted_trackers?.[0].evidence.map((item) => item.detail);
    expect(details).toContain('projectId=prj_8Hk2Lq in its requests');
    expect(details).toContain('cookie _exr_session written by https://cdn.example-replay.test/recorder.js');
    expect(details?.[1]).toMatch(
      /^service worker https:\/\/www\.replay-shop\.test:\d+\/exr-sw\.js registered by https:\/\/cdn\.example-replay\.test\/recorder\.js$/,
    );
  });

  it('never joins the named trackers, their hosts, the summary or the loss estimate', async () => {
    const result = await setup.scanner.scan({
      url: setup.fixture.url('www.replay-shop.test', '/'),
      aiSummary: true,
      pagespeed: false,
      language: 'en',
    });
    expect(result.trackers.map((tracker) => tracker.key)).toEqual(['meta_pixel']);
    expect(result.ai_summary?.text).toMatch(/Meta Pixel/);
    expect(result.ai_summary?.text).not.toMatch(/example-replay|replay\.test/);
    expect(result.loss_estimate.per_tracker.map((tracker) => tracker.key)).toEqual(['meta_pixel']);
    expect(result.unlisted_trackers?.map((found) => found.domain)).toEqual(['example-replay.test']);
  });

  it('a regional counter: its site id and its cookie beside its script make it medium', async () => {
    const result = await scan('www.regional-news.test');
    expect(result.trackers).toEqual([]);
    expect(result.unlisted_trackers?.map(outline)).toEqual([
      {
        domain: 'example-metrics.test',
        first_party: false,
        name: null,
        hosts: ['stat.example-metrics.test'],
        category_guess: null,
        confidence: 'medium',
        evidence: ['id_parameter', 'cookie', 'script'],
        ids: ['48213'],
      },
    ]);
  });

  it('a vendor third-party-web files as a utility is listed by what it did (mechanism 2)', async () => {
    const result = await scan('www.push-shop.test');
    expect(result.trackers).toEqual([]);
    expect(result.unlisted_trackers?.map(outline)).toEqual([
      {
        domain: 'onesignal.com',
        first_party: false,
        name: 'OneSignal',
        hosts: ['cdn.onesignal.com', 'onesignal.com'],
        category_guess: null,
        confidence: 'high',
        evidence: ['service_worker', 'id_parameter', 'beacon', 'script'],
        ids: ['5eb5a37e-b458-11e3-ac11-000c2940e62c'],
      },
    ]);
  });

  it('a library from a CDN, a font host, an image host and the site’s own identify() are not trackers', async () => {
    const result = await scan('www.plain-site.test');
    expect(result.trackers).toEqual([]);
    expect(result.unlisted_trackers).toEqual([]);
    const requested = setup.fixture.log.filter((line) => /example-(libs|type|media)\.test/.test(line));
    expect(requested.length).toBeGreaterThanOrEqual(3);
  });
});

describe('storage as evidence', () => {
  it("a vendor's visitor id in localStorage counts beside its script; the site's own stored ids count for no one", async () => {
    const result = await scan('www.storage-shop.test');
    expect(result.trackers).toEqual([]);
    expect(result.unlisted_trackers?.map(outline)).toEqual([
      {
        domain: 'example-persist.test',
        first_party: false,
        name: null,
        hosts: ['cdn.example-persist.test'],
        category_guess: null,
        confidence: 'low',
        evidence: ['storage', 'script'],
        ids: [],
      },
    ]);
    expect(result.unlisted_trackers?.[0].evidence[0].detail).toBe(
      'localStorage _epx_uid (an identifier) written by https://cdn.example-persist.test/p.js',
    );
    const details = result.unlisted_trackers?.flatMap((found) => found.evidence.map((item) => item.detail)).join(' ');
    expect(details).not.toMatch(/cart_token|checkout_session|_epx_views/);
  });

  it('a library from a CDN that stores preferences (theme, font size, settings) is not listed', async () => {
    const result = await scan('www.prefs-site.test');
    expect(result.trackers).toEqual([]);
    expect(result.unlisted_trackers).toEqual([]);
    expect(setup.fixture.log).toContainEqual(expect.stringMatching(/^cdn\.example-ui\.test \/ui-kit/));
  });
});

describe('unlisted trackers behind a first-party proxy', () => {
  it("a recorder on a host of the site's own domain is listed with high confidence; the site's own API is not", async () => {
    const result = await scan('www.proxy-shop.test');
    expect(result.trackers).toEqual([]);
    expect(result.unlisted_trackers?.map(outline)).toEqual([
      {
        domain: 't.proxy-shop.test',
        first_party: true,
        name: null,
        hosts: ['t.proxy-shop.test'],
        category_guess: null,
        confidence: 'high',
        evidence: ['id_parameter', 'cookie', 'beacon', 'script'],
        ids: ['prj_Pr0xy9'],
      },
    ]);
    expect(setup.fixture.log).toContainEqual(expect.stringMatching(/^api\.proxy-shop\.test \/cart/));
  });
});

describe('ids of vendors without rules of their own (mechanism 5)', () => {
  it('reads them from base64 beacons, cookie names, repeated parameters and a same-origin frame; not visitor ids', async () => {
    const result = await scan('www.ids-shop.test');
    expect(result.unlisted_trackers?.map((found) => [found.domain, found.confidence, found.ids])).toEqual([
      ['example-beacon.test', 'high', ['ACC-77120', 'W-31337', 'k9F3xQ72']],
      ['example-frame.test', 'medium', ['app-5521']],
    ]);
  });

  it('a vendor named through third-party-web alone carries the site id of its hits', async () => {
    const result = await scan('www.ids-shop.test');
    expect(result.trackers.map((tracker) => [tracker.key, tracker.category, tracker.ids])).toEqual([
      ['tpw:Roxr Software', 'analytics', ['101234567']],
    ]);
  });
});
