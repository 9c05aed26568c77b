import type { LaunchedChrome } from 'chrome-launcher';
import { chromiumFlags, type ChromiumFlagOptions } from './browser.js';
import { BrowserUnavailableError, ScanTargetRefusedError } from './errors.js';
import { startGuardProxy, type GuardProxy } from './proxy.js';
import type { PagespeedResult } from './schema.js';
import type { SsrfGuard } from './ssrf.js';

/**
 * Page performance with Lighthouse 13: performance category only, default (mobile, simulated throttling) settings,
 * on the system Chromium launched by chrome-launcher with the scanner's flags. Runs are queued one at a time per
 * process, since Lighthouse's timings suffer when runs share the CPU. The scan starts it beside its browser stage,
 * with its own budget (the scan's deadline), and its load waits are bounded (see loadWaits).
 *
 * Every request of the Lighthouse browser goes through the same SSRF guard as the scan, via the guard proxy.
 */

export interface PagespeedOptions extends ChromiumFlagOptions {
  chromiumPath: string;
  guard: SsrfGuard;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface PagespeedOutcome {
  result: PagespeedResult | null;
  refused: Array<{ url: string; reason: string }>;
  error: { code: string; message: string } | null;
}

let queue: Promise<unknown> = Promise.resolve();

/** Runs `task` after every run queued before it (one Lighthouse run at a time in this process). */
function enqueue<T>(task: () => Promise<T>): Promise<T> {
  const run = queue.then(task, task);
  queue = run.catch(() => {});
  return run;
}

export function runPagespeed(url: string, options: PagespeedOptions): Promise<PagespeedOutcome> {
  const enqueuedAt = Date.now();
  return enqueue(() => {
    const remaining = options.timeoutMs - (Date.now() - enqueuedAt);
    if (remaining < 3_000 || options.signal?.aborted) {
      return Promise.resolve({
        result: null,
        refused: [],
        error: {
          code: 'pagespeed_timeout',
          message: 'No time was left for the Lighthouse run after waiting in the queue.',
        },
      });
    }
    return runOnce(url, { ...options, timeoutMs: remaining });
  });
}

/** The metrics of a result and the Lighthouse audits they come from. */
const METRIC_AUDITS = [
  ['fcp_ms', 'first-contentful-paint'],
  ['lcp_ms', 'largest-contentful-paint'],
  ['tbt_ms', 'total-blocking-time'],
  ['cls', 'cumulative-layout-shift'],
  ['si_ms', 'speed-index'],
] as const;

/**
 * How long Lighthouse waits for the page, within its budget. Simulated throttling computes the metrics from the
 * trace, so a page need not go network-quiet: tracking pages often keep requests open (long polls, beacons that never
 * answer), and Lighthouse's default 45 s load wait would then use up the whole scan. The load wait ends at 10 s
 * (or a third of the budget, at least 5 s), which leaves the rest for the trace and the audits (about 7 s here); quiet periods stay
 * short (500 ms instead of 1 s) so that an ordinary page is done soon after its load event.
 */
export function loadWaits(budgetMs: number) {
  const maxWaitForLoad = Math.max(5_000, Math.min(10_000, Math.round(budgetMs / 3)));
  return {
    maxWaitForLoad,
    maxWaitForFcp: maxWaitForLoad,
    networkQuietThresholdMs: 500,
    cpuQuietThresholdMs: 500,
  };
}

function refusedOf(proxy: GuardProxy | null): PagespeedOutcome['refused'] {
  return (proxy?.refused ?? []).map((item) => ({ url: item.target, reason: item.error.message }));
}

async function runOnce(url: string, options: PagespeedOptions): Promise<PagespeedOutcome> {
  let chrome: LaunchedChrome | null = null;
  let proxy: GuardProxy | null = null;
  let timer: NodeJS.Timeout | undefined;
  const kill = () => {
    try {
      chrome?.kill();
    } catch {
      /* already gone */
    }
  };
  options.signal?.addEventListener('abort', kill, { once: true });
  try {
    await options.guard.checkUrl(new URL(url));
    proxy = await startGuardProxy({ guard: options.guard, hostRules: options.hostResolverRules });
    // Loaded on the first performance run: Lighthouse is large, and most processes never run it.
    const [{ launch }, { default: lighthouse }] = await Promise.all([import('chrome-launcher'), import('lighthouse')]);
    chrome = await launch({
      chromePath: options.chromiumPath,
      chromeFlags: [
        '--headless=new',
        ...chromiumFlags(options),
        `--proxy-server=${proxy.server}`,
        '--proxy-bypass-list=<-loopback>',
      ],
      logLevel: 'silent',
      handleSIGINT: false,
    }).catch((error: unknown) => {
      throw new BrowserUnavailableError(error);
    });
    const run = lighthouse(url, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance'],
      ...loadWaits(options.timeoutMs),
    });
    run.catch(() => {}); // a run cut off by the timeout below rejects later, when its browser is killed
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            Object.assign(new Error(`Lighthouse took longer than ${options.timeoutMs} ms`), {
              code: 'pagespeed_timeout',
            }),
          ),
        options.timeoutMs,
      );
    });
    const outcome = await Promise.race([run, timeout]);
    const lhr = outcome?.lhr;
    if (!lhr)
      return {
        result: null,
        refused: refusedOf(proxy),
        error: { code: 'pagespeed_failed', message: 'Lighthouse returned no result.' },
      };
    if (lhr.runtimeError)
      return {
        result: null,
        refused: refusedOf(proxy),
        error: {
          code: 'pagespeed_failed',
          message: `Lighthouse: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`,
        },
      };
    const score = lhr.categories.performance?.score;
    const metric = (id: string) => {
      const value = lhr.audits[id]?.numericValue;
      return typeof value === 'number' && Number.isFinite(value) ? value : null;
    };
    const metrics = Object.fromEntries(METRIC_AUDITS.map(([key, id]) => [key, metric(id)])) as Record<
      (typeof METRIC_AUDITS)[number][0],
      number | null
    >;
    const missing = METRIC_AUDITS.filter(([key]) => metrics[key] === null).map(
      ([, id]) => `${id}${lhr.audits[id]?.errorMessage ? ` (${lhr.audits[id]?.errorMessage})` : ''}`,
    );
    if (typeof score !== 'number' || missing.length) {
      return {
        result: null,
        refused: refusedOf(proxy),
        error: {
          code: 'pagespeed_failed',
          message: `Lighthouse could not compute the performance score for this page${missing.length ? `: missing ${missing.join(', ')}` : ''}.`,
        },
      };
    }
    const round = (value: number | null, digits = 0) => Math.round((value ?? 0) * 10 ** digits) / 10 ** digits;
    return {
      result: {
        score: Math.round(score * 100),
        metrics: {
          fcp_ms: round(metrics.fcp_ms),
          lcp_ms: round(metrics.lcp_ms),
          tbt_ms: round(metrics.tbt_ms),
          cls: round(metrics.cls, 3),
          si_ms: round(metrics.si_ms),
        },
        lighthouse_version: lhr.lighthouseVersion,
      },
      refused: refusedOf(proxy),
      error: null,
    };
  } catch (error) {
    if (error instanceof ScanTargetRefusedError) throw error;
    const err = error as { code?: string; message?: string };
    return {
      result: null,
      refused: refusedOf(proxy),
      error: {
        code: err.code === 'pagespeed_timeout' ? 'pagespeed_timeout' : 'pagespeed_failed',
        message: String(err.message ?? error).split('\n')[0],
      },
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', kill);
    kill();
    await proxy?.close();
  }
}
