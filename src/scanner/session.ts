import type { Browser, BrowserContext, Request } from 'playwright-core';
import type { CaptureOptions, RuntimeFindings, RuntimeRequest } from './capture-types.js';
import { userAgentFor } from './browser-pool.js';
import { INIT_SCRIPT, SERVICE_WORKER_INIT_SCRIPT } from './page-scripts.js';
import { observeAfterLoad } from './observe.js';
import { startGuardProxy, type GuardProxy } from './proxy.js';
import { bareHost } from './ssrf.js';
import { attachAutoconsent, type AutoconsentDriver } from './autoconsent.js';
import { CANVAS_INIT_SCRIPT, typeSentinel } from './behaviours-page.js';
import { snapshotPage } from './snapshot.js';
import { ContainerBodies } from './container-bodies.js';

/** Longest wait for autoconsent to find and click a banner after load. */
const CONSENT_CLICK_BUDGET_MS = 8_000;

const SNAPSHOT_RESERVE_MS = 2_500;

/** What the session records for the page being captured; the context's listeners write here. */
interface PageRecording {
  findings: RuntimeFindings;
  records: Map<Request, RuntimeRequest>;
  /** Requests in flight and when they started; streams never hold the settle. */
  inflight: Map<Request, number>;
  started: number;
  lastActivity: number;
  containers: ContainerBodies;
  mainNavigationHosts: Set<string>;
}

export type SessionOptions = Pick<CaptureOptions, 'guard' | 'locale' | 'hostRules' | 'consentAction' | 'signal'>;
export type PageCaptureOptions = Pick<CaptureOptions, 'deadline' | 'observationCapMs' | 'quietMs' | 'longLivedMs'> & {
  /** Type a sentinel into the page's form fields (keystroke capture); not in consent-check runs. Default true. */
  typeIntoForms?: boolean;
};

