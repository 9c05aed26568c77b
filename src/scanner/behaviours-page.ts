import { randomBytes } from 'node:crypto';
import type { Frame, Page } from 'playwright-core';

/**
 * The browser side of behaviours.ts: an init script that watches canvas use (the criteria of Englehardt & Narayanan
 * that Blacklight applies), and the typing of a unique value into form fields to see whether it is sent before any
 * submit. Plain JavaScript source, like page-scripts.ts.
 */

export interface CanvasReadback {
  /** The script that read the canvas back (first URL on the call stack), null when unknown. */
  script: string | null;
  method: 'toDataURL' | 'getImageData';
  width: number;
  height: number;
  /** Distinct characters drawn with fillText/strokeText. */
  characters: number;
  /** Distinct fill/stroke styles set. */
  colours: number;
  /** save(), restore() or addEventListener() was called: a canvas drawn for show, not a fingerprint. */
  displayed: boolean;
}

export interface TypedSentinel {
  /** The values typed (a text one and an e-mail one). */
  values: string[];
  fields: number;
}

export const CANVAS_INIT_SCRIPT = `(() => {
  const reads = [];
  try { Object.defineProperty(window, '__tagportCanvasReads', { value: reads, enumerable: false }); } catch (e) { return; }
  const state = new WeakMap();
  const of = (canvas) => {
    let s = state.get(canvas);
    if (!s) { s = { chars: new Set(), styles: new Set(), displayed: false }; state.set(canvas, s); }
    return s;
  };
  const caller = () => {
    const urls = (new Error().stack || '').match(/https?:\\/\\/[^\\s)]+/g);
    return urls ? urls[0].replace(/:\\d+:\\d+$/, '') : null;
  };
  const record = (canvas, method) => {
    if (!canvas || reads.length >= 200) return;
    const s = of(canvas);
    reads.push({ script: caller(), method, width: canvas.width, height: canvas.height, characters: s.chars.size, colours: s.styles.size, displayed: s.displayed });
  };
  const C2D = window.CanvasRenderingContext2D && CanvasRenderingContext2D.prototype;
  const HC = window.HTMLCanvasElement && HTMLCanvasElement.prototype;
  if (!C2D || !HC) return;
  const wrap = (proto, name, before) => {
    const original = proto[name];
    if (typeof original !== 'function') return;
    Object.defineProperty(proto, name, { configurable: true, writable: true, value: function (...args) {
      try { before(this, args); } catch (e) {}
      return original.apply(this, args);
    } });
  };
  const text = (ctx, args) => { const s = of(ctx.canvas); for (const ch of String(args[0])) if (s.chars.size < 200) s.chars.add(ch); };
  wrap(C2D, 'fillText', text);
  wrap(C2D, 'strokeText', text);
  wrap(C2D, 'save', (ctx) => { of(ctx.canvas).displayed = true; });
  wrap(C2D, 'restore', (ctx) => { of(ctx.canvas).displayed = true; });
  wrap(HC, 'addEventListener', (canvas) => { of(canvas).displayed = true; });
  wrap(HC, 'toDataURL', (canvas, args) => { if (!/jpe?g|webp/i.test(String(args[0] || ''))) record(canvas, 'toDataURL'); });
  wrap(C2D, 'getImageData', (ctx, args) => { if (Number(args[2]) >= 16 && Number(args[3]) >= 16) record(ctx.canvas, 'getImageData'); });
  for (const prop of ['fillStyle', 'strokeStyle']) {
    const d = Object.getOwnPropertyDescriptor(C2D, prop);
    if (!d || !d.set) continue;
    Object.defineProperty(C2D, prop, { configurable: true, enumerable: d.enumerable, get() { return d.get.call(this); }, set(value) {
      try { const s = of(this.canvas); if (s.styles.size < 50) s.styles.add(String(value)); } catch (e) {}
      return d.set.call(this, value);
    } });
  }
})();`;

const CANVAS_READS_SCRIPT = 'Array.from(window.__tagportCanvasReads || [])';

/** Canvas readbacks in the page and its first 20 frames. */
export async function collectCanvasReadbacks(page: Page): Promise<CanvasReadback[]> {
  const frames: Frame[] = page.frames().slice(0, 20);
  const lists = await Promise.all(
    frames.map((frame) => frame.evaluate<CanvasReadback[]>(CANVAS_READS_SCRIPT).catch(() => [] as CanvasReadback[])),
  );
  return lists.flat();
}

const FIELD_SELECTOR = [
  'input:not([type])',
  'input[type="text"]',
  'input[type="email"]',
  'input[type="tel"]',
  'textarea',
]
  .map((selector) => `${selector}:not([readonly]):not([disabled])`)
  .join(', ');
const MAX_FIELDS = 5;
const KEY_DELAY_MS = 15;

/** A value nobody else would send: the token is what the request search looks for. */
export function newSentinel(): { text: string; email: string } {
  const token = `tgp${randomBytes(5).toString('hex')}`;
  return { text: token, email: `${token}@example.org` };
}

/**
 * Types the sentinel, key by key, into up to 5 visible text, e-mail, phone fields and textareas (never a password or
 * search field), then moves the focus away. Nothing is submitted: Enter is never pressed.
 */
export async function typeSentinel(page: Page, until: number): Promise<TypedSentinel> {
  const sentinel = newSentinel();
  let fields = 0;
  const candidates = await page
    .locator(FIELD_SELECTOR)
    .all()
    .catch(() => []);
  for (const field of candidates) {
    if (fields >= MAX_FIELDS || Date.now() > until - 1_000) break;
    try {
      if (!(await field.isVisible())) continue;
      const isEmail = (await field.getAttribute('type'))?.toLowerCase() === 'email';
      if (/search/i.test(`${await field.getAttribute('name')} ${await field.getAttribute('role')}`)) continue;
      await field.focus({ timeout: 500 });
      await field.pressSequentially(isEmail ? sentinel.email : sentinel.text, { delay: KEY_DELAY_MS, timeout: 2_000 });
      await field.blur({ timeout: 500 });
      fields += 1;
    } catch {
      /* a field that went away or cannot take text */
    }
  }
  return { values: [sentinel.text, sentinel.email], fields };
}
