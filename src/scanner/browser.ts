import type { Browser, BrowserContext, Frame, Request } from 'playwright-core';
import { CMP_RULES, GLOBAL_RULES } from './signatures.js';
import {
  BANNER_SCRIPT,
  COOKIE_WRITES_SCRIPT,
  CSP_VIOLATIONS_SCRIPT,
  TCF_PING_SCRIPT,
  DATALAYER_SCRIPT,
  GLOBALS_SCRIPT,
  INIT_SCRIPT,
  inPage,
} from './page-scripts.js';
import { userAgentFor } from './browser-pool.js';
import { observeAfterLoad, type Observation } from './observe.js';
import { startGuardProxy } from './proxy.js';
import { bareHost, type SsrfGuard } from './ssrf.js';
import { attachAutoconsent, type AutoconsentOutcome, type ConsentAction } from './autoconsent.js';
import {
  CANVAS_INIT_SCRIPT,
  collectCanvasReadbacks,
  typeSentinel,
  type CanvasReadback,
  type TypedSentinel,
} from './behaviours-page.js';

/** Stage 2: load the page in headless Chromium without interacting, and record what it does. */

export {
  BrowserPool,
  DEFAULT_HOST_RESOLVER_RULES,
  chromiumFlags,
  userAgentFor,
  type BrowserPoolOptions,
  type ChromiumFlagOptions,
} from './browser-pool.js';

export interface RuntimeRequest {
  url: string;
  method: string;
  resourceType: string;
  status: number | null;
  failure: string | null;
  frameUrl: string | null;
  /** ms since the navigation started. */
  atMs: number;
  /** The start of the request body (POST payloads of collection protocols), when there is one. */
  postData: string | null;
}

export interface RuntimeCookie {
  name: string;
  domain: string;
  expires: number;
  httpOnly: boolean;
  setBy: 'script' | 'http';
  /** Script that wrote it through document.cookie, when known. */
  script: string | null;
}

export interface RuntimeFindings {
  finalUrl: string;
  requests: RuntimeRequest[];
  refused: Array<{ url: string; reason: string }>;
  cookies: RuntimeCookie[];
  globals: string[];
  /** Container and tag ids registered in window.google_tag_manager. */
  googleTagIds: string[];
  dataLayer: unknown[];
  banner: { visible: boolean; via: string | null; cmp: string | null };
  tcfApi: boolean;
  /** The CMP id `__tcfapi('ping')` reported (IAB TCF registered CMP id), when there is one. */
  tcfCmpId: number | null;
  /** Requests Content-Security-Policy refused, with the directive (from securitypolicyviolation events). */
  cspViolations: Array<{ url: string; directive: string }>;
  /** What was observed after load; null when the page never loaded. */
  observation: Observation | null;
  /** The navigation or the settle phase hit the time limit. */
  timedOut: boolean;
  /** Non-fatal problems (a snapshot step that failed…). */
  problems: string[];
  /** What autoconsent did, when the run clicked the consent banner (consent check). */
  consentClick?: AutoconsentOutcome;
  /** Canvas pixels read back by scripts (behaviours.ts decides which are fingerprints). */
  canvasReadbacks?: CanvasReadback[];
  /** The value typed into form fields to see keystroke capture (not in consent-check runs). */
  typed?: TypedSentinel;
}

export interface CaptureOptions {
  guard: SsrfGuard;
  deadline: number;
  /** Longest observation after load (interaction and settling included). */
  observationCapMs: number;
  /** Network quiet period that ends the observation. */
  quietMs: number;
  /** Requests open longer than this do not hold the settle (long polls, beacons nobody reads). */
  longLivedMs: number;
  locale: string;
  /** MAP/EXCLUDE host rules the guard proxy applies (the same string Chromium gets as --host-resolver-rules). */
  hostRules?: string;
  /** Reject or accept the consent banner with autoconsent before observing (consent check). */
  consentAction?: ConsentAction;
  signal?: AbortSignal;
}

/** Longest wait for autoconsent to find and click a banner after load. */
const CONSENT_CLICK_BUDGET_MS = 8_000;

const SNAPSHOT_RESERVE_MS = 2_500;

function isMainNavigation(request: Request): boolean {
  try {
    return request.isNavigationRequest() && request.frame() === request.frame().page().mainFrame();
  } catch {
    return false;
  }
}

function postDataOf(request: Request): string | null {
  try {
    return request.postData()?.slice(0, 4000) ?? null;
  } catch {
    return null; // binary bodies
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), Math.max(0, ms));
    }),
  ]);
}

