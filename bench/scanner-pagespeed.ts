import { Scanner } from '../src/scanner/index.js';
import { FIXTURE_EXPECTATIONS } from '../test/fixtures/scanner/expectations.js';
import { I15_PAGES } from '../test/fixtures/scanner/pages-i15.js';
import { I15B_PAGES } from '../test/fixtures/scanner/pages-i15b.js';
import { startFixtureServer } from '../test/fixtures/scanner/server.js';
import { type LatencyFigures, latencyFigures } from './scanner.js';

/**
 * Pagespeed benchmark (`BENCH_SCANNER=pagespeed npm run bench scanner`): every page of the scanner fixture set
 * (training and held-out expectations, the issue-15 pages) scanned with `pagespeed: true`, one at a time, with the
 * default 45 s scan cap. Reports how many pages got a score, the ones that did not (with the warning), and the scan
 * durations.
 */

export interface PagespeedBenchResult {
  pages: number;
  scored: number;
  unscored: Array<{ page: string; status: string | undefined; warning: string | undefined }>;
  slowest: Array<{ page: string; ms: number }>;
  scan: LatencyFigures & { max_ms: number };
  pagespeed_stage: LatencyFigures;
}

export async function runPagespeedBench(): Promise<PagespeedBenchResult> {
  const fixture = await startFixtureServer({ bigPageBytes: 1 });
  const scanner = new Scanner(fixture.scannerOptions({ browserConcurrency: 1 }));
  const pages = [
    ...FIXTURE_EXPECTATIONS.map((page): [string, string] => [page.host, page.path ?? '/']),
    ...I15_PAGES,
    ...I15B_PAGES,
  ];
  const totals: number[] = [];
  const byPage: Array<{ page: string; ms: number }> = [];
  const stage: number[] = [];
  const unscored: PagespeedBenchResult['unscored'] = [];
  try {
    for (const [host, path] of pages) {
      const started = Date.now();
      const result = await scanner.scan({
        url: fixture.url(host, path),
        aiSummary: false,
        pagespeed: true,
        language: 'en',
      });
      totals.push(Date.now() - started);
      byPage.push({ page: `${host}${path}`, ms: Date.now() - started });
      stage.push(result.stages.pagespeed?.duration_ms ?? 0);
      if (!result.pagespeed)
        unscored.push({
          page: `${host}${path}`,
          status: result.stages.pagespeed?.status,
          warning: result.warnings.find((warning) => warning.code.startsWith('pagespeed'))?.message,
        });
    }
  } finally {
    await scanner.close();
    await fixture.close();
  }
  return {
    pages: pages.length,
    scored: pages.length - unscored.length,
    unscored,
    slowest: byPage.sort((a, b) => b.ms - a.ms).slice(0, 3),
    scan: { ...latencyFigures(totals), max_ms: Math.max(...totals) },
    pagespeed_stage: latencyFigures(stage),
  };
}

export function printPagespeedBench(result: PagespeedBenchResult): void {
  console.log(`\nPagespeed: ${result.scored}/${result.pages} fixture pages scored (one scan at a time, 45 s cap)`);
  console.table({ scan: result.scan, pagespeed_stage: result.pagespeed_stage });
  if (result.unscored.length) console.table(result.unscored);
  console.table(result.slowest);
  console.log(JSON.stringify({ scanner_pagespeed: result }));
}
