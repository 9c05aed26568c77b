import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { Scanner, ScanResultSchema, type ScanResult } from '../../src/scanner/index.js';
import { useFixtureScanner } from '../fixtures/scanner/use-scanner.js';

// Issue 15, item 12: the consent check clicks "reject all" and "accept all" with autoconsent (pages-i15c.ts).

const results = new Map<string, Promise<ScanResult>>();

const setup = useFixtureScanner({ bigPageBytes: 10_000 }, { observationCapMs: 4_000 });

function scan(host: string, consentCheck = true): Promise<ScanResult> {
  const key = `${host} ${consentCheck}`;
  if (!results.has(key)) {
    results.set(
      key,
      setup.scanner
        .scan({ url: setup.fixture.url(host, '/'), aiSummary: false, pagespeed: false, language: 'en', consentCheck })
        .then((result) => {
          expect([...Value.Errors(ScanResultSchema, result)].slice(0, 5)).toEqual([]);
          return result;
        }),
    );
  }
  return results.get(key)!;
}

const metaPixel = (result: ScanResult) => result.consent_check?.trackers.find((item) => item.key === 'meta_pixel');

describe('consent check (item 12)', () => {
  it('a pixel that loads after "reject all" is a violation, listed first', async () => {
    const check = (await scan('www.i15c-violates.test')).consent_check;
    expect(check).toMatchObject({
      cmp: 'Onetrust',
      banner_found: true,
      reject: { clicked: true, cut_short: false },
      accept: { clicked: true, cut_short: false },
    });
    expect(Object.keys(check!)[0]).toBe('violations');
    expect(check!.violations).toEqual([
      expect.objectContaining({ tracker: 'meta_pixel', fired: true, cookies: ['_fbp'] }),
    ]);
    expect(metaPixel(await scan('www.i15c-violates.test'))).toEqual({
      key: 'meta_pixel',
      name: expect.any(String),
      no_interaction: { fired: false, cookies: [] },
      rejected: { fired: true, cookies: ['_fbp'] },
      accepted: { fired: true, cookies: ['_fbp'] },
    });
  });

  it('a pixel held until "accept all" is no violation', async () => {
    const result = await scan('www.i15c-respects.test');
    const check = result.consent_check!;
    expect(check).toMatchObject({ cmp: 'Onetrust', banner_found: true, reject: { clicked: true }, violations: [] });
    expect(metaPixel(result)).toMatchObject({
      no_interaction: { fired: false, cookies: [] },
      rejected: { fired: false, cookies: [] },
      accepted: { fired: true, cookies: ['_fbp'] },
    });
    // The main result is still the run without interaction.
    expect(result.cookies.map((item) => item.name)).not.toContain('_fbp');
  });

  it('says so when there is no banner to click, without failing the scan', async () => {
    const result = await scan('www.i15c-nobanner.test');
    expect(result.consent_check).toMatchObject({
      cmp: null,
      banner_found: false,
      reject: { clicked: null },
      accept: { clicked: null },
      violations: [],
    });
    expect(result.consent_check!.note).toMatch(/no consent banner/);
    expect(metaPixel(result)?.rejected.fired).toBe(true);
    expect(result.stages.browser.status).toBe('ok');
  });

  it('is absent unless asked for', async () => {
    expect((await scan('www.i15c-respects.test', false)).consent_check).toBeUndefined();
  });

  it('warns when a clicked run is cut short by the scan time limit', async () => {
    const short = new Scanner(setup.fixture.scannerOptions({ observationCapMs: 4_000, scanTimeoutMs: 9_000 }));
    try {
      const result = await short.scan({
        url: setup.fixture.url('www.i15c-nobanner.test', '/'),
        aiSummary: false,
        pagespeed: false,
        language: 'en',
        consentCheck: true,
      });
      expect(result.consent_check?.reject.cut_short).toBe(true);
      expect(result.warnings.map((warning) => warning.code)).toContain('consent_check_cut_short');
    } finally {
      await short.close();
    }
  });
});