export async function capturePage(browser: Browser, url: string, options: CaptureOptions): Promise<RuntimeFindings> {
  const findings: RuntimeFindings = {
    finalUrl: url,
    requests: [],
    refused: [],
    cookies: [],
    globals: [],
    googleTagIds: [],
    dataLayer: [],
    banner: { visible: false, via: null, cmp: null },
    tcfApi: false,
    tcfCmpId: null,
    cspViolations: [],
    observation: null,
    timedOut: false,
    problems: [],
  };
  const proxy = await startGuardProxy({ guard: options.guard, hostRules: options.hostRules });
  const context: BrowserContext = await browser
    .newContext({
      // Every request of the context, redirects and WebSockets included, goes through the guard proxy; '<-loopback>'
      // removes Chromium's implicit proxy bypass for localhost and loopback addresses.
      proxy: { server: proxy.server, bypass: '<-loopback>' },
      serviceWorkers: 'block',
      acceptDownloads: false,
      locale: options.locale,
      userAgent: userAgentFor(browser.version()),
      viewport: { width: 1366, height: 768 },
    })
    .catch(async (error: unknown) => {
      await proxy.close();
      throw error;
    });
  const closeContext = () => context.close().catch(() => {});
  options.signal?.addEventListener('abort', closeContext, { once: true });
  const started = Date.now();
  const records = new Map<Request, RuntimeRequest>();
  // Requests in flight and when they started; streams never hold the settle.
  const inflight = new Map<Request, number>();
  let lastActivity = Date.now();
  const network = {
    pendingShortLived: (now: number, longLivedMs: number) =>
      [...inflight.values()].filter((startedAt) => now - startedAt < longLivedMs).length,
    lastActivity: () => lastActivity,
  };
  const mainNavigationHosts = new Set<string>();

  try {
    await context.addInitScript({ content: INIT_SCRIPT });
    await context.addInitScript({ content: CANVAS_INIT_SCRIPT });
    const consentDriver = options.consentAction ? await attachAutoconsent(context, options.consentAction) : null;
    if (consentDriver) findings.consentClick = consentDriver.outcome;
    context.on('request', (request) => {
      if (isMainNavigation(request)) {
        try {
          mainNavigationHosts.add(bareHost(new URL(request.url()).hostname).toLowerCase());
        } catch {
          /* not a URL with a host */
        }
      }
      if (!['websocket', 'eventsource'].includes(request.resourceType())) inflight.set(request, Date.now());
      lastActivity = Date.now();
      let frameUrl: string | null = null;
      try {
        frameUrl = request.frame().url() || null;
      } catch {
        frameUrl = null;
      }
      const record: RuntimeRequest = {
        url: request.url().slice(0, 4000),
        method: request.method(),
        resourceType: request.resourceType(),
        status: null,
        failure: null,
        frameUrl,
        atMs: Date.now() - started,
        postData: postDataOf(request),
      };
      records.set(request, record);
      if (findings.requests.length < 3000) findings.requests.push(record);
    });
    context.on('response', (response) => {
      const record = records.get(response.request());
      if (record) record.status = response.status();
    });
    const settle = (request: Request, failure: string | null) => {
      inflight.delete(request);
      lastActivity = Date.now();
      const record = records.get(request);
      if (record && failure) record.failure = failure;
    };
    context.on('requestfinished', (request) => settle(request, null));
    context.on('requestfailed', (request) => settle(request, request.failure()?.errorText ?? 'failed'));

    const page = await context.newPage();
    const navigationBudget = options.deadline - Date.now() - SNAPSHOT_RESERVE_MS;
    if (navigationBudget <= 0)
      throw Object.assign(new Error('no time left for the browser stage'), { code: 'browser_timeout' });
    // The page's own address, an HTTP redirect of it or a navigation during load was refused: the target is not allowed.
    const refusedNavigation = () => proxy.refused.find((item) => mainNavigationHosts.has(item.host))?.error;
    try {
      await page.goto(url, { waitUntil: 'load', timeout: navigationBudget });
      const refused = refusedNavigation();
      if (refused) throw refused;
    } catch (error) {
      const refused = refusedNavigation();
      if (refused) throw refused;
      if (options.signal?.aborted) throw error;
      const message = error instanceof Error ? error.message : String(error);
      if (/Timeout/i.test(message)) findings.timedOut = true;
      else if (!page.url() || page.url() === 'about:blank') throw error;
      else findings.problems.push(`navigation: ${message.split('\n')[0]}`);
    }
    // A refused navigation after load (e.g. a script redirect) is only reported as a refused request.

    if (consentDriver && !findings.timedOut) {
      await consentDriver.settled(
        Math.min(Date.now() + CONSENT_CLICK_BUDGET_MS, options.deadline - SNAPSHOT_RESERVE_MS),
      );
    }
    if (!findings.timedOut && page.url() && page.url() !== 'about:blank') {
      if (!options.consentAction) findings.typed = await typeSentinel(page, options.deadline - SNAPSHOT_RESERVE_MS);
      findings.observation = await observeAfterLoad(page, network, started, {
        capMs: options.observationCapMs,
        quietMs: options.quietMs,
        longLivedMs: options.longLivedMs,
        until: options.deadline - SNAPSHOT_RESERVE_MS,
      });
      if (findings.observation.endedBy === 'deadline') findings.timedOut = true;
    }

    findings.finalUrl = page.url() && page.url() !== 'about:blank' ? page.url() : url;
    findings.refused = proxy.refused.map((item) => ({ url: item.target, reason: item.error.message }));
    const snapshotEnds = Math.max(Date.now() + 1_000, options.deadline - 200);
    const step = async <T>(what: string, run: () => Promise<T>, fallback: T): Promise<T> => {
      try {
        return await withTimeout(run(), Math.min(2_000, snapshotEnds - Date.now()), what);
      } catch (error) {
        findings.problems.push(`${what}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
        return fallback;
      }
    };
    const globalNames = [
      ...new Set([
        ...GLOBAL_RULES.map((rule) => rule.global),
        ...CMP_RULES.flatMap((rule) => rule.globals),
        '__tcfapi',
      ]),
    ];
    const known = CMP_RULES.flatMap((rule) => rule.selectors.map((selector) => ({ cmp: rule.name, selector })));
    const [globals, dataLayer, banner, browserCookies, writes, violations, tcfCmpId, canvas] = await Promise.all([
      step(
        'globals',
        () => page.evaluate<{ present: string[]; googleTagIds: string[] }>(inPage(GLOBALS_SCRIPT, globalNames)),
        { present: [] as string[], googleTagIds: [] as string[] },
      ),
      step('dataLayer', () => page.evaluate<unknown[]>(inPage(DATALAYER_SCRIPT)), [] as unknown[]),
      step('banner', () => page.evaluate<RuntimeFindings['banner']>(inPage(BANNER_SCRIPT, known)), findings.banner),
      step('cookies', () => context.cookies(), []),
      step(
        'cookie writes',
        async () => {
          const frames: Frame[] = page.frames().slice(0, 20);
          const lists = await Promise.all(
            frames.map((frame) =>
              frame
                .evaluate<Array<{ name: string; script: string | null }>>(COOKIE_WRITES_SCRIPT)
                .catch(() => [] as Array<{ name: string; script: string | null }>),
            ),
          );
          return lists.flat();
        },
        [] as Array<{ name: string; script: string | null }>,
      ),
      step(
        'csp violations',
        async () => {
          const lists = await Promise.all(
            page
              .frames()
              .slice(0, 20)
              .map((frame) =>
                frame
                  .evaluate<Array<{ url: string; directive: string }>>(CSP_VIOLATIONS_SCRIPT)
                  .catch(() => [] as Array<{ url: string; directive: string }>),
              ),
          );
          return lists.flat();
        },
        [] as Array<{ url: string; directive: string }>,
      ),
      step('tcf ping', () => page.evaluate<number | null>(TCF_PING_SCRIPT), null as number | null),
      step('canvas', () => collectCanvasReadbacks(page), [] as CanvasReadback[]),
    ]);
    findings.canvasReadbacks = canvas;
    findings.cspViolations = violations;
    findings.tcfCmpId = tcfCmpId;
    findings.globals = globals.present.filter((name) => name !== '__tcfapi');
    findings.tcfApi = globals.present.includes('__tcfapi');
    findings.googleTagIds = globals.googleTagIds;
    findings.dataLayer = dataLayer;
    findings.banner = banner;
    const writers = new Map(writes.map((write) => [write.name, write.script]));
    findings.cookies = browserCookies.map((cookie) => ({
      name: cookie.name,
      domain: cookie.domain.replace(/^\./, ''),
      expires: cookie.expires,
      httpOnly: cookie.httpOnly,
      setBy: !cookie.httpOnly && writers.has(cookie.name) ? 'script' : 'http',
      script: writers.get(cookie.name) ?? null,
    }));
    return findings;
  } finally {
    options.signal?.removeEventListener('abort', closeContext);
    await closeContext();
    await proxy.close();
  }
}
