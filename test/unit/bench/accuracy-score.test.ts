import { describe, expect, it } from 'vitest';
import { fromRequests, precision, recall, scorePage } from '../../../bench/accuracy-score.js';
import type { FixtureExpectation } from '../../fixtures/scanner/expectations.js';

const page: FixtureExpectation = {
  split: 'heldout',
  host: 'a.test',
  setup: 'two vendors and a CMP',
  vendors: [
    { vendor: 'Google Analytics 4', match: ['googleanalytics'], ids: ['G-ONE'], first_party: true },
    { vendor: 'Tealium iQ', match: ['tealium'], ids: [], optional_ids: ['acme/main'] },
  ],
  cmp: { name: 'OneTrust', match: ['onetrust', 'optanon'] },
};

describe('scanner accuracy scoring', () => {
  it('pairs reported trackers with expected vendors by token, each once; ids per page, optional ids neutral', () => {
    const score = scorePage(page, {
      trackers: [
        { label: 'google_analytics_4 Google Analytics 4', ids: ['G-ONE', 'acme/main'], first_party: false },
        { label: 'google_analytics_4 Google Analytics 4', ids: [], first_party: false },
        { label: 'hotjar Hotjar', ids: ['123'], first_party: false },
      ],
      cmp: 'Optanon',
    });
    expect(score.vendors).toEqual({ tp: 1, fp: 2, fn: 1 });
    expect(score.ids).toEqual({ tp: 1, fp: 1, fn: 0 });
    expect(score.first_party).toEqual({ tp: 0, fp: 0, fn: 1 });
    expect(score.cmp).toEqual({ tp: 1, fp: 0, fn: 0 });
    expect(score.misses).toContain('vendor missed: Tealium iQ');
  });

  it('a wrong or missing CMP, and an empty page, count as such', () => {
    expect(scorePage(page, { trackers: [], cmp: 'Cookiebot' }).cmp).toEqual({ tp: 0, fp: 1, fn: 1 });
    const empty = scorePage({ ...page, vendors: [], cmp: null }, { trackers: [], cmp: null });
    expect([empty.vendors, empty.cmp]).toEqual([
      { tp: 0, fp: 0, fn: 0 },
      { tp: 0, fp: 0, fn: 0 },
    ]);
    expect([precision(empty.vendors), recall(empty.vendors)]).toEqual([null, null]);
  });

  it('the baseline names third-party-web entities of tracking categories, and a consent provider as the CMP', () => {
    const reported = fromRequests([
      'https://www.googletagmanager.com/gtm.js?id=GTM-X',
      'https://region1.google-analytics.com/g/collect?v=2',
      'https://fonts.googleapis.com/css2?family=Inter',
      'https://cdn.cookielaw.org/scripttemplates/otSDKStub.js',
      'https://www.example.test/',
    ]);
    expect(reported.trackers.map((tracker) => tracker.label).sort()).toEqual([
      'Google Analytics',
      'Google Tag Manager',
    ]);
    expect(reported.cmp).toBe('Optanon');
  });
});
