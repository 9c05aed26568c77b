import { describe, expect, it } from 'vitest';
import { useFixtureScanner } from '../fixtures/scanner/use-scanner.js';

// Issue 15, item 15: a requested pagespeed score arrives, also on a page whose tracking requests never finish.

const setup = useFixtureScanner({ bigPageBytes: 1 }, { browserConcurrency: 1 });

describe('pagespeed with open tracking requests (item 15)', () => {
  it('scores a page whose network never goes quiet, within the scan cap', { timeout: 90_000 }, async () => {
    const result = await setup.scanner.scan({
      url: setup.fixture.url('www.i15b-open.test'),
      aiSummary: false,
      pagespeed: true,
      language: 'en',
    });
    expect(result.stages.pagespeed?.status).toBe('ok');
    expect(result.pagespeed?.score).toEqual(expect.any(Number));
    expect(result.warnings.filter((warning) => warning.code.startsWith('pagespeed'))).toEqual([]);
    expect(result.trackers.map((tracker) => tracker.key)).toContain('google_analytics_4');
    expect(
      setup.fixture.log.filter((line) => line.startsWith('www.i15b-open.test /collect/hold')).length,
    ).toBeGreaterThan(4);
  });
});
