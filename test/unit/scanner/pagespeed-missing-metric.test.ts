import { describe, expect, it, vi } from 'vitest';
import { loadWaits, runPagespeed } from '../../../src/scanner/pagespeed.js';
import { SsrfGuard } from '../../../src/scanner/ssrf.js';

// Issue 15, item 15: when Lighthouse cannot compute the score, the warning says which metric was missing.

vi.mock('chrome-launcher', () => ({ launch: async () => ({ port: 1, kill: () => {} }) }));
vi.mock('lighthouse', () => ({
  default: async () => ({
    lhr: {
      lighthouseVersion: '13.0.0',
      categories: { performance: { score: null } },
      audits: {
        'first-contentful-paint': { numericValue: 900 },
        'largest-contentful-paint': {
          numericValue: undefined,
          errorMessage: 'The page did not display content that qualifies as a Largest Contentful Paint (LCP). (NO_LCP)',
        },
        'total-blocking-time': { numericValue: 0 },
        'cumulative-layout-shift': { numericValue: 0 },
        'speed-index': { numericValue: 1200 },
      },
    },
  }),
}));

describe('Lighthouse without a score', () => {
  it('names the missing metric and why Lighthouse could not compute it', async () => {
    const outcome = await runPagespeed('http://127.0.0.1:9/', {
      chromiumPath: '/nonexistent/chromium',
      guard: new SsrfGuard({ allowPrivateNetworks: true }),
      timeoutMs: 30_000,
    });
    expect(outcome.result).toBeNull();
    expect(outcome.error).toEqual({
      code: 'pagespeed_failed',
      message:
        'Lighthouse could not compute the performance score for this page: missing largest-contentful-paint (The page did not display content that qualifies as a Largest Contentful Paint (LCP). (NO_LCP)).',
    });
  });

  it('bounds the load waits by the budget', () => {
    expect(loadWaits(45_000)).toMatchObject({ maxWaitForLoad: 10_000, maxWaitForFcp: 10_000 });
    expect(loadWaits(21_000).maxWaitForLoad).toBe(7_000);
    expect(loadWaits(6_000).maxWaitForLoad).toBe(5_000);
  });
});
