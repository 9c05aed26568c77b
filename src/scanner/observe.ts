import type { Page } from 'playwright-core';
import { FAST_FORWARD_TIMERS_SCRIPT, NOW_SCRIPT, inPage } from './page-scripts.js';

/**
 * What happens after load: the scan behaves like a person (pointer move, scroll, a key press, a touch) so tags that
 * wait for the first interaction run, then watches until the network is quiet and no timer the page set is still due,
 * up to a cap. The window actually observed is reported.
 */

export const INTERACTIONS = ['pointer_move', 'scroll', 'key_press', 'touch'] as const;
export type Interaction = (typeof INTERACTIONS)[number];

export interface Observation {
  /** ms from the start of the navigation to the load event (or to the navigation's timeout). */
  loadMs: number;
  /** ms from the start of the navigation to the end of observation. */
  windowMs: number;
  /** network_quiet: settled. cap: the observation cap was reached first. deadline: the scan's time ran out. */
  endedBy: 'network_quiet' | 'cap' | 'deadline';
  interactions: Interaction[];
}

export interface NetworkActivity {
  /** Requests in flight that may still hold the settle: started less than `longLivedMs` ago, not a stream. */
  pendingShortLived(now: number, longLivedMs: number): number;
  lastActivity(): number;
}

export interface ObserveOptions {
  /** When the page's load event came (epoch ms). */
  loadedAt: number;
  /** Longest observation after load, interaction included. */
  capMs: number;
  /** Network quiet period that ends observation. */
  quietMs: number;
  /** A request open longer than this (a long poll, a beacon nobody reads) no longer holds the settle. */
  longLivedMs: number;
  /** Observation must end by then (the snapshot needs the rest). */
  until: number;
}

const POLL_MS = 100;
/**
 * Quiet before the visitor acts: what loaded has run and set its listeners by then. The settle after the visitor
 * waits the full quiet period since the last request, so a shorter wait here only stops the visitor standing idle.
 */
const BEFORE_VISITOR_QUIET_MS = 400;
/** Quiet time after timers were brought forward, before the next ones are or the settle ends. */
const FAST_FORWARD_QUIET_MS = 250;
/** Two viewports per step: a scroll-depth trigger fires once the depth is past its mark, however it got there. */
const SCROLL_STEP_PX = 1400;
/** Between steps, time for scroll listeners and throttled scroll-depth triggers to see the new position. */
const SCROLL_PAUSE_MS = 60;
/** Steps at most (about 11,000 px): a page that keeps growing as it is scrolled ends somewhere. */
const MAX_SCROLL_STEPS = 8;
const SCROLL_POSITION_SCRIPT = '[window.scrollY, document.documentElement.scrollHeight - window.innerHeight]';

export async function observeAfterLoad(
  page: Page,
  network: NetworkActivity,
  navigationStarted: number,
  options: ObserveOptions,
): Promise<Observation> {
  const loaded = Date.now();
  const end = Math.min(loaded + options.capMs, options.until);
  const beforeVisitor = { ...options, quietMs: Math.min(options.quietMs, BEFORE_VISITOR_QUIET_MS) };
  await settle(page, network, Math.min(end, loaded + options.capMs / 2), beforeVisitor, null);
  const interactions = Date.now() < end - 300 ? await simulateVisitor(page, end - 300) : [];
  // Timers the page set until now (tags on a timer, delayed loaders) are brought forward; chains they start are not.
  const mark = await page.evaluate<number>(NOW_SCRIPT).catch(() => null);
  const endedBy = await settle(page, network, end, options, mark);
  const cutByDeadline = options.until < loaded + options.capMs;
  return {
    loadMs: options.loadedAt - navigationStarted,
    windowMs: Date.now() - navigationStarted,
    endedBy: endedBy === 'cap' && cutByDeadline ? 'deadline' : endedBy,
    interactions,
  };
}

/**
 * Waits until the network is quiet. With a timer mark, each time it is, the page's timers set before the mark that
 * would fire before `end` are brought forward (earliest first) instead of waited for, and the network must then be
 * quiet again: a tag on a 6 s timer is seen without six seconds of waiting. Timers those timers set are not.
 */
async function settle(
  page: Page,
  network: NetworkActivity,
  end: number,
  options: ObserveOptions,
  timerMark: number | null,
): Promise<'network_quiet' | 'cap'> {
  let broughtForwardAt = 0;
  while (Date.now() < end) {
    const now = Date.now();
    if (isQuiet(network, now, options, broughtForwardAt)) {
      if (timerMark === null) return 'network_quiet';
      const ran = await page
        .evaluate<number>(inPage(FAST_FORWARD_TIMERS_SCRIPT, { mark: timerMark, horizon: end - now }))
        .catch(() => 0);
      if (ran === 0) return 'network_quiet';
      broughtForwardAt = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return 'cap';
}

/**
 * Nothing short-lived in flight, and no request for the quiet period. Right after timers were brought forward a
 * shorter wait will do: what they start shows as a request within milliseconds, and a request, once seen, holds the
 * settle for the full period.
 */
function isQuiet(network: NetworkActivity, now: number, options: ObserveOptions, broughtForwardAt: number): boolean {
  if (network.pendingShortLived(now, options.longLivedMs) > 0) return false;
  const lastActivity = network.lastActivity();
  if (lastActivity > broughtForwardAt) return now - lastActivity >= options.quietMs;
  return now - broughtForwardAt >= FAST_FORWARD_QUIET_MS;
}

/**
 * A person arriving: the pointer moves, the page scrolls to its end (in steps, so scroll-depth tags at 25, 50 or
 * 90 % fire), a key is pressed, a finger touches. Never a click. Scrolling stops at `until`.
 */
export async function simulateVisitor(page: Page, until: number): Promise<Interaction[]> {
  const done: Interaction[] = [];
  const attempt = async (what: Interaction, run: () => Promise<unknown>) => {
    try {
      await run();
      done.push(what);
    } catch {
      /* a closed or navigating page: the rest is skipped quietly */
    }
  };
  await attempt('pointer_move', async () => {
    await page.mouse.move(120, 140);
    await page.mouse.move(420, 320, { steps: 4 });
  });
  await attempt('scroll', () => scrollToEnd(page, until));
  await attempt('key_press', () => page.keyboard.press('Shift'));
  await attempt('touch', async () => {
    const session = await page.context().newCDPSession(page);
    try {
      await session.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: 200, y: 300 }] });
      await session.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: 200, y: 240 }] });
      await session.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    } finally {
      await session.detach().catch(() => {});
    }
  });
  return done;
}

/** Scrolls down a step at a time, pausing after each, until the end of the page, the step limit or `until`. */
async function scrollToEnd(page: Page, until: number): Promise<void> {
  for (let step = 0; step < MAX_SCROLL_STEPS; step++) {
    if (step > 0) {
      if (Date.now() + SCROLL_PAUSE_MS >= until) return;
      const [position, bottom] = await page.evaluate<[number, number]>(SCROLL_POSITION_SCRIPT);
      if (position >= bottom - 1) return;
    }
    await page.mouse.wheel(0, SCROLL_STEP_PX);
    await new Promise((resolve) => setTimeout(resolve, SCROLL_PAUSE_MS));
  }
}
