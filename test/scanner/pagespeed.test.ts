import { expect, it } from 'vitest';
import { useFixtureScanner } from '../fixtures/scanner/use-scanner.js';

// One real Lighthouse 13 run (performance only, mobile defaults) on a fixture page, through the guard proxy.

const setup = useFixtureScanner({ bigPageBytes: 1 });

it('scores a fixture page with Lighthouse', { timeout: 60_000 }, async () => {
  const before = setup.fixture.log.length;
  const result = await setup.scanner.scan({
    url: setup.fixture.url('shop.example.test'),
    aiSummary: true,
    pagespeed: true,
    language: 'it',
  });
  expect(result.warnings).toEqual([]);
  expect(result.stages.pagespeed?.status).toBe('ok');
  const pagespeed = result.pagespeed!;
  expect(pagespeed.lighthouse_version).toMatch(/^13\./);
  expect(pagespeed.score).toBeGreaterThanOrEqual(0);
  expect(pagespeed.score).toBeLessThanOrEqual(100);
  for (const value of Object.values(pagespeed.metrics)) expect(Number.isFinite(value)).toBe(true);
  expect(pagespeed.metrics.fcp_ms).toBeGreaterThan(0);
  expect(pagespeed.metrics.lcp_ms).toBeGreaterThanOrEqual(pagespeed.metrics.fcp_ms);
  // Lighthouse's browser loaded the page and its vendor scripts from the fixture server (via the guard proxy and host rules).
  const served = setup.fixture.log.slice(before);
  expect(served.filter((line) => line === 'shop.example.test /').length).toBeGreaterThanOrEqual(3); // stage 1, stage 2, Lighthouse
  expect(
    served.filter((line) => line.startsWith('connect.facebook.net /en_US/fbevents.js')).length,
  ).toBeGreaterThanOrEqual(2);
  expect(result.ai_summary?.text).toContain(`Punteggio di prestazioni mobile: ${pagespeed.score}/100`);
});
