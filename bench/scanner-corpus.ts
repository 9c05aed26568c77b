import { pathToFileURL } from 'node:url';
import { Scanner } from '../src/scanner/index.js';
import type { ScanResult } from '../src/scanner/schema.js';
import { FIXTURE_EXPECTATIONS } from '../test/fixtures/scanner/expectations.js';
import { I15_PAGES } from '../test/fixtures/scanner/pages-i15.js';
import { I15B_PAGES } from '../test/fixtures/scanner/pages-i15b.js';
import { startFixtureServer } from '../test/fixtures/scanner/server.js';
import { type LatencyFigures, latencyFigures } from './scanner.js';

/**
 * Scan speed over the whole fixture corpus (`BENCH_SCANNER=corpus npm run bench scanner`): every page of the
 * accuracy set and the issue-15 pages, scanned one at a time without pagespeed, with the builtin summary, as an API
 * scan is. Reports the scan time and the browser stage's phases (navigation to the load event, observation after
 * load, the snapshot after it), the pages that took longest and how their observation ended.
 *
 * With BENCH_SCANNER_BASELINE=<checkout of an earlier version> the same pages are scanned by that version's
 * scanner too, page by page, alternating which goes first, and the ratio of the medians is reported (same run,
 * same fixture server).
 */

export interface CorpusFigures {
  scan: LatencyFigures & { max_ms: number };
  navigation: LatencyFigures;
  observation: LatencyFigures;
  snapshot: LatencyFigures;
  ended_by: Record<string, number>;
  slowest: Array<{ page: string; ms: number; ended_by: string }>;
}

export interface CorpusBenchResult {
  pages: number;
  current: CorpusFigures;
  baseline?: CorpusFigures;
  /** Baseline ÷ current, of the p50 and of the p95. */
  speedup?: { p50: number; p95: number };
}

interface ScannerLike {
  scan(request: { url: string; aiSummary: boolean; pagespeed: boolean; language: string }): Promise<ScanResult>;
  close(): Promise<void>;
}

interface PageTiming {
  page: string;
  total: number;
  navigation: number;
  observation: number;
  snapshot: number;
  endedBy: string;
}

function corpusPages(): Array<[string, string]> {
  return [
    ...FIXTURE_EXPECTATIONS.map((page): [string, string] => [page.host, page.path ?? '/']),
    ...I15_PAGES,
    ...I15B_PAGES,
  ];
}

function timingOf(page: string, result: ScanResult, total: number): PageTiming {
  const browser = result.stages.browser;
  const observation = browser.observation;
  const navigation = observation?.load_ms ?? browser.duration_ms;
  const observed = observation ? observation.window_ms - navigation : 0;
  return {
    page,
    total,
    navigation,
    observation: observed,
    snapshot: Math.max(0, browser.duration_ms - (observation?.window_ms ?? navigation)),
    endedBy: observation?.ended_by ?? browser.status,
  };
}

function figures(timings: PageTiming[]): CorpusFigures {
  const endedBy: Record<string, number> = {};
  for (const timing of timings) endedBy[timing.endedBy] = (endedBy[timing.endedBy] ?? 0) + 1;
  return {
    scan: { ...latencyFigures(timings.map((t) => t.total)), max_ms: Math.max(...timings.map((t) => t.total)) },
    navigation: latencyFigures(timings.map((t) => t.navigation)),
    observation: latencyFigures(timings.map((t) => t.observation)),
    snapshot: latencyFigures(timings.map((t) => t.snapshot)),
    ended_by: endedBy,
    slowest: [...timings]
      .sort((a, b) => b.total - a.total)
      .slice(0, 8)
      .map((t) => ({ page: t.page, ms: Math.round(t.total), ended_by: t.endedBy })),
  };
}

async function baselineScanner(checkout: string, options: object): Promise<ScannerLike> {
  const module = await import(pathToFileURL(`${checkout}/src/scanner/index.ts`).href);
  return new module.Scanner(options) as ScannerLike;
}

export async function runScannerCorpusBench(): Promise<CorpusBenchResult> {
  const fixture = await startFixtureServer({ bigPageBytes: 1 });
  const options = fixture.scannerOptions({ browserConcurrency: 1 });
  const current: ScannerLike = new Scanner(options);
  const baselineCheckout = process.env.BENCH_SCANNER_BASELINE;
  const baseline = baselineCheckout ? await baselineScanner(baselineCheckout, options) : null;
  const pages = corpusPages();
  const timings = { current: [] as PageTiming[], baseline: [] as PageTiming[] };
  const scanWith = async (scanner: ScannerLike, into: PageTiming[], host: string, path: string) => {
    const started = performance.now();
    const result = await scanner.scan({
      url: fixture.url(host, path),
      aiSummary: true,
      pagespeed: false,
      language: 'en',
    });
    into.push(timingOf(`${host}${path}`, result, performance.now() - started));
  };
  try {
    // Warm-up: Chromium started, code compiled, for each scanner.
    await scanWith(current, [], ...pages[0]);
    if (baseline) await scanWith(baseline, [], ...pages[0]);
    for (const [index, [host, path]] of pages.entries()) {
      const order = baseline && index % 2 === 1 ? [baseline, current] : [current, baseline];
      for (const scanner of order) {
        if (scanner) await scanWith(scanner, scanner === current ? timings.current : timings.baseline, host, path);
      }
    }
  } finally {
    await current.close();
    await baseline?.close();
    await fixture.close();
  }
  const result: CorpusBenchResult = { pages: pages.length, current: figures(timings.current) };
  if (baseline) {
    result.baseline = figures(timings.baseline);
    result.speedup = {
      p50: Math.round((result.baseline.scan.p50_ms / result.current.scan.p50_ms) * 100) / 100,
      p95: Math.round((result.baseline.scan.p95_ms / result.current.scan.p95_ms) * 100) / 100,
    };
  }
  return result;
}

export function printScannerCorpusBench(result: CorpusBenchResult): void {
  console.log(`\nScan speed over the fixture corpus: ${result.pages} pages, one scan at a time, no pagespeed`);
  const rows = (name: string, f: CorpusFigures) => ({
    [`${name}: scan`]: f.scan,
    [`${name}: navigation (to load)`]: f.navigation,
    [`${name}: observation (after load)`]: f.observation,
    [`${name}: snapshot`]: f.snapshot,
  });
  console.table({ ...rows('current', result.current), ...(result.baseline ? rows('baseline', result.baseline) : {}) });
  console.log('observation ended by', result.current.ended_by);
  console.table(result.current.slowest);
  if (result.speedup)
    console.log(`speed-up (baseline ÷ current): p50 ${result.speedup.p50}×, p95 ${result.speedup.p95}×`);
  console.log(JSON.stringify({ scanner_corpus: result }));
}
