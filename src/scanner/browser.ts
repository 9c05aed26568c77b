import { chromium, type Browser, type BrowserContext, type Frame, type Request } from 'playwright-core';
import { ScanTargetRefusedError } from './errors.ts';
import { CMP_RULES, GLOBAL_RULES } from './signatures.ts';
import type { SsrfGuard } from './ssrf.ts';

/** Stage 2: load the page in headless Chromium without interacting, and record what it does. */

export const DEFAULT_HOST_RESOLVER_RULES = 'MAP * ~NOTFOUND , EXCLUDE 127.0.0.1';

export interface ChromiumFlagOptions {
  hostResolverRules?: string;
  ignoreCertSpkiList?: string[];
}

/** Flags shared by the scan browser and the Lighthouse browser. */
export function chromiumFlags(options: ChromiumFlagOptions): string[] {
  const rules = options.hostResolverRules ?? DEFAULT_HOST_RESOLVER_RULES;
  return [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
    ...(rules ? [`--host-resolver-rules=${rules}`] : []),
    ...(options.ignoreCertSpkiList?.length ? [`--ignore-certificate-errors-spki-list=${options.ignoreCertSpkiList.join(',')}`] : []),
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
      const launching = chromium.launch({
        executablePath: this.options.chromiumPath,
        headless: true,
        args: chromiumFlags(this.options),
        timeout: 30_000,
      });
      this.browser = launching;
      launching.then(
        (browser) => browser.on('disconnected', () => {
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
        const timer = setTimeout(() => {
          const index = this.waiting.indexOf(wake);
          if (index >= 0) this.waiting.splice(index, 1);
          reject(Object.assign(new Error('no browser slot became free in time'), { code: 'browser_busy' }));
        }, Math.max(0, deadline - Date.now()));
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
  mainStatus: number | null;
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
  signal?: AbortSignal;
}

const SNAPSHOT_RESERVE_MS = 2_500;

const INIT_SCRIPT = `(() => {
  const writes = [];
  try { Object.defineProperty(window, '__tagportCookieWrites', { value: writes, enumerable: false }); } catch (e) { return; }
  const descriptor = Object.getOwnPropertyDescriptor(Document.prototype, 'cookie');
  if (!descriptor || !descriptor.set || !descriptor.get) return;
  Object.defineProperty(Document.prototype, 'cookie', {
    configurable: true,
    enumerable: descriptor.enumerable,
    get() { return descriptor.get.call(this); },
    set(value) {
      try {
        if (writes.length < 1000) {
          const name = String(value).split(';')[0].split('=')[0].trim();
          const urls = (new Error().stack || '').match(/https?:\\/\\/[^\\s)]+/g);
          writes.push({ name, script: urls ? urls[0].replace(/:\\d+:\\d+$/, '') : null });
        }
      } catch (e) {}
      return descriptor.set.call(this, value);
    },
  });
})();`;

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

/** Runs in the page: which of the given globals exist, and the tag ids google_tag_manager knows. */
function pageGlobals(names: string[]): { present: string[]; googleTagIds: string[] } {
  const w = window as unknown as Record<string, unknown>;
  const gtm = w.google_tag_manager;
  const googleTagIds = gtm && typeof gtm === 'object' ? Object.keys(gtm).filter((key) => /^(GTM|G|AW|DC|UA)-[A-Z0-9-]+$/.test(key)).slice(0, 50) : [];
  const present = names.filter((name) => {
    try {
      const value = w[name];
      if (value === undefined || value === null) return false;
      if (name === 'analytics') return typeof (value as { load?: unknown }).load === 'function' || Array.isArray(value);
      if (name === 'hj' || name === 'clarity' || name === 'ga') return typeof value === 'function';
      return true;
    } catch {
      return false;
    }
  });
  return { present, googleTagIds };
}

/** Runs in the page: dataLayer as JSON-safe values; gtag() Arguments objects become arrays. */
function pageDataLayer(): unknown[] {
  const seen = new WeakSet<object>();
  const serialise = (value: unknown, depth: number): unknown => {
    if (value === null || value === undefined) return null;
    if (typeof value === 'string') return value.slice(0, 500);
    if (typeof value === 'number' || typeof value === 'boolean') return value;
    if (typeof value === 'function') return '[function]';
    if (typeof value !== 'object') return String(value);
    if (depth > 4) return '[depth]';
    if (seen.has(value)) return '[circular]';
    seen.add(value);
    if (typeof Node !== 'undefined' && value instanceof Node) return '[node]';
    if (Array.isArray(value) || Object.prototype.toString.call(value) === '[object Arguments]') {
      return Array.from(value as ArrayLike<unknown>).slice(0, 50).map((item) => serialise(item, depth + 1));
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).slice(0, 60)) {
      try {
        out[key] = serialise((value as Record<string, unknown>)[key], depth + 1);
      } catch {
        out[key] = '[unreadable]';
      }
    }
    return out;
  };
  const layer = (window as unknown as { dataLayer?: unknown }).dataLayer;
  return Array.isArray(layer) ? layer.slice(0, 300).map((entry) => serialise(entry, 0)) : [];
}

/** Runs in the page: is a consent banner visible? */
function pageBanner(known: Array<{ cmp: string; selector: string }>): { visible: boolean; via: string | null; cmp: string | null } {
  const isVisible = (element: Element) => {
    const rect = element.getBoundingClientRect();
    const style = getComputedStyle(element);
    return rect.width > 0 && rect.height > 0 && style.visibility !== 'hidden' && style.display !== 'none' && Number(style.opacity) > 0.05;
  };
  for (const { cmp, selector } of known) {
    const element = document.querySelector(selector);
    if (!element) continue;
    if (isVisible(element) || (element.shadowRoot && element.shadowRoot.childElementCount > 0)) return { visible: true, via: selector, cmp };
  }
  const words = /cookie|consent|datenschutz|einwilligung|privacidad|confidentialit|consentement|riservatezza|privacy|toestemming|prywatno|zgod|aceitar|aceptar|accetta|akzeptieren|accepter|accepteren|akceptuj/i;
  const elements = document.body ? document.body.querySelectorAll('*') : [];
  const limit = Math.min(elements.length, 4000);
  for (let i = 0; i < limit; i++) {
    const element = elements[i] as HTMLElement;
    const style = getComputedStyle(element);
    if (style.position !== 'fixed' && style.position !== 'sticky') continue;
    if (!isVisible(element)) continue;
    const text = (element.innerText || '').slice(0, 4000);
    if (words.test(text) && element.querySelector('button, [role="button"], input[type="button"], input[type="submit"], a')) {
      return { visible: true, via: 'fixed element with cookie/consent text and a button', cmp: null };
    }
  }
  return { visible: false, via: null, cmp: null };
}

export async function capturePage(browser: Browser, url: string, options: CaptureOptions): Promise<RuntimeFindings> {
  const findings: RuntimeFindings = {
    finalUrl: url,
    mainStatus: null,
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
  const context: BrowserContext = await browser.newContext({
    serviceWorkers: 'block',
    acceptDownloads: false,
    locale: options.locale,
    userAgent: userAgentFor(browser.version()),
    viewport: { width: 1366, height: 768 },
  });
  const closeContext = () => context.close().catch(() => {});
  options.signal?.addEventListener('abort', closeContext, { once: true });
  const started = Date.now();
  const records = new Map<Request, RuntimeRequest>();
  let inflight = 0;
  let lastActivity = Date.now();
  let mainRefused: ScanTargetRefusedError | null = null;

  try {
    await context.addInitScript({ content: INIT_SCRIPT });
    await context.route('**/*', async (route) => {
      const request = route.request();
      try {
        await options.guard.checkUrl(new URL(request.url()));
        await route.continue();
      } catch (error) {
        const refused = error instanceof ScanTargetRefusedError;
        if (refused) {
          findings.refused.push({ url: request.url().slice(0, 2000), reason: error.message });
          if (isMainNavigation(request)) mainRefused = error;
        }
        await route.abort(refused ? 'blockedbyclient' : 'namenotresolved').catch(() => {});
      }
    });
    await context.routeWebSocket(/.*/, async (socket) => {
      const wsUrl = new URL(socket.url());
      try {
        await options.guard.checkHost(wsUrl.hostname.replace(/^\[|\]$/g, ''));
        socket.connectToServer();
      } catch (error) {
        findings.refused.push({ url: socket.url().slice(0, 2000), reason: error instanceof Error ? error.message : String(error) });
        await socket.close({ code: 1008, reason: 'refused' }).catch(() => {});
      }
    });
    context.on('request', (request) => {
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
    if (navigationBudget <= 0) throw Object.assign(new Error('no time left for the browser stage'), { code: 'browser_timeout' });
    try {
      const response = await page.goto(url, { waitUntil: 'load', timeout: navigationBudget });
      findings.mainStatus = response?.status() ?? null;
    } catch (error) {
      // The page's own address or an HTTP redirect of it was refused: the scan target itself is not allowed.
      if (mainRefused) throw mainRefused;
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
    const snapshotEnds = Math.max(Date.now() + 1_000, options.deadline - 200);
    const step = async <T>(what: string, run: () => Promise<T>, fallback: T): Promise<T> => {
      try {
        return await withTimeout(run(), Math.min(2_000, snapshotEnds - Date.now()), what);
      } catch (error) {
        findings.problems.push(`${what}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
        return fallback;
      }
    };
    const globalNames = [...new Set([...GLOBAL_RULES.map((rule) => rule.global), ...CMP_RULES.flatMap((rule) => rule.globals), '__tcfapi'])];
    const known = CMP_RULES.flatMap((rule) => rule.selectors.map((selector) => ({ cmp: rule.name, selector })));
    const [globals, dataLayer, banner, browserCookies, writes] = await Promise.all([
      step('globals', () => page.evaluate(pageGlobals, globalNames), { present: [] as string[], googleTagIds: [] as string[] }),
      step('dataLayer', () => page.evaluate(pageDataLayer), [] as unknown[]),
      step('banner', () => page.evaluate(pageBanner, known), findings.banner),
      step('cookies', () => context.cookies(), []),
      step(
        'cookie writes',
        async () => {
          const frames: Frame[] = page.frames().slice(0, 20);
          const lists = await Promise.all(
            frames.map((frame) =>
              frame
                .evaluate(() => ((window as unknown as { __tagportCookieWrites?: Array<{ name: string; script: string | null }> }).__tagportCookieWrites ?? []).slice())
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
  }
}
