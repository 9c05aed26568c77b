import { Scanner } from '../src/scanner/index.js';
import { FIXTURE_EXPECTATIONS } from '../test/fixtures/scanner/expectations.js';
import {
  type Counts,
  DIMENSIONS,
  type Dimension,
  fromRequests,
  fromScan,
  type PageScore,
  precision,
  recall,
  scorePage,
} from './accuracy-score.js';
import { startFixtureServer } from '../test/fixtures/scanner/server.js';

/**
 * Accuracy of the scanner on the fixture set (test/fixtures/scanner/expectations.ts), training and held-out halves
 * apart, against a baseline that only names the third-party-web entities of the requests the page made (in the same
 * scan). Dimensions: vendors, ids, first-party collection, named consent platform, unlisted trackers. Scans run one
 * at a time so each scan's requests can be read off the fixture server's log. `unlisted` scores the domains
 * `unlisted_trackers` lists (listed or not), on the pages whose expected answer says which should be (`unlisted` in
 * expectations.ts).
 */

export interface AccuracyFigures {
  pages: number;
  dimensions: Record<Dimension, Counts & { precision: number | null; recall: number | null }>;
}
export interface ScannerAccuracyResult {
  scanner: { training: AccuracyFigures; heldout: AccuracyFigures };
  baseline: { training: AccuracyFigures; heldout: AccuracyFigures };
  /** Per-page misses of the training half (the held-out ones only with BENCH_SHOW_HELDOUT_MISSES=1). */
  misses: Record<string, { scanner: string[]; baseline: string[] }>;
}

function sum(scores: PageScore[]): AccuracyFigures {
  const dimensions = {} as AccuracyFigures['dimensions'];
  for (const dimension of DIMENSIONS) {
    const counts = scores.reduce(
      (total, score) => ({
        tp: total.tp + score[dimension].tp,
        fp: total.fp + score[dimension].fp,
        fn: total.fn + score[dimension].fn,
      }),
      { tp: 0, fp: 0, fn: 0 },
    );
    dimensions[dimension] = { ...counts, precision: precision(counts), recall: recall(counts) };
  }
  return { pages: scores.length, dimensions };
}

export async function runScannerAccuracy(): Promise<ScannerAccuracyResult> {
  const fixture = await startFixtureServer({ bigPageBytes: 1 });
  const scanner = new Scanner(fixture.scannerOptions({ browserConcurrency: 1 }));
  const scores = {
    scanner: { training: [] as PageScore[], heldout: [] as PageScore[] },
    baseline: { training: [] as PageScore[], heldout: [] as PageScore[] },
  };
  const misses: ScannerAccuracyResult['misses'] = {};
  const showHeldout = process.env.BENCH_SHOW_HELDOUT_MISSES === '1';
  try {
    for (const expected of FIXTURE_EXPECTATIONS) {
      const path = expected.path ?? '/';
      const logStart = fixture.log.length;
      const result = await scanner.scan({
        url: fixture.url(expected.host, path),
        aiSummary: false,
        pagespeed: false,
        language: 'en',
      });
      const requests = fixture.log.slice(logStart).map((entry) => {
        const [host, requestPath] = entry.split(' ');
        return `https://${host}${requestPath}`;
      });
      const scannerScore = scorePage(expected, fromScan(result));
      const baselineScore = scorePage(expected, fromRequests(requests));
      scores.scanner[expected.split].push(scannerScore);
      scores.baseline[expected.split].push(baselineScore);
      if (expected.split === 'training' || showHeldout)
        misses[`${expected.split} ${expected.host}${path}`] = {
          scanner: scannerScore.misses,
          baseline: baselineScore.misses,
        };
    }
  } finally {
    await scanner.close();
    await fixture.close();
  }
  return {
    scanner: { training: sum(scores.scanner.training), heldout: sum(scores.scanner.heldout) },
    baseline: { training: sum(scores.baseline.training), heldout: sum(scores.baseline.heldout) },
    misses,
  };
}

export function printScannerAccuracy(result: ScannerAccuracyResult): void {
  const format = (value: number | null) => (value === null ? 'n/a' : value.toFixed(3));
  const rows: Record<string, Record<string, string>> = {};
  for (const system of ['scanner', 'baseline'] as const)
    for (const split of ['training', 'heldout'] as const) {
      const figures = result[system][split];
      const row: Record<string, string> = { pages: String(figures.pages) };
      for (const dimension of DIMENSIONS) {
        const counts = figures.dimensions[dimension];
        row[`${dimension} P`] = format(counts.precision);
        row[`${dimension} R`] = format(counts.recall);
      }
      rows[`${system === 'baseline' ? 'third-party-web baseline' : 'scanner'} · ${split}`] = row;
    }
  console.log('\nScanner accuracy (precision P and recall R per dimension; training vs held-out fixtures)');
  console.table(rows);
  for (const [page, items] of Object.entries(result.misses))
    if (items.scanner.length) console.log(`  scanner misses on ${page}: ${items.scanner.join('; ')}`);
  console.log(JSON.stringify({ scanner_accuracy: result }));
}