/** What a capture starts from: nothing seen yet. */
export function emptyRuntimeFindings(url: string): RuntimeFindings {
  return {
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
}

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

function frameUrlOf(request: Request): string | null {
  try {
    return request.frame().url() || null;
  } catch {
    return null;
  }
}

/**
 * One browser context behind the SSRF guard proxy, in which pages are captured one after another, as a visitor who
 * follows links (cookies and storage carry over). Every request of the context goes through the proxy.
 */
export class CaptureSession {
  private recording: PageRecording | null = null;
  private readonly closeContext = () => this.context.close().catch(() => {});

  private constructor(
    private readonly context: BrowserContext,
    private readonly proxy: GuardProxy,
    private readonly consentDriver: AutoconsentDriver | null,
    private readonly options: SessionOptions,
  ) {
    options.signal?.addEventListener('abort', this.closeContext, { once: true });
    context.on('request', (request) => this.onRequest(request));
    context.on('response', (response) => {
      const record = this.recording?.records.get(response.request());
      if (record) record.status = response.status();
      this.recording?.containers.keep(response);
    });
    context.on('requestfinished', (request) => this.onSettled(request, null));
    context.on('requestfailed', (request) => this.onSettled(request, request.failure()?.errorText ?? 'failed'));
  }

  static async open(browser: Browser, options: SessionOptions): Promise<CaptureSession> {
    const proxy = await startGuardProxy({ guard: options.guard, hostRules: options.hostRules });
    let context: BrowserContext | null = null;
    try {
      context = await browser.newContext({
        // '<-loopback>' removes Chromium's implicit proxy bypass for localhost and loopback addresses.
        proxy: { server: proxy.server, bypass: '<-loopback>' },
        serviceWorkers: 'block',
        acceptDownloads: false,
        locale: options.locale,
        userAgent: userAgentFor(browser.version()),
        viewport: { width: 1366, height: 768 },
      });
      await context.addInitScript({ content: `${INIT_SCRIPT}\n${SERVICE_WORKER_INIT_SCRIPT}` });
      await context.addInitScript({ content: CANVAS_INIT_SCRIPT });
      const consentDriver = options.consentAction ? await attachAutoconsent(context, options.consentAction) : null;
      return new CaptureSession(context, proxy, consentDriver, options);
    } catch (error) {
      await context?.close().catch(() => {});
      await proxy.close();
      throw error;
    }
  }

  private onRequest(request: Request): void {
    const recording = this.recording;
    if (!recording) return;
    if (isMainNavigation(request)) {
      try {
        recording.mainNavigationHosts.add(bareHost(new URL(request.url()).hostname).toLowerCase());
      } catch {
        /* not a URL with a host */
      }
    }
    if (!['websocket', 'eventsource'].includes(request.resourceType())) recording.inflight.set(request, Date.now());
    recording.lastActivity = Date.now();
    const record: RuntimeRequest = {
      url: request.url().slice(0, 4000),
      method: request.method(),
      resourceType: request.resourceType(),
      status: null,
      failure: null,
      frameUrl: frameUrlOf(request),
      atMs: Date.now() - recording.started,
      postData: postDataOf(request),
    };
    recording.records.set(request, record);
    if (recording.findings.requests.length < 3000) recording.findings.requests.push(record);
  }

  private onSettled(request: Request, failure: string | null): void {
    const recording = this.recording;
    if (!recording) return;
    recording.inflight.delete(request);
    recording.lastActivity = Date.now();
    const record = recording.records.get(request);
    if (record && failure) record.failure = failure;
  }

  /** Loads `url` in a new page of the session, observes it and snapshots it; the page is closed afterwards. */
  async capture(url: string, options: PageCaptureOptions): Promise<RuntimeFindings> {
    const findings = emptyRuntimeFindings(url);
    if (this.consentDriver) findings.consentClick = this.consentDriver.outcome;
    const refusedBefore = this.proxy.refused.length;
    const recording: PageRecording = {
      findings,
      records: new Map(),
      inflight: new Map(),
      started: Date.now(),
      lastActivity: Date.now(),
      mainNavigationHosts: new Set(),
      containers: new ContainerBodies(),
    };
    this.recording = recording;
    const page = await this.context.newPage();
    try {
      const navigationBudget = options.deadline - Date.now() - SNAPSHOT_RESERVE_MS;
      if (navigationBudget <= 0)
        throw Object.assign(new Error('no time left for the browser stage'), { code: 'browser_timeout' });
      const refusedSince = () => this.proxy.refused.slice(refusedBefore);
      // The page's own address, an HTTP redirect of it or a navigation during load was refused: the target is not allowed.
      const refusedNavigation = () =>
        refusedSince().find((item) => recording.mainNavigationHosts.has(item.host))?.error;
      try {
        await page.goto(url, { waitUntil: 'load', timeout: navigationBudget });
        const refused = refusedNavigation();
        if (refused) throw refused;
      } catch (error) {
        const refused = refusedNavigation();
        if (refused) throw refused;
        if (this.options.signal?.aborted) throw error;
        const message = error instanceof Error ? error.message : String(error);
        if (/Timeout/i.test(message)) findings.timedOut = true;
        else if (!page.url() || page.url() === 'about:blank') throw error;
        else findings.problems.push(`navigation: ${message.split('\n')[0]}`);
      }
      // A refused navigation after load (e.g. a script redirect) is only reported as a refused request.
      const loadedAt = Date.now();

      const observeUntil = options.deadline - SNAPSHOT_RESERVE_MS;
      if (this.consentDriver && !findings.timedOut) {
        await this.consentDriver.settled(Math.min(Date.now() + CONSENT_CLICK_BUDGET_MS, observeUntil));
      }
      if (!findings.timedOut && page.url() && page.url() !== 'about:blank') {
        if (!this.consentDriver && options.typeIntoForms !== false)
          findings.typed = await typeSentinel(page, observeUntil);
        const network = {
          pendingShortLived: (now: number, longLivedMs: number) =>
            [...recording.inflight.values()].filter((startedAt) => now - startedAt < longLivedMs).length,
          lastActivity: () => recording.lastActivity,
        };
        findings.observation = await observeAfterLoad(page, network, recording.started, {
          loadedAt,
          capMs: options.observationCapMs,
          quietMs: options.quietMs,
          longLivedMs: options.longLivedMs,
          until: observeUntil,
        });
        if (findings.observation.endedBy === 'deadline') findings.timedOut = true;
      }

      findings.finalUrl = page.url() && page.url() !== 'about:blank' ? page.url() : url;
      findings.refused = refusedSince().map((item) => ({ url: item.target, reason: item.error.message }));
      findings.containerScripts = await recording.containers.collect();
      await snapshotPage(page, this.context, findings, options.deadline);
      return findings;
    } finally {
      this.recording = null;
      await page.close().catch(() => {});
    }
  }

  async close(): Promise<void> {
    this.options.signal?.removeEventListener('abort', this.closeContext);
    await this.closeContext();
    await this.proxy.close();
  }
}
