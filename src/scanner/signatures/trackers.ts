import type { TrackerCategory } from '../schema.js';

export interface TrackerInfo {
  key: string;
  name: string;
  vendor: string;
  category: TrackerCategory;
}

export const TRACKERS = {
  google_tag_manager: {
    key: 'google_tag_manager',
    name: 'Google Tag Manager',
    vendor: 'Google',
    category: 'tag_manager',
  },
  google_tag: { key: 'google_tag', name: 'Google tag (gtag.js)', vendor: 'Google', category: 'tag_manager' },
  google_analytics_4: {
    key: 'google_analytics_4',
    name: 'Google Analytics 4',
    vendor: 'Google',
    category: 'analytics',
  },
  universal_analytics: {
    key: 'universal_analytics',
    name: 'Google Universal Analytics',
    vendor: 'Google',
    category: 'analytics',
  },
  google_ads: { key: 'google_ads', name: 'Google Ads', vendor: 'Google', category: 'advertising' },
  floodlight: {
    key: 'floodlight',
    name: 'Google Campaign Manager 360 (Floodlight)',
    vendor: 'Google',
    category: 'advertising',
  },
  meta_pixel: { key: 'meta_pixel', name: 'Meta Pixel', vendor: 'Meta', category: 'advertising' },
  tiktok_pixel: { key: 'tiktok_pixel', name: 'TikTok Pixel', vendor: 'TikTok', category: 'advertising' },
  linkedin_insight: {
    key: 'linkedin_insight',
    name: 'LinkedIn Insight Tag',
    vendor: 'LinkedIn',
    category: 'advertising',
  },
  bing_uet: { key: 'bing_uet', name: 'Microsoft Advertising UET', vendor: 'Microsoft', category: 'advertising' },
  pinterest_tag: { key: 'pinterest_tag', name: 'Pinterest Tag', vendor: 'Pinterest', category: 'advertising' },
  snap_pixel: { key: 'snap_pixel', name: 'Snap Pixel', vendor: 'Snap', category: 'advertising' },
  x_pixel: { key: 'x_pixel', name: 'X (Twitter) Pixel', vendor: 'X Corp', category: 'advertising' },
  hotjar: { key: 'hotjar', name: 'Hotjar', vendor: 'Hotjar', category: 'session_replay' },
  clarity: { key: 'clarity', name: 'Microsoft Clarity', vendor: 'Microsoft', category: 'session_replay' },
  matomo: { key: 'matomo', name: 'Matomo', vendor: 'Matomo', category: 'analytics' },
  segment: { key: 'segment', name: 'Segment', vendor: 'Twilio', category: 'customer_data_platform' },
} as const satisfies Record<string, TrackerInfo>;

export type TrackerKey = keyof typeof TRACKERS;

/** Google ids by prefix. */
export function trackerForGoogleId(id: string): TrackerKey | null {
  if (/^GTM-[A-Z0-9]{4,10}$/.test(id)) return 'google_tag_manager';
  if (/^G-[A-Z0-9]{4,14}$/.test(id)) return 'google_analytics_4';
  if (/^UA-\d{4,10}-\d{1,4}$/.test(id)) return 'universal_analytics';
  if (/^AW-\d{6,12}$/.test(id)) return 'google_ads';
  if (/^DC-\d{5,10}$/.test(id)) return 'floodlight';
  return null;
}

export interface IdMatch {
  key: TrackerKey;
  id: string | null;
  detail: string;
}

