import { describe, expect, it } from 'vitest';
import { fromRequests, scorePage } from '../../../bench/accuracy-score.js';
import type { FixtureExpectation } from '../../fixtures/scanner/expectations.js';

// The accuracy bench's unlisted dimension (bench/accuracy-score.ts): each domain listed or not, on answered pages only.

const page = (unlisted?: string[]): FixtureExpectation => ({
  split: 'heldout',
  host: 'x.heldout.test',
  setup: 'test',
  vendors: [],
  cmp: null,
  ...(unlisted ? { unlisted } : {}),
});

describe('accuracy score: unlisted trackers', () => {
  it('counts listed domains against the answer, with the misses named', () => {
    const score = scorePage(page(['vendor-a.test', 'vendor-b.test']), {
      trackers: [],
      cmp: null,
      unlisted: ['vendor-a.test', 'cdn-c.test'],
    });
    expect(score.unlisted).toEqual({ tp: 1, fp: 1, fn: 1 });
    expect(score.misses).toEqual(['unlisted extra: cdn-c.test', 'unlisted missed: vendor-b.test']);
  });

  it('a counter-example page (nothing to list) scores a listing as a false positive', () => {
    expect(scorePage(page([]), { trackers: [], cmp: null, unlisted: ['ab-sdk.test'] }).unlisted).toEqual({
      tp: 0,
      fp: 1,
      fn: 0,
    });
  });

  it('pages whose answer does not say are not scored; the list-only baseline names none', () => {
    expect(scorePage(page(), { trackers: [], cmp: null, unlisted: ['vendor-a.test'] }).unlisted).toEqual({
      tp: 0,
      fp: 0,
      fn: 0,
    });
    expect(fromRequests(['https://cdn.vendor-a.test/a.js']).unlisted).toEqual([]);
  });
});
