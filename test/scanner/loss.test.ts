import { describe, expect, it } from 'vitest';
import { DEFAULT_ASSUMPTIONS, estimateLoss } from '../../src/scanner/loss.js';

const ga4 = {
  key: 'google_analytics_4',
  name: 'Google Analytics 4',
  category: 'analytics' as const,
  first_party: false,
  server_side: false,
};
const meta = {
  key: 'meta_pixel',
  name: 'Meta Pixel',
  category: 'advertising' as const,
  first_party: false,
  server_side: false,
};
const gtm = {
  key: 'google_tag_manager',
  name: 'Google Tag Manager',
  category: 'tag_manager' as const,
  first_party: false,
  server_side: false,
};

describe('loss model', () => {
  it('GA4 behind a CMP, third-party served (worked by hand)', () => {
    // c = 0.225; a = 0.21 × 0.35 = 0.0735; i = 0 (analytics events are still counted under ITP)
    // consent 22.5; blockers (1 − 0.225) × 0.0735 = 0.0569625 → 5.7; lost 28.2
    // first-party: a' = 0.0735 × (1 − 0.75) = 0.018375; 0.775 × 0.018375 = 0.01424 → 1.4; lost 23.9; recoverable 4.3
    const estimate = estimateLoss({ trackers: [ga4, gtm], consentMechanism: true, language: 'en' });
    expect(estimate.per_tracker).toEqual([
      {
        key: 'google_analytics_4',
        name: 'Google Analytics 4',
        metric: 'analytics_events',
        server_side: false,
        lost_pct: 28.2,
        by_cause: { consent: 22.5, ad_blockers: 5.7, itp: 0 },
        lost_pct_with_server_side: 23.9,
        recoverable_pct: 4.3,
      },
    ]);
    expect(estimate.analytics_events).toEqual({
      lost_pct: 28.2,
      by_cause: { consent: 22.5, ad_blockers: 5.7, itp: 0 },
      lost_pct_with_server_side: 23.9,
      recoverable_pct: 4.3,
    });
    expect(estimate.ad_conversions).toBeNull(); // the tag manager measures nothing itself
  });

  it('Meta Pixel behind a CMP (worked by hand)', () => {
    // a = 0.21 × 0.9 = 0.189; i = 0.195 × 0.25 = 0.04875
    // consent 22.5; blockers 0.775 × 0.189 = 0.146475 → 14.6; ITP 0.775 × 0.811 × 0.04875 = 0.0306406 → 3.1; lost 40.2
    // server-side: a' = 0.04725, i' = 0.024375 → blockers 0.775 × 0.04725 = 0.0366188 → 3.7;
    //   ITP 0.775 × 0.95275 × 0.024375 = 0.0179981 → 1.8; lost 28.0; recoverable 12.2
    const estimate = estimateLoss({ trackers: [meta], consentMechanism: true, language: 'en' });
    expect(estimate.ad_conversions).toEqual({
      lost_pct: 40.2,
      by_cause: { consent: 22.5, ad_blockers: 14.6, itp: 3.1 },
      lost_pct_with_server_side: 28,
      recoverable_pct: 12.2,
    });
  });

  it('no consent mechanism: no consent loss, and server-side trackers use the first-party rates', () => {
    // GA4 via a first-party server container: a = 0.0735 × 0.25 = 0.018375 → 1.8; nothing more to recover.
    // Meta client-side: blockers 18.9; ITP (1 − 0.189) × 0.04875 = 0.0395363 → 4.0; lost 22.9
    //   server-side: 4.725 → 4.7 (0.04725); ITP 0.95275 × 0.024375 = 0.0232233 → 2.3; lost 7.0; recoverable 15.9
    const estimate = estimateLoss({
      trackers: [{ ...ga4, first_party: true, server_side: true }, meta],
      consentMechanism: false,
      language: 'en',
    });
    expect(
      estimate.per_tracker.map(
        ({ key, lost_pct, by_cause, lost_pct_with_server_side, recoverable_pct, server_side }) => ({
          key,
          lost_pct,
          by_cause,
          lost_pct_with_server_side,
          recoverable_pct,
          server_side,
        }),
      ),
    ).toEqual([
      {
        key: 'google_analytics_4',
        lost_pct: 1.8,
        by_cause: { consent: 0, ad_blockers: 1.8, itp: 0 },
        lost_pct_with_server_side: 1.8,
        recoverable_pct: 0,
        server_side: true,
      },
      {
        key: 'meta_pixel',
        lost_pct: 22.9,
        by_cause: { consent: 0, ad_blockers: 18.9, itp: 4 },
        lost_pct_with_server_side: 7,
        recoverable_pct: 15.9,
        server_side: false,
      },
    ]);
    expect(estimate.explanation).toContain('No consent mechanism was found');
  });

  it('averages trackers of the same metric', () => {
    // GA4: 22.5 + 5.7 = 28.2 (23.9 with server-side). Hotjar, already server-side: 22.5 + 1.4 = 23.9 (23.9).
    // Mean by cause: consent 22.5, blockers (5.7 + 1.4) / 2 = 3.55 → 3.6; lost 26.1; with server-side 23.9; recoverable 2.2
    const estimate = estimateLoss({
      trackers: [
        ga4,
        { key: 'hotjar', name: 'Hotjar', category: 'session_replay', first_party: false, server_side: true },
      ],
      consentMechanism: true,
      language: 'en',
    });
    expect(estimate.analytics_events).toEqual({
      lost_pct: 26.1,
      by_cause: { consent: 22.5, ad_blockers: 3.6, itp: 0 },
      lost_pct_with_server_side: 23.9,
      recoverable_pct: 2.2,
    });
  });

  it('lists every assumption with a source, and explains in the requested language', () => {
    const estimate = estimateLoss({ trackers: [ga4, meta], consentMechanism: true, language: 'de' });
    expect(estimate.assumptions.map((assumption) => [assumption.key, assumption.value])).toEqual(
      Object.entries(DEFAULT_ASSUMPTIONS),
    );
    for (const assumption of estimate.assumptions) expect(assumption.source.length).toBeGreaterThan(40);
    expect(estimate.explanation).toContain('Werbeblocker sind bei 21 % der Seitenaufrufe aktiv');
    expect(estimate.explanation).toContain('28,2 % der Analytics-Ereignisse und 40,2 % der Werbe-Conversions');
    expect(estimateLoss({ trackers: [], consentMechanism: false, language: 'fr' }).explanation).toContain(
      'Aucun traceur de mesure',
    );
  });

  it('custom assumptions flow through', () => {
    const estimate = estimateLoss({
      trackers: [meta],
      consentMechanism: true,
      language: 'en',
      assumptions: { ...DEFAULT_ASSUMPTIONS, consent_refusal_rate: 0.6, ad_blocker_rate: 0, safari_share: 0 },
    });
    expect(estimate.ad_conversions).toEqual({
      lost_pct: 60,
      by_cause: { consent: 60, ad_blockers: 0, itp: 0 },
      lost_pct_with_server_side: 60,
      recoverable_pct: 0,
    });
  });
});

