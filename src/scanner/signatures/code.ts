import { LONG_TAIL_CODE_RULES } from './code-long-tail.js';
import { TAG_MANAGER_CODE_RULES } from './tag-managers.js';
import { META_EVENT_ID_NOTE, trackerForGoogleId, type TrackerKey } from './trackers.js';
import type { CodeRule } from './code-rule.js';

/**
 * What inline code reveals: tracker ids and markers, consent commands and collection URLs. Every pattern starts at an
 * identifier or host-name boundary, so `analytics.load(` never matches `someotheranalytics.load(`; each rule carries
 * an example it must match and a counterexample it must not (checked in test/scanner/signatures.test.ts).
 */

export interface IdMatch {
  key: TrackerKey;
  id: string | null;
  detail: string;
}

const GOOGLE_ID_IN_QUOTES =
  /["'`]((?:GTM-[A-Z0-9]{4,10})|(?:G-[A-Z0-9]{4,14})|(?:UA-\d{4,10}-\d{1,4})|(?:AW-\d{6,12})|(?:DC-\d{5,10}))["'`]/g;

const q = `["']`;
/** Start of an identifier: not preceded by an identifier character (`.` is allowed: `window.fbq(`). */
const ID = '(?<![\\w$])';
/** Start of a host name: not preceded by a host-name character other than the dot of a subdomain. */
const HOST = '(?<![\\w-])';
export const CODE_RULES: CodeRule[] = [
  {
    key: 'meta_pixel',
    pattern: new RegExp(`${ID}fbq\\(\\s*${q}init${q}\\s*,\\s*${q}?(\\d{8,20})${q}?`, 'g'),
    hasId: true,
    detail: (m) => `fbq('init', '${m[1]}')`,
    example: "fbq('init', '123456789012345');",
    counterexample: "myfbq('init', '123456789012345');",
  },
  {
    key: 'meta_pixel',
    pattern: new RegExp(`${HOST}connect\\.facebook\\.net\\/[\\w-]+\\/fbevents\\.js`, 'g'),
    hasId: false,
    detail: () => 'Meta Pixel loader snippet (fbevents.js)',
    example: "s.src='https://connect.facebook.net/en_US/fbevents.js'",
    counterexample: "s.src='https://notconnect.facebook.net/en_US/fbevents.js'",
  },
  {
    key: 'meta_pixel',
    pattern: new RegExp(`${ID}fbq\\(\\s*${q}track(?:Custom)?${q}[^;]{0,600}?[{,]\\s*${q}?eventID${q}?\\s*:`, 'g'),
    hasId: false,
    detail: () => `fbq('track', …) with an ${META_EVENT_ID_NOTE}`,
    example: "fbq('track', 'Purchase', { value: 10, currency: 'EUR' }, { eventID: 'order-1001' });",
    counterexample: "myfbq('track', 'Purchase', {}, { eventID: 'order-1001' });",
  },
  {
    key: 'tiktok_pixel',
    pattern: new RegExp(`${ID}ttq\\.load\\(\\s*${q}([A-Z0-9]{10,30})${q}`, 'g'),
    hasId: true,
    detail: (m) => `ttq.load('${m[1]}')`,
    example: "ttq.load('CTESTPIXEL0123456789');",
    counterexample: "myttq.load('CTESTPIXEL0123456789');",
  },
  {
    key: 'linkedin_insight',
    pattern: new RegExp(`${ID}_linkedin_partner_id\\s*=\\s*["']?(\\d{3,12})`, 'g'),
    hasId: true,
    detail: (m) => `_linkedin_partner_id = "${m[1]}"`,
    example: '_linkedin_partner_id = "1234567";',
    counterexample: 'my_linkedin_partner_id = "1234567";',
  },
  {
    key: 'bing_uet',
    when: new RegExp(`${ID}uetq\\b|${HOST}bat\\.bing\\.com`),
    pattern: /\bti\s*:\s*["']?(\d{5,12})/g,
    hasId: true,
    detail: (m) => `UET tag ti: ${m[1]}`,
    example: 'window.uetq = window.uetq || []; var o = { ti: "87654321" };',
    counterexample: 'window.myuetq = []; var o = { multi: "87654321" };',
  },
  {
    key: 'bing_uet',
    pattern: new RegExp(`${HOST}bat\\.bing\\.com\\/bat\\.js`, 'g'),
    hasId: false,
    detail: () => 'UET loader snippet (bat.bing.com/bat.js)',
    example: "'//bat.bing.com/bat.js'",
    counterexample: "'//acmebat.bing.com/bat.js'",
  },
  {
    key: 'pinterest_tag',
    pattern: new RegExp(`${ID}pintrk\\(\\s*${q}load${q}\\s*,\\s*${q}(\\d{6,20})${q}`, 'g'),
    hasId: true,
    detail: (m) => `pintrk('load', '${m[1]}')`,
    example: "pintrk('load', '2612345678901');",
    counterexample: "mypintrk('load', '2612345678901');",
  },
  {
    key: 'snap_pixel',
    pattern: new RegExp(`${ID}snaptr\\(\\s*${q}init${q}\\s*,\\s*${q}([0-9a-f-]{20,40})${q}`, 'gi'),
    hasId: true,
    detail: (m) => `snaptr('init', '${m[1]}')`,
    example: "snaptr('init', 'a1b2c3d4-e5f6-4a5b-8c9d-0e1f2a3b4c5d');",
    counterexample: "notsnaptr('init', 'a1b2c3d4-e5f6-4a5b-8c9d-0e1f2a3b4c5d');",
  },
  {
    key: 'x_pixel',
    pattern: new RegExp(`${ID}twq\\(\\s*${q}(?:config|init)${q}\\s*,\\s*${q}([a-z0-9]{4,12})${q}`, 'gi'),
    hasId: true,
    detail: (m) => `twq('config', '${m[1]}')`,
    example: "twq('config', 'o1abc');",
    counterexample: "mytwq('config', 'o1abc');",
  },
  {
    key: 'hotjar',
    pattern: /\bhjid\s*:\s*["']?(\d{3,12})/g,
    hasId: true,
    detail: (m) => `Hotjar hjid: ${m[1]}`,
    example: 'h._hjSettings = { hjid: 1122334, hjsv: 6 };',
    counterexample: 'var settings = { nohjid: 1122334 };',
  },
  {
    key: 'clarity',
    pattern: /["']clarity["']\s*,\s*["']script["']\s*,\s*["']([a-z0-9]{6,14})["']/gi,
    hasId: true,
    detail: (m) => `Clarity snippet, project ${m[1]}`,
    example: '})(window, document, "clarity", "script", "k9x8y7z6w5");',
    counterexample: '})(window, document, "myclarity", "script", "k9x8y7z6w5");',
  },
  {
    key: 'clarity',
    pattern: new RegExp(`${HOST}clarity\\.ms\\/tag\\/([a-z0-9]{6,14})`, 'gi'),
    hasId: true,
    detail: (m) => `Clarity tag URL, project ${m[1]}`,
    example: "t.src = 'https://www.clarity.ms/tag/abcd1234ef';",
    counterexample: "t.src = 'https://notclarity.ms/tag/abcd1234ef';",
  },
  {
    key: 'matomo',
    pattern: new RegExp(`${q}setSiteId${q}\\s*,\\s*${q}?(\\d{1,6})${q}?`, 'g'),
    hasId: true,
    detail: (m) => `_paq.push(['setSiteId', '${m[1]}'])`,
    example: "_paq.push(['setSiteId', '7']);",
    counterexample: "_paq.push(['mysetSiteId', '7']);",
  },
  {
    key: 'matomo',
    pattern: new RegExp(`${q}setTrackerUrl${q}\\s*,\\s*([^\\]\\n]{1,200})`, 'g'),
    hasId: false,
    detail: (m) => `_paq.push(['setTrackerUrl', ${m[1].trim()}])`,
    example: "_paq.push(['setTrackerUrl', u + 'matomo.php']);",
    counterexample: "_paq.push(['noSetTrackerUrl', u + 'matomo.php']);",
  },
  {
    key: 'segment',
    pattern: new RegExp(`${ID}analytics\\.load\\(\\s*${q}([A-Za-z0-9]{10,40})${q}`, 'g'),
    hasId: true,
    detail: (m) => `analytics.load('${m[1]}')`,
    example: 'analytics.load("SEGMENTWRITEKEY0123456789");',
    counterexample: 'someotheranalytics.load("SEGMENTWRITEKEY0123456789");',
  },
  {
    key: 'rudderstack',
    pattern: new RegExp(`${ID}rudderanalytics\\.load\\(\\s*${q}([A-Za-z0-9]{20,40})${q}`, 'g'),
    hasId: true,
    detail: (m) => `rudderanalytics.load('${m[1]}')`,
    example: "rudderanalytics.load('2AbCdEfGhIjKlMnOpQrStUvWx', 'https://acme.dataplane.rudderstack.com');",
    counterexample: "myrudderanalytics.load('2AbCdEfGhIjKlMnOpQrStUvWx');",
  },
  {
    key: 'piwik_pro',
    when: new RegExp(`${HOST}[a-z0-9-]+\\.(containers\\.)?piwik\\.pro\\b`),
    pattern: new RegExp(`${q}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})${q}\\s*\\)`, 'g'),
    hasId: true,
    detail: (m) => `Piwik PRO container snippet, site ${m[1]}`,
    example:
      "(function(w,d,l,id){ s.src='https://acme.containers.piwik.pro/'+id+'.js'; })(window, document, 'dataLayer', '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d');",
    counterexample:
      "(function(w,d,l,id){ s.src='https://acme.containers.notpiwik.pro/'+id+'.js'; })(window, document, 'dataLayer', '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d');",
  },
  {
    key: 'posthog',
    pattern: new RegExp(`${ID}posthog\\.init\\(\\s*${q}(phc_[A-Za-z0-9]{20,60})${q}`, 'g'),
    hasId: true,
    detail: (m) => `posthog.init('${m[1]}')`,
    example: "posthog.init('phc_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', { api_host: 'https://e.example.com' });",
    counterexample: "myposthog.init('phc_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789');",
  },
  {
    key: 'cloudflare_zaraz',
    pattern: new RegExp(`${ID}zaraz\\.(track|set|ecommerce)\\(`, 'g'),
    hasId: false,
    detail: (m) => `zaraz.${m[1]}() call`,
    example: "zaraz.track('purchase', { value: 10 });",
    counterexample: "notzaraz.track('purchase');",
  },
];

/** Ids and tracker markers in a piece of JavaScript (inline script or noscript markup). */
export function matchCode(code: string): IdMatch[] {
  const found: IdMatch[] = [];
  for (const match of code.matchAll(GOOGLE_ID_IN_QUOTES)) {
    const key = trackerForGoogleId(match[1]);
    if (key) found.push({ key, id: match[1], detail: googleCodeDetail(code, match.index ?? 0, match[1]) });
  }
  for (const rule of ALL_CODE_RULES) {
    if (rule.when && !rule.when.test(code)) continue;
    for (const match of code.matchAll(rule.pattern)) {
      const id = rule.hasId ? (match.slice(1).find((group) => group !== undefined) ?? null) : null;
      found.push({ key: rule.key, id, detail: rule.detail(match) });
    }
  }
  return found;
}

function googleCodeDetail(code: string, index: number, id: string): string {
  const before = code.slice(Math.max(0, index - 40), index);
  const call = /(?<![\w$])gtag\(\s*["']config["']\s*,\s*$/.exec(before);
  if (call) return `gtag('config', '${id}')`;
  if (/GTM-/.test(id)) return `GTM container snippet with ${id}`;
  return `Google tag id ${id} in code`;
}

/** gtag('consent', 'default'|'update', {...}) commands in code, with their key/value pairs. */
export function consentCommandsInCode(
  code: string,
): Array<{ command: 'default' | 'update'; values: Record<string, string> }> {
  const out: Array<{ command: 'default' | 'update'; values: Record<string, string> }> = [];
  const pattern = /(?<![\w$])gtag\(\s*["']consent["']\s*,\s*["'](default|update)["']\s*,\s*\{([^}]{0,2000})\}/g;
  for (const match of code.matchAll(pattern)) {
    const values: Record<string, string> = {};
    for (const pair of match[2].matchAll(/["']?([a-z_]+)["']?\s*:\s*(?:["']([^"']*)["']|(\[[^\]]*\])|(\d+))/g)) {
      values[pair[1]] = pair[2] ?? pair[3] ?? pair[4];
    }
    out.push({ command: match[1] as 'default' | 'update', values });
  }
  return out;
}

/** transport_url / server_container_url values in code. */
export function serverUrlsInCode(code: string): Array<{ param: string; url: string }> {
  const out: Array<{ param: string; url: string }> = [];
  for (const match of code.matchAll(
    /(?<![\w$])["']?(transport_url|server_container_url)["']?\s*:\s*["'](https?:\/\/[^"'\s]+)["']/g,
  )) {
    out.push({ param: match[1], url: match[2] });
  }
  return out;
}

/**
 * Where a tool's snippet sends its hits, when the snippet says so: PostHog's `api_host`, Segment's and RudderStack's
 * data plane or API host. A URL on the site's own domain, or a bare path, is a first-party proxy of that tool.
 */
export function collectionUrlsInCode(code: string): Array<{ key: TrackerKey; param: string; url: string }> {
  const out: Array<{ key: TrackerKey; param: string; url: string }> = [];
  const rules: Array<{ key: TrackerKey; when: RegExp; param: RegExp }> = [
    {
      key: 'posthog',
      when: /(?<![\w$])posthog\.init\(/,
      param: /(?<![\w$])["']?(api_host)["']?\s*:\s*["'](https?:\/\/[^"'\s]+|\/[^"'\s]*)["']/g,
    },
    {
      key: 'segment',
      when: /(?<![\w$])analytics\.load\(/,
      param: /(?<![\w$])["']?(apiHost|cdnURL)["']?\s*:\s*["']((?:https?:\/\/)?[^"'\s]+)["']/g,
    },
    {
      key: 'rudderstack',
      when: /(?<![\w$])rudderanalytics\.load\(/,
      param: /(?<![\w$])rudderanalytics\.load\(\s*["'][^"']+["']\s*,\s*["'](https?:\/\/[^"'\s]+)["']/g,
    },
  ];
  for (const rule of rules) {
    if (!rule.when.test(code)) continue;
    for (const match of code.matchAll(rule.param)) {
      const [param, raw] =
        match.length > 2 && match[2] !== undefined ? [match[1], match[2]] : ['dataPlaneUrl', match[1]];
      // A path (PostHog's documented `/ingest` rewrite) is on the page's own origin.
      out.push({ key: rule.key, param, url: /^(https?:\/\/|\/)/.test(raw) ? raw : `https://${raw}` });
    }
  }
  return out;
}

/** Every code rule, for tests and documentation. */
export const ALL_CODE_RULES: CodeRule[] = [...CODE_RULES, ...LONG_TAIL_CODE_RULES, ...TAG_MANAGER_CODE_RULES];
