import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { detect } from '../src/scanner/detect.js';
import { fetchPage } from '../src/scanner/fetch.js';
import { Scanner, type ScanResult } from '../src/scanner/index.js';
import { estimateLoss } from '../src/scanner/loss.js';
import { parseHtml } from '../src/scanner/parse.js';
import { SsrfGuard } from '../src/scanner/ssrf.js';
import { startFixtureServer } from '../test/fixtures/scanner/server.js';

/**
 * Scanner benchmark against the local HTTPS fixture server (no outside network):
 *  - stage-1-only scans: guard + HTTP fetch + HTML analysis + loss model (what a scan costs without the browser);
 *  - full scans through Scanner.scan() (stage 1 and the browser stage side by side; no pagespeed, builtin summary),
 *    run `concurrency` at a time, the pool size.
 * Env: BENCH_SCANS (default 20), BENCH_CONCURRENCY (default 2).
 */

export interface LatencyFigures {
  p50_ms: number;
  p95_ms: number;
  mean_ms: number;
}

export interface ScannerBenchResult {
  machine: { cpus: number; node: string };
  scans: number;
  concurrency: number;
  stage1_only: { total: LatencyFigures; scans_per_minute: number };
  full: {
    total: LatencyFigures;
    fetch: LatencyFigures;
    browser: LatencyFigures;
    scans_per_minute: number;
  };
}

const SITES: Array<[string, string]> = [
  ['shop.example.test', '/'],
  ['zoo.example.test', '/'],
  ['www.firstparty.test', '/'],
  ['clean.example.test', '/'],
];

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export function latencyFigures(values: number[]): LatencyFigures {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  return {
    p50_ms: Math.round(percentile(sorted, 50)),
    p95_ms: Math.round(percentile(sorted, 95)),
    mean_ms: Math.round(mean),
  };
}

/** Runs `count` tasks, `concurrency` at a time; returns the wall-clock time. */
async function runPool(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<number> {
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
  return Date.now() - started;
}

export async function runScannerBench(
  options: { scans?: number; concurrency?: number } = {},
): Promise<ScannerBenchResult> {
  const scans = options.scans ?? Number(process.env.BENCH_SCANS ?? 20);
  const concurrency = options.concurrency ?? Number(process.env.BENCH_CONCURRENCY ?? 2);
  const fixture = await startFixtureServer({ bigPageBytes: 1 });
  const scannerOptions = fixture.scannerOptions({ browserConcurrency: concurrency });
  const scanner = new Scanner(scannerOptions);
  try {
    // Stage 1 only.
    const stage1 = async (host: string, path: string) => {
      const guard = new SsrfGuard({ allowPrivateNetworks: true, resolveHost: scannerOptions.resolveHost });
      const outcome = await fetchPage(new URL(fixture.url(host, path)), {
        guard,
        maxPageBytes: 5 * 1024 * 1024,
        maxRedirects: 5,
        timeoutMs: 15_000,
        hopTimeoutMs: 10_000,
        extraCaCertificates: scannerOptions.extraCaCertificates,
        userAgent: 'tagport-bench',
        acceptLanguage: 'en',
      });
      if (!outcome.html) throw new Error(`stage 1 failed for ${host}: ${outcome.error?.message}`);
      const detection = detect(outcome.finalUrl, parseHtml(outcome.html, outcome.finalUrl), null);
      estimateLoss({ trackers: detection.trackers, consentMechanism: !!detection.consent.cmp, language: 'en' });
    };
    for (const [host, path] of SITES) await stage1(host, path); // warm-up (TLS, JIT)
    const stage1Times: number[] = [];
    const stage1Wall = await runPool(scans, concurrency, async (index) => {
      const [host, path] = SITES[index % SITES.length];
      const started = performance.now();
      await stage1(host, path);
      stage1Times.push(performance.now() - started);
    });

    // Full scans (browser launched by the warm-up).
    const full = (host: string, path: string): Promise<ScanResult> =>
      scanner.scan({ url: fixture.url(host, path), aiSummary: true, pagespeed: false, language: 'en' });
    await full(...SITES[0]);
    const totals: number[] = [];
    const fetches: number[] = [];
    const browsers: number[] = [];
    const fullWall = await runPool(scans, concurrency, async (index) => {
      const [host, path] = SITES[index % SITES.length];
      const started = performance.now();
      const result = await full(host, path);
      totals.push(performance.now() - started);
      fetches.push(result.stages.fetch.duration_ms);
      browsers.push(result.stages.browser.duration_ms);
      if (result.stages.browser.status !== 'ok')
        throw new Error(
          `browser stage ${result.stages.browser.status} for ${host}: ${JSON.stringify(result.warnings)}`,
        );
    });

    return {
      machine: { cpus: os.cpus().length, node: process.version },
      scans,
      concurrency,
      stage1_only: { total: latencyFigures(stage1Times), scans_per_minute: Math.round((scans / stage1Wall) * 60_000) },
      full: {
        total: latencyFigures(totals),
        fetch: latencyFigures(fetches),
        browser: latencyFigures(browsers),
        scans_per_minute: Math.round((scans / fullWall) * 60_000 * 10) / 10,
      },
    };
  } finally {
    await scanner.close();
    await fixture.close();
  }
}

export function printScannerBench(result: ScannerBenchResult): void {
  console.log(
    `\nScanner benchmark: ${result.scans} scans per kind, concurrency ${result.concurrency}, ${result.machine.cpus} CPUs, Node ${result.machine.node}`,
  );
  console.table({
    'stage 1 only (fetch + parse + detect)': {
      ...result.stage1_only.total,
      scans_per_minute: result.stage1_only.scans_per_minute,
    },
    'full scan (total)': { ...result.full.total, scans_per_minute: result.full.scans_per_minute },
    'full scan: fetch stage': { ...result.full.fetch, scans_per_minute: '' },
    'full scan: browser stage': { ...result.full.browser, scans_per_minute: '' },
  });
  console.log(JSON.stringify({ scanner: result }));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  printScannerBench(await runScannerBench());
}