describe('consent that can never be granted (issue 15, item 9)', () => {
  const ads = { ...meta, key: 'google_ads', name: 'Google Ads' };
  it('counts 100% consent loss for the Google tags the denied defaults gate, and nothing extra for others', () => {
    const estimate = estimateLoss({
      trackers: [ga4, ads, meta],
      consentMechanism: false,
      consentNeverGranted: { analytics_storage: true, ad_storage: false },
      language: 'en',
    });
    expect(estimate.consent_never_granted).toBe(true);
    const ga4Figure = estimate.per_tracker.find((item) => item.key === 'google_analytics_4');
    expect(ga4Figure).toMatchObject({
      consent_never_granted: true,
      lost_pct: 100,
      by_cause: { consent: 100, ad_blockers: 0, itp: 0 },
      recoverable_pct: 0,
    });
    expect(estimate.per_tracker.find((item) => item.key === 'google_ads')?.by_cause.consent).toBe(0);
    expect(estimate.per_tracker.find((item) => item.key === 'meta_pixel')?.consent_never_granted).toBeUndefined();
  });

  it('is ignored when a consent mechanism exists', () => {
    const estimate = estimateLoss({
      trackers: [ga4],
      consentMechanism: true,
      consentNeverGranted: { analytics_storage: true, ad_storage: true },
      language: 'en',
    });
    expect(estimate.consent_never_granted).toBe(false);
    expect(estimate.per_tracker[0].by_cause.consent).toBe(22.5);
  });
});
