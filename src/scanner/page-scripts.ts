/**
 * Code evaluated inside the scanned page. Kept as plain JavaScript source so no transpiler helper
 * (e.g. esbuild's __name) ends up in code that runs in the browser.
 */

/** `(source)(arg)` as an expression string for page.evaluate. */
export function inPage(source: string, arg?: unknown): string {
  return `(${source})(${arg === undefined ? '' : JSON.stringify(arg)})`;
}

/**
 * Records localStorage and sessionStorage writes through setItem (the area, the key, the start of the value) and the
 * script that made them, the first URL on the call stack; one record per area, key and script (the latest value), at
 * most 200. Assignments to a property of the storage object (`localStorage.key = …`) bypass setItem and are not seen.
 */
const STORAGE_INIT = `(() => {
  const writes = new Map();
  try { Object.defineProperty(window, '__tagportStorageWrites', { value: writes, enumerable: false }); } catch (e) { return; }
  const original = typeof Storage !== 'undefined' && Storage.prototype.setItem;
  if (typeof original !== 'function') return;
  Storage.prototype.setItem = function (key, value) {
    try {
      let area = 'session';
      try { if (this === window.localStorage) area = 'local'; } catch (e) {}
      const urls = (new Error().stack || '').match(/https?:\\/\\/[^\\s)]+/g);
      const script = urls ? urls[0].replace(/:\\d+:\\d+$/, '') : null;
      const id = area + ' ' + String(key) + ' ' + script;
      if (writes.has(id) || writes.size < 200)
        writes.set(id, { area, key: String(key).slice(0, 200), value: String(value).slice(0, 200), script });
    } catch (e) {}
    return original.apply(this, arguments);
  };
})();`;

/**
 * Added to every frame before its scripts run: records document.cookie and storage writes and the script that made them, the
 * requests Content-Security-Policy refused (with the directive), and the timers the page has pending, so the scan can
 * bring forward a tag a timer would fire (`__tagportFastForward`).
 */
export const INIT_SCRIPT = `(() => {
  const violations = [];
  const timers = new Map();
  const nativeSetTimeout = window.setTimeout;
  try {
    Object.defineProperty(window, '__tagportCspViolations', { value: violations, enumerable: false });
    Object.defineProperty(window, '__tagportTimers', { value: timers, enumerable: false });
  } catch (e) { return; }
  document.addEventListener('securitypolicyviolation', (event) => {
    if (violations.length < 500) violations.push({ url: String(event.blockedURI || ''), directive: String(event.effectiveDirective || event.violatedDirective || '') });
  });
  const wrap = (name, clearName, repeats) => {
    const original = window[name];
    const clear = window[clearName];
    if (typeof original !== 'function' || typeof clear !== 'function') return;
    window[name] = function (handler, delay, ...rest) {
      const ms = Math.max(0, Number(delay) || 0);
      let id;
      const run = typeof handler === 'function' ? function (...args) { if (!repeats) timers.delete(id); else { const t = timers.get(id); if (t) t.fired = true; } return handler.apply(this, args); } : handler;
      id = original.call(this, run, delay, ...rest);
      if (timers.size < 2000) timers.set(id, { created: performance.now(), due: performance.now() + ms, fired: false, repeats, run, args: rest, clear });
      return id;
    };
    window[clearName] = function (id) { timers.delete(id); return clear.call(this, id); };
  };
  wrap('setTimeout', 'clearTimeout', false);
  wrap('setInterval', 'clearInterval', true);
  // Runs now the pending timers created before mark that would fire within horizon ms: the earliest, and those due
  // within 50 ms of it, in due order, each as a task of its own. A timeout is moved (cleared, then run at once); an
  // interval runs one tick early and keeps its schedule. Returns how many were brought forward.
  Object.defineProperty(window, '__tagportFastForward', { enumerable: false, value: (mark, horizon) => {
    const now = performance.now();
    const due = [...timers.entries()]
      .filter(([, t]) => !t.fired && t.created <= mark && t.due > now && t.due - now <= horizon)
      .sort((a, b) => a[1].due - b[1].due);
    if (due.length === 0) return 0;
    const group = due.filter(([, t]) => t.due <= due[0][1].due + 50);
    for (const [id, t] of group) {
      if (t.repeats) t.fired = true;
      else { timers.delete(id); t.clear.call(window, id); }
      nativeSetTimeout.call(window, t.run, 0, ...t.args);
    }
    return group.length;
  } });
})();
(() => {
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
})();
${STORAGE_INIT}`;

/**
 * Added to every frame: records service-worker registrations (the worker's URL and the script that asked for it).
 * The scan's contexts block service workers, so the registration is all a page's worker ever shows of itself.
 */
export const SERVICE_WORKER_INIT_SCRIPT = `(() => {
  const registrations = [];
  try { Object.defineProperty(window, '__tagportServiceWorkers', { value: registrations, enumerable: false }); } catch (e) { return; }
  const container = window.isSecureContext && navigator.serviceWorker;
  if (!container) return;
  // An own property, so it stays in front whatever replaces the prototype's method.
  container.register = function (url, ...rest) {
    try {
      if (registrations.length < 20) {
        const urls = (new Error().stack || '').match(/https?:\\/\\/[^\\s)]+/g);
        registrations.push({ url: new URL(String(url), location.href).href, script: urls ? urls[0].replace(/:\\d+:\\d+$/, '') : null });
      }
    } catch (e) {}
    return ServiceWorkerContainer.prototype.register.call(this, url, ...rest);
  };
})();`;

