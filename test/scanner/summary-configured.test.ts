import { describe, expect, it } from 'vitest';
import { BuiltinSummaryProvider } from '../../src/scanner/summary.js';
import { useFixtureScanner } from '../fixtures/scanner/use-scanner.js';

// Issue 31: the builtin summary names the tags a GTM container is configured with that the scan did not see firing
// (pages-gtm-summary.ts), in Chromium on the loopback fixture server; they are never trackers or part of the loss.

const setup = useFixtureScanner({ bigPageBytes: 10_000 }, { observationCapMs: 4_000 });

const scan = (host: string) =>
  setup.scanner.scan({ url: setup.fixture.url(host, '/'), aiSummary: true, pagespeed: false, language: 'en' });

describe('summary: configured in the tag manager but not fired', () => {
  it('names the conversion on a link click the visitor never made, and the pixel waiting for consent', async () => {
    const result = await scan('gtm-click.example.test');
    expect(result.tag_manager_configs?.[0].tags.map((tag) => [tag.key, tag.triggers, tag.fired])).toEqual([
      ['google_analytics_4', ['page view'], true],
      ['google_ads', ['link click'], false],
      ['meta_pixel', ['page view', 'consent: ad_storage'], false],
    ]);
    expect(result.ai_summary?.provider).toBe('builtin');
    expect(result.ai_summary?.text).toContain(
      'Configured in the tag manager but not seen firing during the scan (the scan never clicks, submits a form or gives consent): Google Ads (link click) and Meta Pixel (page view, consent: ad_storage).',
    );
    // Neither is a tracker, counted or estimated.
    expect(result.trackers.map((tracker) => tracker.key).sort()).toEqual(['google_analytics_4', 'google_tag_manager']);
    expect(result.ai_summary?.text).toContain('1 tracker found on gtm-click.example.test: Google Analytics 4.');
    expect(result.loss_estimate.per_tracker.map((tracker) => tracker.key)).toEqual(['google_analytics_4']);
    expect(result.loss_estimate.ad_conversions).toBeNull();

    const german = await new BuiltinSummaryProvider(() => 'example.test').summarize(result, 'de');
    expect(german.text).toContain(
      'Im Tag Manager eingerichtet, aber während des Scans nicht ausgelöst (der Scan klickt nie, sendet kein Formular ab und erteilt keine Einwilligung): Google Ads (link click) und Meta Pixel (page view, consent: ad_storage).',
    );
    expect(german.text).toContain('1 Tracker auf gtm-click.example.test gefunden: Google Analytics 4.');
  });

  it('says nothing of the kind when every configured tag fired', async () => {
    const result = await scan('gtm-allfired.example.test');
    expect(result.tag_manager_configs?.[0].tags.map((tag) => [tag.key, tag.fired])).toEqual([
      ['google_analytics_4', true],
    ]);
    expect(result.ai_summary?.text).toContain('Google Analytics 4');
    expect(result.ai_summary?.text).not.toMatch(/not seen firing/);
  });
});
