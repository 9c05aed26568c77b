import type { TrackerCategory } from './schema.ts';

/**
 * Our own signature rules: which URLs, code patterns, globals and cookies belong to which tracker,
 * and how ids are read from them. third-party-web covers vendors not listed here (see detect.ts).
 */

export interface TrackerInfo {
  key: string;
  name: string;
  vendor: string;
  category: TrackerCategory;
}

export const TRACKERS = {
  google_tag_manager: { key: 'google_tag_manager', name: 'Google Tag Manager', vendor: 'Google', category: 'tag_manager' },
  google_tag: { key: 'google_tag', name: 'Google tag (gtag.js)', vendor: 'Google', category: 'tag_manager' },
  google_analytics_4: { key: 'google_analytics_4', name: 'Google Analytics 4', vendor: 'Google', category: 'analytics' },
  universal_analytics: { key: 'universal_analytics', name: 'Google Universal Analytics', vendor: 'Google', category: 'analytics' },
  google_ads: { key: 'google_ads', name: 'Google Ads', vendor: 'Google', category: 'advertising' },
  floodlight: { key: 'floodlight', name: 'Google Campaign Manager 360 (Floodlight)', vendor: 'Google', category: 'advertising' },
  meta_pixel: { key: 'meta_pixel', name: 'Meta Pixel', vendor: 'Meta', category: 'advertising' },
  tiktok_pixel: { key: 'tiktok_pixel', name: 'TikTok Pixel', vendor: 'TikTok', category: 'advertising' },
  linkedin_insight: { key: 'linkedin_insight', name: 'LinkedIn Insight Tag', vendor: 'LinkedIn', category: 'advertising' },
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

const GOOGLE_ID_IN_QUOTES = /["'`]((?:GTM-[A-Z0-9]{4,10})|(?:G-[A-Z0-9]{4,14})|(?:UA-\d{4,10}-\d{1,4})|(?:AW-\d{6,12})|(?:DC-\d{5,10}))["'`]/g;

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
  { key: 'meta_pixel', pattern: new RegExp(`fbq\\(\\s*${q}init${q}\\s*,\\s*${q}?(\\d{8,20})${q}?`, 'g'), hasId: true, detail: (m) => `fbq('init', '${m[1]}')` },
  { key: 'meta_pixel', pattern: /connect\.facebook\.net\/[\w-]+\/fbevents\.js/g, hasId: false, detail: () => 'Meta Pixel loader snippet (fbevents.js)' },
  { key: 'tiktok_pixel', pattern: new RegExp(`ttq\\.load\\(\\s*${q}([A-Z0-9]{10,30})${q}`, 'g'), hasId: true, detail: (m) => `ttq.load('${m[1]}')` },
  { key: 'linkedin_insight', pattern: /_linkedin_partner_id\s*=\s*["']?(\d{3,12})/g, hasId: true, detail: (m) => `_linkedin_partner_id = "${m[1]}"` },
  { key: 'bing_uet', when: /uetq|bat\.bing\.com/, pattern: /\bti\s*:\s*["']?(\d{5,12})/g, hasId: true, detail: (m) => `UET tag ti: ${m[1]}` },
  { key: 'bing_uet', pattern: /bat\.bing\.com\/bat\.js/g, hasId: false, detail: () => 'UET loader snippet (bat.bing.com/bat.js)' },
  { key: 'pinterest_tag', pattern: new RegExp(`pintrk\\(\\s*${q}load${q}\\s*,\\s*${q}(\\d{6,20})${q}`, 'g'), hasId: true, detail: (m) => `pintrk('load', '${m[1]}')` },
  { key: 'snap_pixel', pattern: new RegExp(`snaptr\\(\\s*${q}init${q}\\s*,\\s*${q}([0-9a-f-]{20,40})${q}`, 'gi'), hasId: true, detail: (m) => `snaptr('init', '${m[1]}')` },
  { key: 'x_pixel', pattern: new RegExp(`twq\\(\\s*${q}(?:config|init)${q}\\s*,\\s*${q}([a-z0-9]{4,12})${q}`, 'gi'), hasId: true, detail: (m) => `twq('config', '${m[1]}')` },
  { key: 'hotjar', pattern: /\bhjid\s*:\s*["']?(\d{3,12})/g, hasId: true, detail: (m) => `Hotjar hjid: ${m[1]}` },
  { key: 'clarity', pattern: /["']clarity["']\s*,\s*["']script["']\s*,\s*["']([a-z0-9]{6,14})["']/gi, hasId: true, detail: (m) => `Clarity snippet, project ${m[1]}` },
  { key: 'clarity', pattern: /clarity\.ms\/tag\/([a-z0-9]{6,14})/gi, hasId: true, detail: (m) => `Clarity tag URL, project ${m[1]}` },
  { key: 'matomo', pattern: new RegExp(`${q}setSiteId${q}\\s*,\\s*${q}?(\\d{1,6})${q}?`, 'g'), hasId: true, detail: (m) => `_paq.push(['setSiteId', '${m[1]}'])` },
  { key: 'matomo', pattern: new RegExp(`${q}setTrackerUrl${q}\\s*,\\s*([^\\]\\n]{1,200})`, 'g'), hasId: false, detail: (m) => `_paq.push(['setTrackerUrl', ${m[1].trim()}])` },
  { key: 'segment', pattern: new RegExp(`analytics\\.load\\(\\s*${q}([A-Za-z0-9]{10,40})${q}`, 'g'), hasId: true, detail: (m) => `analytics.load('${m[1]}')` },
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
export function consentCommandsInCode(code: string): Array<{ command: 'default' | 'update'; values: Record<string, string> }> {
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
  for (const match of code.matchAll(/["']?(transport_url|server_container_url)["']?\s*:\s*["'](https?:\/\/[^"'\s]+)["']/g)) {
    out.push({ param: match[1], url: match[2] });
  }
  return out;
}

export type HitRole = 'loader' | 'hit';

export interface UrlMatch {
  key: TrackerKey;
  ids: string[];
  role: HitRole;
  detail: string;
  /** The request carries Google consent parameters. */
  gcs?: string;
  gcd?: string;
}

const GOOGLE_COLLECTION_HOSTS = /(^|\.)(google-analytics\.com|analytics\.google\.com|googletagmanager\.com|google\.com|doubleclick\.net|googleadservices\.com|googlesyndication\.com|google\.[a-z.]{2,6})$/;

export function isGoogleHost(host: string): boolean {
  return GOOGLE_COLLECTION_HOSTS.test(host);
}

function hostIs(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

function param(url: URL, name: string): string | null {
  const value = url.searchParams.get(name);
  return value && value.length < 200 ? value : null;
}

/**
 * Classifies a request URL with our own rules. Path-based rules (gtm.js, gtag/js, /g/collect, matomo.php, /tr?id=)
 * match on any host, which is how first-party and server-side setups are recognised.
 */
export function matchUrl(raw: string): UrlMatch[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [];
  }
  const host = url.hostname.toLowerCase();
  const path = url.pathname;
  const out: UrlMatch[] = [];
  const add = (key: TrackerKey, role: HitRole, ids: Array<string | null>, detail: string, extra: Partial<UrlMatch> = {}) =>
    out.push({ key, role, ids: ids.filter((id): id is string => !!id), detail, ...extra });

  // Google tag manager / gtag loaders, on any host.
  if (/\/gtm\.js$/.test(path) || (/\/gtm\.js/.test(path) && param(url, 'id')?.startsWith('GTM-'))) {
    const id = param(url, 'id');
    add('google_tag_manager', 'loader', [id && trackerForGoogleId(id) === 'google_tag_manager' ? id : null], `gtm.js loaded${id ? ` for ${id}` : ''}`);
  }
  if (/\/ns\.html$/.test(path) && param(url, 'id')?.startsWith('GTM-')) {
    add('google_tag_manager', 'loader', [param(url, 'id')], `GTM noscript iframe for ${param(url, 'id')}`);
  }
  if (/\/gtag\/js$/.test(path)) {
    // gtag.js is the loader of the product its id names; only an unknown or missing id leaves a bare "Google tag".
    const id = param(url, 'id');
    const key = id ? trackerForGoogleId(id) : null;
    if (key) add(key, 'loader', [id], `gtag.js loaded for ${id}`);
    else add('google_tag', 'loader', id ? [id] : [], `gtag.js loaded${id ? ` for ${id}` : ''}`);
  }
  const gcs = param(url, 'gcs') ?? undefined;
  const gcd = param(url, 'gcd') ?? undefined;
  // GA4 hits, on any host (a non-Google host means a server-side container).
  if (/\/g\/collect$/.test(path) && (param(url, 'v') === '2' || param(url, 'tid')?.startsWith('G-'))) {
    const tid = param(url, 'tid');
    add('google_analytics_4', 'hit', [tid], `GA4 hit${param(url, 'en') ? ` (event ${param(url, 'en')})` : ''}${gcs ? ` with gcs=${gcs}` : ''}`, { gcs, gcd });
  }
  // Universal Analytics hits.
  if ((/^\/(r\/|j\/)?collect$/.test(path) && hostIs(host, 'google-analytics.com')) || (/\/(r\/|j\/)?collect$/.test(path) && param(url, 'tid')?.startsWith('UA-'))) {
    const tid = param(url, 'tid');
    if (tid?.startsWith('UA-') || param(url, 'v') === '1') add('universal_analytics', 'hit', [tid], `Universal Analytics hit${tid ? ` for ${tid}` : ''}`);
  }
  if (hostIs(host, 'google-analytics.com') && /\/analytics\.js$|\/ga\.js$/.test(path)) add('universal_analytics', 'loader', [], 'analytics.js loaded');
  // Google Ads.
  const conversion = /\/pagead\/(?:viewthrough)?conversion\/(\d{6,12})/.exec(path);
  if (conversion && (isGoogleHost(host) || gcs)) add('google_ads', 'hit', [`AW-${conversion[1]}`], `Google Ads conversion/remarketing hit for AW-${conversion[1]}${gcs ? ` with gcs=${gcs}` : ''}`, { gcs, gcd });
  if (hostIs(host, 'google.com') && /^\/ccm\/collect/.test(path)) {
    const tid = param(url, 'tid');
    add(tid?.startsWith('AW-') ? 'google_ads' : 'google_analytics_4', 'hit', [tid], `Google conversion measurement hit${tid ? ` for ${tid}` : ''}`, { gcs, gcd });
  }
  // Floodlight.
  if (hostIs(host, 'doubleclick.net') && /^\/activity[;/]/.test(path)) {
    const src = /src=(\d+)/.exec(path + url.search);
    add('floodlight', 'hit', [src ? `DC-${src[1]}` : null], 'Floodlight activity hit');
  }
  // Meta.
  if (hostIs(host, 'facebook.net') && /\/fbevents\.js$/.test(path)) add('meta_pixel', 'loader', [], 'fbevents.js loaded');
  if (hostIs(host, 'facebook.net') && /\/signals\/config\/(\d+)/.test(path)) add('meta_pixel', 'loader', [/\/signals\/config\/(\d+)/.exec(path)![1]], 'Meta Pixel configuration loaded');
  if (/^\/tr\/?$/.test(path) && param(url, 'id') && (hostIs(host, 'facebook.com') || param(url, 'ev'))) {
    add('meta_pixel', 'hit', [param(url, 'id')], `Meta Pixel hit${param(url, 'ev') ? ` (${param(url, 'ev')})` : ''}`);
  }
  // TikTok.
  if (hostIs(host, 'tiktok.com') && /\/pixel\/events\.js$/.test(path)) add('tiktok_pixel', 'loader', [param(url, 'sdkid')], 'TikTok pixel loaded');
  if (hostIs(host, 'tiktok.com') && /\/api\/v2\/pixel/.test(path)) add('tiktok_pixel', 'hit', [], 'TikTok pixel hit');
  // LinkedIn.
  if (hostIs(host, 'licdn.com') && /insight(\.min)?\.js$/.test(path)) add('linkedin_insight', 'loader', [], 'LinkedIn Insight Tag loaded');
  if ((hostIs(host, 'ads.linkedin.com') || hostIs(host, 'linkedin.com')) && /\/collect\/?$|\/attribution_trigger/.test(path)) add('linkedin_insight', 'hit', [param(url, 'pid')], 'LinkedIn Insight hit');
  // Bing UET.
  if (hostIs(host, 'bing.com') && /\/bat\.js$/.test(path)) add('bing_uet', 'loader', [], 'UET bat.js loaded');
  if (hostIs(host, 'bing.com') && /^\/action\//.test(path)) add('bing_uet', 'hit', [param(url, 'ti')], 'UET hit');
  // Pinterest.
  if (hostIs(host, 'pinimg.com') && /\/core\.js$/.test(path)) add('pinterest_tag', 'loader', [], 'Pinterest tag loaded');
  if (hostIs(host, 'pinterest.com') && /^\/v3\/?/.test(path) && host.startsWith('ct.')) add('pinterest_tag', 'hit', [param(url, 'tid')], 'Pinterest tag hit');
  // Snap.
  if (hostIs(host, 'sc-static.net') && /scevent(\.min)?\.js$/.test(path)) add('snap_pixel', 'loader', [], 'Snap Pixel loaded');
  if (hostIs(host, 'snapchat.com') && host.startsWith('tr')) add('snap_pixel', 'hit', [], 'Snap Pixel hit');
  // X.
  if (hostIs(host, 'ads-twitter.com') && /\/(uwt|oct)\.js$/.test(path)) add('x_pixel', 'loader', [], 'X pixel loaded');
  if ((hostIs(host, 'twitter.com') || host === 't.co') && /\/i\/adsct/.test(path)) add('x_pixel', 'hit', [param(url, 'txn_id')], 'X pixel hit');
  // Hotjar.
  const hotjar = /\/c\/hotjar-(\d+)\.js$/.exec(path);
  if (hostIs(host, 'hotjar.com') && hotjar) add('hotjar', 'loader', [hotjar[1]], `Hotjar loaded for site ${hotjar[1]}`);
  else if (hostIs(host, 'hotjar.com') || hostIs(host, 'hotjar.io')) add('hotjar', 'hit', [], 'Hotjar request');
  // Clarity.
  const clarityTag = /^\/tag\/([a-z0-9]{6,14})/i.exec(path);
  if (hostIs(host, 'clarity.ms') && clarityTag) add('clarity', 'loader', [clarityTag[1]], `Clarity tag loaded for project ${clarityTag[1]}`);
  else if (hostIs(host, 'clarity.ms') && /\/collect/.test(path)) add('clarity', 'hit', [], 'Clarity hit');
  else if (hostIs(host, 'clarity.ms')) add('clarity', 'loader', [], 'Clarity script loaded');
  // Matomo (usually self-hosted).
  if (/\/(matomo|piwik)\.js$/.test(path)) add('matomo', 'loader', [], `${path.split('/').pop()} loaded`);
  if (/\/(matomo|piwik)\.php$/.test(path) && param(url, 'idsite')) add('matomo', 'hit', [param(url, 'idsite')], `Matomo hit for site ${param(url, 'idsite')}`);
  // Segment.
  const segment = /\/analytics\.js\/v1\/([A-Za-z0-9]{10,40})\/analytics(\.min)?\.js$/.exec(path);
  if (segment) add('segment', 'loader', [segment[1]], 'Segment analytics.js loaded');
  if (hostIs(host, 'segment.io') && /^\/v1\/(t|p|i|track|page|identify|batch)$/.test(path)) add('segment', 'hit', [], 'Segment API call');
  return out;
}

/** Cookie name → tracker. */
const COOKIE_RULES: Array<[RegExp, TrackerKey]> = [
  [/^_ga$|^_ga_[A-Z0-9]+$/, 'google_analytics_4'],
  [/^_gid$|^_gat(_.*)?$|^__utm[abcz]$/, 'universal_analytics'],
  [/^_gcl_(au|aw|dc|gb|gs|ag)$/, 'google_ads'],
  [/^_fbp$|^_fbc$/, 'meta_pixel'],
  [/^_ttp$|^ttcsid/, 'tiktok_pixel'],
  [/^li_fat_id$|^_li_dcdm_c$|^li_sugr$/, 'linkedin_insight'],
  [/^_uet(sid|vid)$/, 'bing_uet'],
  [/^_pin_unauth$|^_pinterest_ct/, 'pinterest_tag'],
  [/^_scid(_r)?$|^_sctr$/, 'snap_pixel'],
  [/^_twclid$|^muc_ads$/, 'x_pixel'],
  [/^_hj/, 'hotjar'],
  [/^_clck$|^_clsk$/, 'clarity'],
  [/^_pk_(id|ses|ref)/, 'matomo'],
  [/^ajs_(anonymous|user)_id$/, 'segment'],
];

export function trackerForCookie(name: string): TrackerKey | null {
  return COOKIE_RULES.find(([pattern]) => pattern.test(name))?.[1] ?? null;
}

/** JS globals observed in the browser → tracker. */
/** `weak`: the global is also defined by unrelated snippets (e.g. a consent-mode `function gtag(){}`), so it only adds evidence to a tracker found otherwise. */
export const GLOBAL_RULES: Array<{ global: string; key: TrackerKey | null; weak?: boolean }> = [
  { global: 'google_tag_manager', key: 'google_tag_manager', weak: true },
  { global: 'dataLayer', key: null },
  { global: 'gtag', key: 'google_tag', weak: true },
  { global: 'ga', key: 'universal_analytics' },
  { global: 'fbq', key: 'meta_pixel' },
  { global: '_fbq', key: 'meta_pixel' },
  { global: 'ttq', key: 'tiktok_pixel' },
  { global: 'TiktokAnalyticsObject', key: 'tiktok_pixel' },
  { global: '_linkedin_partner_id', key: 'linkedin_insight' },
  { global: '_linkedin_data_partner_ids', key: 'linkedin_insight' },
  { global: 'uetq', key: 'bing_uet' },
  { global: 'pintrk', key: 'pinterest_tag' },
  { global: 'snaptr', key: 'snap_pixel' },
  { global: 'twq', key: 'x_pixel' },
  { global: 'hj', key: 'hotjar' },
  { global: 'clarity', key: 'clarity' },
  { global: '_paq', key: 'matomo' },
  { global: 'Matomo', key: 'matomo' },
  { global: 'analytics', key: 'segment', weak: true },
];

export interface CmpRule {
  name: string;
  hosts: RegExp[];
  paths?: RegExp[];
  code: RegExp[];
  globals: string[];
  cookies: RegExp[];
  selectors: string[];
}

export const CMP_RULES: CmpRule[] = [
  {
    name: 'Cookiebot',
    hosts: [/(^|\.)cookiebot\.(com|eu)$/],
    code: [/consent\.cookiebot\.(com|eu)\/uc\.js/, /data-cbid=/i],
    globals: ['Cookiebot', 'CookieConsent'],
    cookies: [/^CookieConsent$/],
    selectors: ['#CybotCookiebotDialog'],
  },
  {
    name: 'OneTrust',
    hosts: [/(^|\.)cookielaw\.org$/, /(^|\.)onetrust\.com$/, /(^|\.)cookiepro\.com$/],
    code: [/otSDKStub\.js|otBannerSdk\.js|OptanonWrapper/],
    globals: ['OneTrust', 'OptanonWrapper', 'Optanon'],
    cookies: [/^OptanonConsent$/, /^OptanonAlertBoxClosed$/],
    selectors: ['#onetrust-banner-sdk', '#onetrust-consent-sdk'],
  },
  {
    name: 'Usercentrics',
    hosts: [/(^|\.)usercentrics\.eu$/, /(^|\.)usercentrics\.com$/],
    code: [/usercentrics/i],
    globals: ['UC_UI', 'usercentrics', '__ucCmp'],
    cookies: [/^uc_/],
    selectors: ['#usercentrics-root', '#usercentrics-cmp-ui'],
  },
  {
    name: 'Didomi',
    hosts: [/(^|\.)privacy-center\.org$/, /(^|\.)didomi\.io$/],
    code: [/didomiConfig|window\.didomi/i],
    globals: ['Didomi', 'didomiOnReady'],
    cookies: [/^didomi_token$/],
    selectors: ['#didomi-host', '#didomi-notice'],
  },
  {
    name: 'Quantcast Choice',
    hosts: [/(^|\.)quantcast\.mgr\.consensu\.org$/, /^cmp\.quantcast\.com$/, /^quantcast\.mgr\.consensu\.org$/],
    code: [/cmp\.quantcast\.com|quantcast\.mgr\.consensu\.org/],
    globals: [],
    cookies: [/^addtl_consent$/],
    selectors: ['.qc-cmp2-container', '#qc-cmp2-ui'],
  },
  {
    name: 'CookieYes',
    hosts: [/(^|\.)cookieyes\.com$/, /(^|\.)cdn-cookieyes\.com$/],
    code: [/cdn-cookieyes\.com/],
    globals: ['cookieyes', 'getCkyConsent'],
    cookies: [/^cookieyes-consent$/],
    selectors: ['.cky-consent-container', '#cookie-law-info-bar'],
  },
  {
    name: 'Complianz',
    hosts: [],
    paths: [/\/wp-content\/plugins\/complianz(-gdpr|-gdpr-premium)?\//],
    code: [/complianz|cmplz_/i],
    globals: ['cmplz_banner', 'complianz'],
    cookies: [/^cmplz_/],
    selectors: ['#cmplz-cookiebanner-container', '.cmplz-cookiebanner'],
  },
  {
    name: 'iubenda',
    hosts: [/(^|\.)iubenda\.com$/],
    code: [/_iub\.csConfiguration|cdn\.iubenda\.com/],
    globals: ['_iub'],
    cookies: [/^_iub_cs-/],
    selectors: ['#iubenda-cs-banner'],
  },
  {
    name: 'Axeptio',
    hosts: [/(^|\.)axept\.io$/],
    code: [/axeptioSettings|static\.axept\.io/],
    globals: ['axeptioSettings', '__axeptioSDK', '_axcb'],
    cookies: [/^axeptio_/],
    selectors: ['#axeptio_overlay', '.axeptio_mount'],
  },
  {
    name: 'TrustArc',
    hosts: [/(^|\.)trustarc\.com$/, /(^|\.)truste\.com$/],
    code: [/consent\.trustarc\.com|consent\.truste\.com|truste_/],
    globals: ['truste'],
    cookies: [/^notice_behavior$/, /^notice_gdpr_prefs$/, /^notice_preferences$/],
    selectors: ['#truste-consent-track', '#consent_blackbar'],
  },
];

export function cmpForUrl(raw: string): CmpRule | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  const host = url.hostname.toLowerCase();
  return CMP_RULES.find((rule) => rule.hosts.some((pattern) => pattern.test(host)) || rule.paths?.some((pattern) => pattern.test(url.pathname))) ?? null;
}

export function cmpForCode(code: string): CmpRule | null {
  return CMP_RULES.find((rule) => rule.code.some((pattern) => pattern.test(code))) ?? null;
}

export function cmpForCookie(name: string): CmpRule | null {
  return CMP_RULES.find((rule) => rule.cookies.some((pattern) => pattern.test(name))) ?? null;
}
