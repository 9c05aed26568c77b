import type { Browser, BrowserContext, Frame, Request } from 'playwright-core';
import { CMP_RULES, GLOBAL_RULES } from './signatures.js';
import {
  BANNER_SCRIPT,
  COOKIE_WRITES_SCRIPT,
  DATALAYER_SCRIPT,
  GLOBALS_SCRIPT,
  INIT_SCRIPT,
  inPage,
} from './page-scripts.js';
import { startGuardProxy } from './proxy.js';
import { bareHost, type SsrfGuard } from './ssrf.js';

/** Stage 2: load the page in headless Chromium without interacting, and record what it does. */

export const DEFAULT_HOST_RESOLVER_RULES = 'MAP * ~NOTFOUND , EXCLUDE 127.0.0.1';

export interface ChromiumFlagOptions {
  hostResolverRules?: string;
  ignoreCertSpkiList?: string[];
}

/**
 * Flags shared by the scan browser and the Lighthouse browser. Every connection must go through the guard proxy, so
 * the UDP an HTTP proxy cannot carry is closed: QUIC, and WebRTC's STUN/TURN/peer traffic, which would otherwise reach
 * any address, private ones included (`--webrtc-ip-handling-policy` is the switch this Chromium honours; the `force-`
 * variant is read by Chrome builds). WebTransport ignores --disable-quic but refuses to run through a proxy.
 * test/scanner/webrtc.test.ts checks both channels.
 */
export function chromiumFlags(options: ChromiumFlagOptions): string[] {
  const rules = options.hostResolverRules ?? DEFAULT_HOST_RESOLVER_RULES;
  return [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
    ...(rules ? [`--host-resolver-rules=${rules}`] : []),
    ...(options.ignoreCertSpkiList?.length
      ? [`--ignore-certificate-errors-spki-list=${options.ignoreCertSpkiList.join(',')}`]
      : []),
  ];
}

export function userAgentFor(chromeVersion: string): string {
  const major = /^(\d+)/.exec(chromeVersion)?.[1] ?? '130';
  return `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
}

export interface BrowserPoolOptions extends ChromiumFlagOptions {
  chromiumPath: string;
  concurrency: number;
}

/** One Chromium, launched on first use and relaunched if it dies; at most `concurrency` scans at a time. */
export class BrowserPool {
  private browser: Promise<Browser> | null = null;
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private closed = false;

  constructor(private readonly options: BrowserPoolOptions) {}

  private launch(): Promise<Browser> {
    if (!this.browser) {
      // Loaded on the first browser scan: playwright-core is large, and most processes never scan.
      const launching = import('playwright-core').then(({ chromium }) =>
        chromium.launch({
          executablePath: this.options.chromiumPath,
          headless: true,
          args: chromiumFlags(this.options),
          timeout: 30_000,
        }),
      );
      this.browser = launching;
      launching.then(
        (browser) =>
          browser.on('disconnected', () => {
            if (this.browser === launching) this.browser = null;
          }),
        () => {
          if (this.browser === launching) this.browser = null;
        },
      );
    }
    return this.browser;
  }

  /** Waits for a free slot (until `deadline`), then returns the browser and a release function. */
  async acquire(deadline: number): Promise<{ browser: Browser; release: () => void }> {
    if (this.closed) throw new Error('scanner is closed');
    if (this.active >= this.options.concurrency) {
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(
          () => {
            const index = this.waiting.indexOf(wake);
            if (index >= 0) this.waiting.splice(index, 1);
            reject(Object.assign(new Error('no browser slot became free in time'), { code: 'browser_busy' }));
          },
          Math.max(0, deadline - Date.now()),
        );
        this.waiting.push(wake);
      });
    } else {
      this.active++;
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    };
    try {
      return { browser: await this.launch(), release };
    } catch (error) {
      release();
      throw error;
    }
  }

  get stats() {
    return { active: this.active, waiting: this.waiting.length };
  }

  async close(): Promise<void> {
    this.closed = true;
    const pending = this.browser;
    this.browser = null;
    if (pending) await pending.then((browser) => browser.close()).catch(() => {});
  }
}

export interface RuntimeRequest {
  url: string;
  method: string;
  resourceType: string;
  status: number | null;
  failure: string | null;
  frameUrl: string | null;
  /** ms since the navigation started. */
  atMs: number;
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
  /** The navigation or the settle phase hit the time limit. */
  timedOut: boolean;
  /** Non-fatal problems (a snapshot step that failed…). */
  problems: string[];
}

export interface CaptureOptions {
  guard: SsrfGuard;
  deadline: number;
  /** Longest wait for the network to go quiet after load. */
  settleMs: number;
  /** Network quiet period that ends the settle phase. */
  quietMs: number;
  locale: string;
  /** MAP/EXCLUDE host rules the guard proxy applies (the same string Chromium gets as --host-resolver-rules). */
  hostRules?: string;
  signal?: AbortSignal;
}

const SNAPSHOT_RESERVE_MS = 2_500;

function isMainNavigation(request: Request): boolean {
  try {
    return request.isNavigationRequest() && request.frame() === request.frame().page().mainFrame();
  } catch {
    return false;
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
  let inflight = 0;
  let lastActivity = Date.now();
  const mainNavigationHosts = new Set<string>();

  try {
    await context.addInitScript({ content: INIT_SCRIPT });
    context.on('request', (request) => {
      if (isMainNavigation(request)) {
        try {
          mainNavigationHosts.add(bareHost(new URL(request.url()).hostname).toLowerCase());
        } catch {
          /* not a URL with a host */
        }
      }
      inflight++;
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
      };
      records.set(request, record);
      if (findings.requests.length < 3000) findings.requests.push(record);
    });
    context.on('response', (response) => {
      const record = records.get(response.request());
      if (record) record.status = response.status();
    });
    const settle = (request: Request, failure: string | null) => {
      inflight = Math.max(0, inflight - 1);
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

    // Let tags that fire after load (timers, window-loaded triggers) run, until the network is quiet.
    const settleUntil = Math.min(Date.now() + options.settleMs, options.deadline - SNAPSHOT_RESERVE_MS);
    while (!findings.timedOut && Date.now() < settleUntil) {
      if (inflight === 0 && Date.now() - lastActivity >= options.quietMs) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!findings.timedOut && Date.now() >= options.deadline - SNAPSHOT_RESERVE_MS) findings.timedOut = true;

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
    const [globals, dataLayer, banner, browserCookies, writes] = await Promise.all([
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
    ]);
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
