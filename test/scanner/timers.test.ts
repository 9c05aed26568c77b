import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_FORWARD_TIMERS_SCRIPT, INIT_SCRIPT, NOW_SCRIPT, inPage } from '../../src/scanner/page-scripts.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../helpers/browser.js';

// The scan's init script records the page's timers; the observation brings forward those set before its mark, in
// due order, instead of waiting for them. Here in Chromium, with the page's own timers.
let browser: Browser;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
});
afterAll(async () => {
  await browser?.close();
});

async function pageWithTimers(setUp: string): Promise<Page> {
  const page = await browser.newPage();
  await page.addInitScript({ content: INIT_SCRIPT });
  await page.goto(`data:text/html,${encodeURIComponent(`<script>window.ran = []; ${setUp}</script>`)}`);
  return page;
}

/** Brings timers forward until none is left within `horizon`; the number run by each call. */
async function fastForwardAll(page: Page, mark: number, horizon: number): Promise<number[]> {
  const calls: number[] = [];
  for (let ran = -1; ran !== 0; ) {
    ran = await page.evaluate<number>(inPage(FAST_FORWARD_TIMERS_SCRIPT, { mark, horizon }));
    calls.push(ran);
    await page.waitForTimeout(20); // the brought-forward timers run as tasks of their own
  }
  return calls;
}

describe('timers brought forward', () => {
  it('runs the timers due within the horizon in due order, and no other', async () => {
    const page = await pageWithTimers(`
      setTimeout(() => ran.push('timeout 5 s'), 5000);
      setTimeout(() => ran.push('timeout 3 s'), 3000);
      setInterval(() => ran.push('interval 4 s'), 4000);
      setTimeout("ran.push('string handler 2.5 s')", 2500);
      setTimeout((a, b) => ran.push('arguments ' + a + b), 3500, 'x', 'y');
      const cleared = setTimeout(() => ran.push('cleared'), 2000);
      clearTimeout(cleared);
      setTimeout(() => ran.push('beyond the horizon'), 60000);`);
    const mark = await page.evaluate<number>(NOW_SCRIPT);
    await page.evaluate(`setTimeout(() => ran.push('set after the mark'), 1000)`);
    const started = Date.now();
    const calls = await fastForwardAll(page, mark, 10_000);
    expect(Date.now() - started).toBeLessThan(2_000); // the earliest of these timers is due at 2.5 s
    expect(calls).toEqual([1, 1, 1, 1, 1, 0]);
    expect(await page.evaluate('window.ran')).toEqual([
      'string handler 2.5 s',
      'timeout 3 s',
      'arguments xy',
      'interval 4 s',
      'timeout 5 s',
    ]);
    await page.close();
  });

  it('runs timers due together as one group, and an interval once, which then keeps its schedule', async () => {
    const page = await pageWithTimers(`
      setTimeout(() => ran.push('a'), 3000);
      setTimeout(() => ran.push('b'), 3020);
      window.interval = setInterval(() => ran.push('tick'), 1500);`);
    // The interval is due well after the first call below even on a loaded machine, and ticks on its own before the end.
    const mark = await page.evaluate<number>(NOW_SCRIPT);
    expect(await page.evaluate(inPage(FAST_FORWARD_TIMERS_SCRIPT, { mark, horizon: 10_000 }))).toBe(1); // the tick
    await page.waitForTimeout(20);
    expect(await page.evaluate(inPage(FAST_FORWARD_TIMERS_SCRIPT, { mark, horizon: 10_000 }))).toBe(2); // a and b
    await page.waitForTimeout(1600);
    const ran = await page.evaluate<string[]>('window.ran');
    expect(ran[0]).toBe('tick');
    // On a loaded machine the interval's own next tick may come before a and b run; their order is what counts.
    expect(ran.filter((name) => name !== 'tick')).toEqual(['a', 'b']);
    // The interval went on ticking on its own schedule; the page can still clear it.
    expect(ran.filter((name) => name === 'tick').length).toBeGreaterThanOrEqual(2);
    await page.evaluate('clearInterval(window.interval); window.ran = []');
    await page.waitForTimeout(1600);
    expect(await page.evaluate('window.ran')).toEqual([]);
    await page.close();
  });

  it('leaves a page without the init script alone', async () => {
    const page = await browser.newPage();
    await page.setContent('<p>no init script</p>');
    expect(await page.evaluate(inPage(FAST_FORWARD_TIMERS_SCRIPT, { mark: 0, horizon: 10_000 }))).toBe(0);
    await page.close();
  });
});
