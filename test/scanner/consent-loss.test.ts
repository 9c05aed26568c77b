import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { ScanResultSchema, type ScanResult } from '../../src/scanner/index.js';
import { useFixtureScanner } from '../fixtures/scanner/use-scanner.js';

// Issue 15, item 9, end to end in Chromium: Consent Mode denied by default with no consent platform (nobody can ever
// consent) against the same page with Cookiebot (fixtures/scanner/pages-i15b.ts).

const setup = useFixtureScanner({ bigPageBytes: 10_000 }, { observationCapMs: 5_000 });

async function scan(host: string): Promise<ScanResult> {
  const result = await setup.scanner.scan({
    url: setup.fixture.url(host, '/'),
    aiSummary: true,
    pagespeed: false,
    language: 'en',
  });
  expect([...Value.Errors(ScanResultSchema, result)].slice(0, 5)).toEqual([]);
  return result;
}

const lossOf = (result: ScanResult) =>
  Object.fromEntries(
    result.loss_estimate.per_tracker.map((item) => [item.key, [item.by_cause.consent, item.consent_never_granted]]),
  );

describe('Consent Mode denied by default (item 9)', () => {
  it('without a consent platform, counts all consent-gated Google measurement as lost and recommends a banner', async () => {
    const result = await scan('www.i15b-denied.test');
    expect(result.consent.cmp).toBeNull();
    expect(result.consent.banner_detected).toBe(false);
    expect(result.loss_estimate.consent_never_granted).toBe(true);
    // GA4 (analytics_storage) and Google Ads (ad_storage) can never be granted; the Meta Pixel ignores Consent Mode.
    expect(lossOf(result)).toEqual({
      google_analytics_4: [100, true],
      google_ads: [100, true],
      meta_pixel: [0, undefined],
    });
    expect(result.loss_estimate.analytics_events?.lost_pct).toBe(100);
    expect(result.loss_estimate.explanation).toContain('nothing on the page can grant it');
    const recommendations = result.ai_summary?.recommendations ?? [];
    expect(recommendations.some((text) => text.includes('nobody can ever consent'))).toBe(true);
    expect(recommendations).not.toContain(
      'Add a consent management platform and load tracking tags only after visitors consent.',
    );
  });

  it('with Cookiebot, keeps the usual refusal rate', async () => {
    const result = await scan('www.i15b-denied-cmp.test');
    expect(result.consent.cmp?.name).toBe('Cookiebot');
    expect(result.loss_estimate.consent_never_granted).toBe(false);
    expect(lossOf(result)).toEqual({
      google_analytics_4: [22.5, undefined],
      google_ads: [22.5, undefined],
      meta_pixel: [22.5, undefined],
    });
    expect(result.loss_estimate.explanation).not.toContain('nothing on the page can grant it');
  });
});