export const SERVICE_WORKERS_SCRIPT = `(window.__tagportServiceWorkers || []).slice()`;

export const STORAGE_WRITES_SCRIPT = `[...(window.__tagportStorageWrites || new Map()).values()]`;

export const COOKIE_WRITES_SCRIPT = `(window.__tagportCookieWrites || []).slice()`;

export const CSP_VIOLATIONS_SCRIPT = `(window.__tagportCspViolations || []).slice()`;

/** Brings forward the page's next pending timers (see INIT_SCRIPT); how many ran, 0 when none is left. */
export const FAST_FORWARD_TIMERS_SCRIPT = `function ({ mark, horizon }) {
  return typeof window.__tagportFastForward === 'function' ? window.__tagportFastForward(mark, horizon) : 0;
}`;

export const NOW_SCRIPT = `performance.now()`;

/** Which of the given globals exist, and the tag ids window.google_tag_manager knows. */
export const GLOBALS_SCRIPT = `function (names) {
  const gtm = window.google_tag_manager;
  const googleTagIds = gtm && typeof gtm === 'object' ? Object.keys(gtm).filter((key) => /^(GTM|G|AW|DC|UA)-[A-Z0-9-]+$/.test(key)).slice(0, 50) : [];
  const present = names.filter((name) => {
    try {
      const value = window[name];
      if (value === undefined || value === null) return false;
      if (name === 'analytics') return typeof value.load === 'function' || Array.isArray(value);
      if (name === 'hj' || name === 'clarity' || name === 'ga') return typeof value === 'function';
      return true;
    } catch (e) {
      return false;
    }
  });
  return { present, googleTagIds };
}`;

/** window.dataLayer as JSON-safe values; gtag() Arguments objects become arrays. */
export const DATALAYER_SCRIPT = `function () {
  const seen = new WeakSet();
  function serialise(value, depth) {
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
      return Array.from(value).slice(0, 50).map((item) => serialise(item, depth + 1));
    }
    const out = {};
    for (const key of Object.keys(value).slice(0, 60)) {
      try { out[key] = serialise(value[key], depth + 1); } catch (e) { out[key] = '[unreadable]'; }
    }
    return out;
  }
  const layer = window.dataLayer;
  return Array.isArray(layer) ? layer.slice(0, 300).map((entry) => serialise(entry, 0)) : [];
}`;

/** Is a consent banner visible? Known CMP containers first, then any fixed element with consent words and a button. */
export const BANNER_SCRIPT = `function (known) {
  function isVisible(element) {
    const rect = element.getBoundingClientRect();
    const style = getComputedStyle(element);
    return rect.width > 0 && rect.height > 0 && style.visibility !== 'hidden' && style.display !== 'none' && Number(style.opacity) > 0.05;
  }
  for (const { cmp, selector } of known) {
    const element = document.querySelector(selector);
    if (!element) continue;
    if (isVisible(element) || (element.shadowRoot && element.shadowRoot.childElementCount > 0)) return { visible: true, via: selector, cmp };
  }
  const words = /cookie|consent|datenschutz|einwilligung|privacidad|confidentialit|consentement|riservatezza|privacy|toestemming|prywatno|zgod|aceitar|aceptar|accetta|akzeptieren|accepter|accepteren|akceptuj/i;
  const elements = document.body ? document.body.querySelectorAll('*') : [];
  const limit = Math.min(elements.length, 4000);
  for (let i = 0; i < limit; i++) {
    const element = elements[i];
    const style = getComputedStyle(element);
    if (style.position !== 'fixed' && style.position !== 'sticky') continue;
    if (!isVisible(element)) continue;
    const text = (element.innerText || '').slice(0, 4000);
    if (words.test(text) && element.querySelector('button, [role="button"], input[type="button"], input[type="submit"], a')) {
      return { visible: true, via: 'fixed element with cookie/consent text and a button', cmp: null };
    }
  }
  return { visible: false, via: null, cmp: null };
}`;

/** The CMP id the IAB TCF API reports on ping (null without __tcfapi or without an answer within 500 ms). */
export const TCF_PING_SCRIPT = `new Promise((resolve) => {
  if (typeof window.__tcfapi !== 'function') return resolve(null);
  const timer = setTimeout(() => resolve(null), 500);
  try {
    window.__tcfapi('ping', 2, (ping) => {
      clearTimeout(timer);
      resolve(ping && typeof ping.cmpId === 'number' && ping.cmpId > 0 ? ping.cmpId : null);
    });
  } catch (e) {
    clearTimeout(timer);
    resolve(null);
  }
})`;

/** Link targets of the page's anchors (resolved by the browser), in document order, for scans of more than one page. */
export const LINKS_SCRIPT = `Array.from(document.querySelectorAll('a[href]'), (a) => a.href).slice(0, 500)`;
