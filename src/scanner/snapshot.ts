import type { BrowserContext, Frame, Page } from 'playwright-core';
import type { RuntimeFindings, StorageWrite } from './capture-types.js';
import { LAUNCH_CONTAINER_SCRIPT, type LaunchContainerSnapshot } from './launch-container.js';
import { CMP_RULES, GLOBAL_RULES } from './signatures.js';
import {
  BANNER_SCRIPT,
  COOKIE_WRITES_SCRIPT,
  CSP_VIOLATIONS_SCRIPT,
  DATALAYER_SCRIPT,
  GLOBALS_SCRIPT,
  LINKS_SCRIPT,
  SERVICE_WORKERS_SCRIPT,
  STORAGE_WRITES_SCRIPT,
  TCF_PING_SCRIPT,
  inPage,
} from './page-scripts.js';
import { collectCanvasReadbacks, type CanvasReadback } from './behaviours-page.js';

/** The end of a page's capture: what the page holds once observation is over (globals, banner, cookies, links…). */

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), Math.max(0, ms));
    }),
  ]);
}

const GLOBAL_NAMES = [
  ...new Set([...GLOBAL_RULES.map((rule) => rule.global), ...CMP_RULES.flatMap((rule) => rule.globals), '__tcfapi']),
];
const KNOWN_BANNERS = CMP_RULES.flatMap((rule) => rule.selectors.map((selector) => ({ cmp: rule.name, selector })));

/** Runs `evaluate` in the page's first 20 frames and concatenates what each returns (a frame that fails adds nothing). */
async function inFrames<T>(page: Page, script: string): Promise<T[]> {
  const frames: Frame[] = page.frames().slice(0, 20);
  const lists = await Promise.all(frames.map((frame) => frame.evaluate<T[]>(script).catch(() => [] as T[])));
  return lists.flat();
}

/** Fills `findings` from the page and its context; a step that fails or runs out of time is listed in `problems`. */
export async function snapshotPage(
  page: Page,
  context: BrowserContext,
  findings: RuntimeFindings,
  deadline: number,
): Promise<void> {
  const snapshotEnds = Math.max(Date.now() + 1_000, deadline - 200);
  const step = async <T>(what: string, run: () => Promise<T>, fallback: T): Promise<T> => {
    try {
      return await withTimeout(run(), Math.min(2_000, snapshotEnds - Date.now()), what);
    } catch (error) {
      findings.problems.push(`${what}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      return fallback;
    }
  };
  const [
    globals,
    dataLayer,
    banner,
    browserCookies,
    writes,
    violations,
    tcfCmpId,
    canvas,
    links,
    workers,
    launch,
    stored,
  ] = await Promise.all([
    step(
      'globals',
      () => page.evaluate<{ present: string[]; googleTagIds: string[] }>(inPage(GLOBALS_SCRIPT, GLOBAL_NAMES)),
      { present: [] as string[], googleTagIds: [] as string[] },
    ),
    step('dataLayer', () => page.evaluate<unknown[]>(inPage(DATALAYER_SCRIPT)), [] as unknown[]),
    step(
      'banner',
      () => page.evaluate<RuntimeFindings['banner']>(inPage(BANNER_SCRIPT, KNOWN_BANNERS)),
      findings.banner,
    ),
    step('cookies', () => context.cookies(), []),
    step('cookie writes', () => inFrames<{ name: string; script: string | null }>(page, COOKIE_WRITES_SCRIPT), []),
    step('csp violations', () => inFrames<{ url: string; directive: string }>(page, CSP_VIOLATIONS_SCRIPT), []),
    step('tcf ping', () => page.evaluate<number | null>(TCF_PING_SCRIPT), null as number | null),
    step('canvas', () => collectCanvasReadbacks(page), [] as CanvasReadback[]),
    step('links', () => page.evaluate<string[]>(LINKS_SCRIPT), [] as string[]),
    step('service workers', () => inFrames<{ url: string; script: string | null }>(page, SERVICE_WORKERS_SCRIPT), []),
    step('adobe launch', () => page.evaluate<LaunchContainerSnapshot | null>(LAUNCH_CONTAINER_SCRIPT), null),
    step('storage writes', () => inFrames<StorageWrite>(page, STORAGE_WRITES_SCRIPT), []),
  ]);
  findings.storageWrites = stored;
  findings.launchContainer = launch;
  findings.serviceWorkers = workers;
  findings.canvasReadbacks = canvas;
  findings.cspViolations = violations;
  findings.tcfCmpId = tcfCmpId;
  findings.globals = globals.present.filter((name) => name !== '__tcfapi');
  findings.tcfApi = globals.present.includes('__tcfapi');
  findings.googleTagIds = globals.googleTagIds;
  findings.dataLayer = dataLayer;
  findings.banner = banner;
  findings.links = links;
  const writers = new Map(writes.map((write) => [write.name, write.script]));
  findings.cookies = browserCookies.map((cookie) => ({
    name: cookie.name,
    domain: cookie.domain.replace(/^\./, ''),
    expires: cookie.expires,
    httpOnly: cookie.httpOnly,
    setBy: !cookie.httpOnly && writers.has(cookie.name) ? 'script' : 'http',
    script: writers.get(cookie.name) ?? null,
  }));
}