const GOOGLE_ID_IN_QUOTES =
  /["'`]((?:GTM-[A-Z0-9]{4,10})|(?:G-[A-Z0-9]{4,14})|(?:UA-\d{4,10}-\d{1,4})|(?:AW-\d{6,12})|(?:DC-\d{5,10}))["'`]/g;

interface CodeRule {
  key: TrackerKey;
  pattern: RegExp;
  /** Builds the evidence text from the match; the first capture group is the id when `hasId`. */
  detail: (match: RegExpExecArray) => string;
  hasId: boolean;
  /** Only applied when the code also matches this. */
  when?: RegExp;
}

const q = `["']`;
const CODE_RULES: CodeRule[] = [
  {
    key: 'meta_pixel',
    pattern: new RegExp(`fbq\\(\\s*${q}init${q}\\s*,\\s*${q}?(\\d{8,20})${q}?`, 'g'),
    hasId: true,
    detail: (m) => `fbq('init', '${m[1]}')`,
  },
  {
    key: 'meta_pixel',
    pattern: /connect\.facebook\.net\/[\w-]+\/fbevents\.js/g,
    hasId: false,
    detail: () => 'Meta Pixel loader snippet (fbevents.js)',
  },
  {
    key: 'tiktok_pixel',
    pattern: new RegExp(`ttq\\.load\\(\\s*${q}([A-Z0-9]{10,30})${q}`, 'g'),
    hasId: true,
    detail: (m) => `ttq.load('${m[1]}')`,
  },
  {
    key: 'linkedin_insight',
    pattern: /_linkedin_partner_id\s*=\s*["']?(\d{3,12})/g,
    hasId: true,
    detail: (m) => `_linkedin_partner_id = "${m[1]}"`,
  },
  {
    key: 'bing_uet',
    when: /uetq|bat\.bing\.com/,
    pattern: /\bti\s*:\s*["']?(\d{5,12})/g,
    hasId: true,
    detail: (m) => `UET tag ti: ${m[1]}`,
  },
  {
    key: 'bing_uet',
    pattern: /bat\.bing\.com\/bat\.js/g,
    hasId: false,
    detail: () => 'UET loader snippet (bat.bing.com/bat.js)',
  },
  {
    key: 'pinterest_tag',
    pattern: new RegExp(`pintrk\\(\\s*${q}load${q}\\s*,\\s*${q}(\\d{6,20})${q}`, 'g'),
    hasId: true,
    detail: (m) => `pintrk('load', '${m[1]}')`,
  },
  {
    key: 'snap_pixel',
    pattern: new RegExp(`snaptr\\(\\s*${q}init${q}\\s*,\\s*${q}([0-9a-f-]{20,40})${q}`, 'gi'),
    hasId: true,
    detail: (m) => `snaptr('init', '${m[1]}')`,
  },
  {
    key: 'x_pixel',
    pattern: new RegExp(`twq\\(\\s*${q}(?:config|init)${q}\\s*,\\s*${q}([a-z0-9]{4,12})${q}`, 'gi'),
    hasId: true,
    detail: (m) => `twq('config', '${m[1]}')`,
  },
  { key: 'hotjar', pattern: /\bhjid\s*:\s*["']?(\d{3,12})/g, hasId: true, detail: (m) => `Hotjar hjid: ${m[1]}` },
  {
    key: 'clarity',
    pattern: /["']clarity["']\s*,\s*["']script["']\s*,\s*["']([a-z0-9]{6,14})["']/gi,
    hasId: true,
    detail: (m) => `Clarity snippet, project ${m[1]}`,
  },
  {
    key: 'clarity',
    pattern: /clarity\.ms\/tag\/([a-z0-9]{6,14})/gi,
    hasId: true,
    detail: (m) => `Clarity tag URL, project ${m[1]}`,
  },
  {
    key: 'matomo',
    pattern: new RegExp(`${q}setSiteId${q}\\s*,\\s*${q}?(\\d{1,6})${q}?`, 'g'),
    hasId: true,
    detail: (m) => `_paq.push(['setSiteId', '${m[1]}'])`,
  },
  {
    key: 'matomo',
    pattern: new RegExp(`${q}setTrackerUrl${q}\\s*,\\s*([^\\]\\n]{1,200})`, 'g'),
    hasId: false,
    detail: (m) => `_paq.push(['setTrackerUrl', ${m[1].trim()}])`,
  },
  {
    key: 'segment',
    pattern: new RegExp(`analytics\\.load\\(\\s*${q}([A-Za-z0-9]{10,40})${q}`, 'g'),
    hasId: true,
    detail: (m) => `analytics.load('${m[1]}')`,
  },
];

/** Ids and tracker markers in a piece of JavaScript (inline script or noscript markup). */
export function matchCode(code: string): IdMatch[] {
  const found: IdMatch[] = [];
  for (const match of code.matchAll(GOOGLE_ID_IN_QUOTES)) {
    const key = trackerForGoogleId(match[1]);
    if (key) found.push({ key, id: match[1], detail: googleCodeDetail(code, match.index ?? 0, match[1]) });
  }
  for (const rule of CODE_RULES) {
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
  const call = /(gtag\(\s*["']config["']\s*,\s*)$/.exec(before);
  if (call) return `gtag('config', '${id}')`;
  if (/GTM-/.test(id)) return `GTM container snippet with ${id}`;
  return `Google tag id ${id} in code`;
}

/** gtag('consent', 'default'|'update', {...}) commands in code, with their key/value pairs. */
export function consentCommandsInCode(
  code: string,
): Array<{ command: 'default' | 'update'; values: Record<string, string> }> {
  const out: Array<{ command: 'default' | 'update'; values: Record<string, string> }> = [];
  const pattern = /gtag\(\s*["']consent["']\s*,\s*["'](default|update)["']\s*,\s*\{([^}]{0,2000})\}/g;
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
    /["']?(transport_url|server_container_url)["']?\s*:\s*["'](https?:\/\/[^"'\s]+)["']/g,
  )) {
    out.push({ param: match[1], url: match[2] });
  }
  return out;
}
