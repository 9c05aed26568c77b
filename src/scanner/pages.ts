import type { RuntimeFindings } from './browser.js';
import { detect, registrableDomain } from './detect.js';
import { ScanTargetRefusedError } from './errors.js';
import { stageFetch } from './fetch-stage.js';
import type { ScannerOptions } from './options.js';
import { messageOf } from './optional-stages.js';
import type { StaticFindings } from './parse.js';
import type { Language, PageResult, StageStatus } from './schema.js';
import type { SsrfGuard } from './ssrf.js';
import type { WarningDraft } from './warnings.js';

/**
 * Scans of more than one page (`pages: 2..5`): which internal pages to visit after the start page, and how what the
 * pages showed is merged into one result.
 */

export const MAX_PAGES = 5;

/** Links to files rather than pages: a visitor's browser downloads or shows them, no tag runs. */
const NOT_A_PAGE =
  /\.(?:pdf|zip|gz|rar|7z|jpe?g|png|gif|webp|avif|svg|ico|mp[34]|webm|mov|avi|wav|docx?|xlsx?|pptx?|csv|xml|json|txt|js|css|woff2?|ttf|exe|dmg|apk)$/i;
/** Links that change what the visitor has (sign out, add to cart): following them is not looking at the site. */
const ACTION_LINK =
  /(?:^|[/?&_-])(?:log-?out|sign-?out|logoff|add-to-cart|add_to_cart|remove_item|delete)(?:$|[/?&=_.-])/i;

function comparable(url: URL): string {
  return `${url.origin}${url.pathname.replace(/\/+$/, '') || '/'}${url.search}`;
}

/**
 * Up to `count` distinct pages of the site (same registrable domain) linked from the start page, in document order,
 * one per top-level section first (`/products/a` and `/about` before `/products/b`), never the start page itself.
 */
export function pickInternalLinks(startUrl: string, links: readonly string[], count: number): string[] {
  if (count <= 0) return [];
  const start = new URL(startUrl);
  const site = registrableDomain(start.hostname);
  const seen = new Set([comparable(start)]);
  const candidates: URL[] = [];
  for (const link of links) {
    let url: URL;
    try {
      url = new URL(link, start);
    } catch {
      continue;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') continue;
    if (registrableDomain(url.hostname) !== site || url.username || url.password) continue;
    if (NOT_A_PAGE.test(url.pathname) || ACTION_LINK.test(`${url.pathname}${url.search}`)) continue;
    url.hash = '';
    const key = comparable(url);
    if (seen.has(key)) continue;
    seen.add(key);
    candidates.push(url);
  }
  const section = (url: URL) => `${url.hostname}/${url.pathname.split('/').filter(Boolean)[0] ?? ''}`;
  const sections = new Set<string>();
  const firstOfSection = candidates.filter((url) => !sections.has(section(url)) && sections.add(section(url)));
  const rest = candidates.filter((url) => !firstOfSection.includes(url));
  return [...firstOfSection, ...rest].slice(0, count).map((url) => url.href);
}

function uniqueBy<T>(items: T[], key: (item: T) => string): T[] {
  const byKey = new Map<string, T>();
  for (const item of items) if (!byKey.has(key(item))) byKey.set(key(item), item);
  return [...byKey.values()];
}

/** The start page's HTML findings with the other pages' scripts, preloads and noscript content added. */
export function mergeStatic(pages: Array<StaticFindings | null>): StaticFindings | null {
  const present = pages.filter((page): page is StaticFindings => page !== null);
  if (present.length <= 1) return present[0] ?? null;
  const [first] = present;
  return {
    ...first,
    scripts: uniqueBy(
      present.flatMap((page) => page.scripts),
      (script) => JSON.stringify(script),
    ),
    preloads: [...new Set(present.flatMap((page) => page.preloads))],
    noscript: uniqueBy(
      present.flatMap((page) => page.noscript),
      (item) => `${item.tag} ${item.url}`,
    ),
    noscriptMarkup: [...new Set(present.flatMap((page) => page.noscriptMarkup))],
  };
}

/**
 * What the browser saw on every page as one visit: every request, the cookies present at the end (the session's
 * cookies carry over, so the last page's list holds the earlier ones), the globals and ids of every page. The
 * banner, observation, consent click and typed sentinel are the start page's.
 */
export function mergeRuntime(pages: Array<RuntimeFindings | null>): RuntimeFindings | null {
  const present = pages.filter((page): page is RuntimeFindings => page !== null);
  if (present.length <= 1) return present[0] ?? null;
  const [first] = present;
  return {
    ...first,
    requests: present.flatMap((page) => page.requests),
    refused: present.flatMap((page) => page.refused),
    cookies: uniqueBy(
      present.flatMap((page) => page.cookies),
      (cookie) => `${cookie.name};${cookie.domain}`,
    ),
    globals: [...new Set(present.flatMap((page) => page.globals))],
    googleTagIds: [...new Set(present.flatMap((page) => page.googleTagIds))],
    dataLayer: present.flatMap((page) => page.dataLayer),
    banner: present.find((page) => page.banner.visible)?.banner ?? first.banner,
    tcfApi: present.some((page) => page.tcfApi),
    tcfCmpId: present.find((page) => page.tcfCmpId !== null)?.tcfCmpId ?? null,
    cspViolations: present.flatMap((page) => page.cspViolations),
    problems: present.flatMap((page) => page.problems),
    canvasReadbacks: present.flatMap((page) => page.canvasReadbacks ?? []),
    serviceWorkers: present.flatMap((page) => page.serviceWorkers ?? []),
    storageWrites: present.flatMap((page) => page.storageWrites ?? []),
  };
}

/** Time one more page may take (load, observation, snapshot); a page that cannot get MIN_PAGE_MS is skipped. */
const PAGE_BUDGET_MS = 15_000;
const MIN_PAGE_MS = 5_000;

export interface PageVisit {
  url: string;
  finalUrl: string | null;
  status: StageStatus;
  httpStatus: number | null;
  durationMs: number;
  static: StaticFindings | null;
  runtime: RuntimeFindings | null;
  /** Why nothing could be seen (the network's or the browser's words), when the page failed. */
  error: string | null;
}

export interface VisitContext {
  /** Loads `url` in the start page's session, finishing by `deadline` (the scan's page settings otherwise). */
  capture: (url: string, deadline: number) => Promise<RuntimeFindings>;
  guard: SsrfGuard;
  language: Language;
  /** The browser stage's end: pages that would end later are skipped. */
  deadline: number;
  signal: AbortSignal;
  options: ScannerOptions;
}

function skipped(url: string): PageVisit {
  return {
    url,
    finalUrl: null,
    status: 'skipped',
    httpStatus: null,
    durationMs: 0,
    static: null,
    runtime: null,
    error: null,
  };
}

/**
 * Visits `urls` one after another in the start page's browser session, each with the plain fetch beside it. A page
 * that is refused (its address is not public) or fails is reported as failed; it never fails the scan.
 */
export async function visitPages(urls: string[], context: VisitContext): Promise<PageVisit[]> {
  const visits: PageVisit[] = [];
  for (const url of urls) {
    const started = Date.now();
    if (context.signal.aborted || context.deadline - started < MIN_PAGE_MS) {
      visits.push(skipped(url));
      continue;
    }
    const deadline = Math.min(context.deadline, started + PAGE_BUDGET_MS);
    const target = new URL(url);
    const [fetched, browsed] = await Promise.allSettled([
      stageFetch(target, context.guard, deadline, context.language, context.signal, context.options),
      context.capture(url, deadline),
    ]);
    const fetch = fetched.status === 'fulfilled' ? fetched.value : null;
    const runtime = browsed.status === 'fulfilled' ? browsed.value : null;
    const failure = [browsed, fetched].find((outcome) => outcome.status === 'rejected')?.reason;
    const refused = [browsed, fetched].some(
      (outcome) => outcome.status === 'rejected' && outcome.reason instanceof ScanTargetRefusedError,
    );
    const status: StageStatus = refused
      ? 'failed'
      : runtime
        ? runtime.timedOut
          ? 'timeout'
          : 'ok'
        : fetch?.value
          ? 'partial'
          : 'failed';
    visits.push({
      url,
      finalUrl: runtime?.finalUrl ?? fetch?.outcome?.finalUrl ?? null,
      status,
      httpStatus: fetch?.outcome?.status ?? null,
      durationMs: Date.now() - started,
      static: refused ? null : (fetch?.value ?? null),
      runtime: refused ? null : runtime,
      // The fetch's words first: the browser's behind the guard proxy are opaque (ERR_TUNNEL_CONNECTION_FAILED).
      error:
        status === 'ok'
          ? null
          : (fetch?.outcome?.error?.message ?? (failure === undefined ? null : messageOf(failure))),
    });
  }
  return visits;
}

/**
 * The result's `pages`: each page with the trackers found on it alone; warns when the start page linked to fewer
 * internal pages than were asked for, and when the time limit left some out.
 */
export function describePages(
  start: PageVisit,
  visits: PageVisit[],
  asked: number,
  warnings: WarningDraft[],
  language: Language,
): PageResult[] {
  if (start.runtime && visits.length < asked - 1)
    warnings.push({ code: 'pages_not_found', facts: { kind: 'pages_fewer', asked, found: visits.length } });
  const skippedCount = visits.filter((visit) => visit.status === 'skipped').length;
  if (skippedCount) warnings.push({ code: 'pages_skipped', facts: { kind: 'pages_skipped', count: skippedCount } });
  // The session's cookies carry over: a page is credited only with the cookies that were not there before it.
  const cookiesBefore = new Set<string>();
  const trackersOn = (visit: PageVisit) => {
    if (!visit.static && !visit.runtime) return [];
    const cookieKey = (cookie: RuntimeFindings['cookies'][number]) => `${cookie.name};${cookie.domain}`;
    const runtime = visit.runtime && {
      ...visit.runtime,
      cookies: visit.runtime.cookies.filter((cookie) => !cookiesBefore.has(cookieKey(cookie))),
    };
    for (const cookie of visit.runtime?.cookies ?? []) cookiesBefore.add(cookieKey(cookie));
    return detect(visit.finalUrl ?? visit.url, visit.static, runtime, language).trackers.map((tracker) => tracker.key);
  };
  return [start, ...visits].map((visit) => ({
    url: visit.url,
    final_url: visit.finalUrl,
    status: visit.status,
    ...(visit.httpStatus === null ? {} : { http_status: visit.httpStatus }),
    duration_ms: visit.durationMs,
    trackers: trackersOn(visit),
    error: visit.error,
  }));
}
