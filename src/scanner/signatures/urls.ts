import { matchProtocols } from './protocols.js';
import { matchTagManagerUrls } from './tag-managers.js';
import { META_EVENT_ID_NOTE, trackerForGoogleId, type TrackerKey } from './trackers.js';
import type { HitRole, UrlMatch } from './url-match.js';

const GOOGLE_COLLECTION_HOSTS =
  /(^|\.)(google-analytics\.com|analytics\.google\.com|googletagmanager\.com|google\.com|doubleclick\.net|googleadservices\.com|googlesyndication\.com|google\.[a-z.]{2,6})$/;

export function isGoogleHost(host: string): boolean {
  return GOOGLE_COLLECTION_HOSTS.test(host);
}

function hostIs(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/** What a rule reads of a request. */
export interface UrlRequest {
  url: URL;
  host: string;
  path: string;
  /** A query parameter, or null when it is missing or 200 characters or longer. */
  param: (name: string) => string | null;
  /** Google consent parameters. */
  gcs?: string;
  gcd?: string;
}

export interface UrlRule {
  key: TrackerKey;
  role: HitRole;
  /** The vendor's domains (the rule applies on them and their subdomains); none: any host. */
  hosts?: string[];
  /** Tested on the path; its match is given to `ids`, `detail` and `extra`. None: any path. */
  path?: RegExp;
  /** Only applied when this also holds. */
  when?: (request: UrlRequest, match: RegExpExecArray) => boolean;
  /** An else-if: only applied when the rule above it (and the ones it is an else of) did not match. */
  orElse?: true;
  /** The product the request's tag id names, where it is not `key`. */
  keyFor?: (request: UrlRequest) => TrackerKey;
  ids?: (request: UrlRequest, match: RegExpExecArray) => Array<string | null>;
  /** The evidence text, or what builds it from the request and the path's match. */
  detail: string | ((request: UrlRequest, match: RegExpExecArray) => string);
  extra?: (request: UrlRequest, match: RegExpExecArray) => Partial<UrlMatch>;
}

const idParam = (r: UrlRequest) => r.param('id');
const withGcs = (r: UrlRequest) => (r.gcs ? ` with gcs=${r.gcs}` : '');
const consent = (r: UrlRequest): Partial<UrlMatch> => ({ gcs: r.gcs, gcd: r.gcd });
const matomoCloud = (r: UrlRequest): Partial<UrlMatch> => ({
  byHost: hostIs(r.host, 'matomo.cloud') || hostIs(r.host, 'innocraft.cloud'),
});
const taggedBy = (id: string | null) => (id ? trackerForGoogleId(id) : null);

/**
 * Our own URL rules, in the order their matches are reported. Path-based rules (gtm.js, gtag/js, /g/collect,
 * matomo.php, /tr?id=) match on any host, which is how first-party and server-side setups are recognised.
 */
export const URL_RULES: UrlRule[] = [
  // Google tag manager / gtag loaders, on any host.
  {
    key: 'google_tag_manager',
    role: 'loader',
    path: /\/gtm\.js/,
    when: (r) => /\/gtm\.js$/.test(r.path) || !!idParam(r)?.startsWith('GTM-'),
    ids: (r) => [taggedBy(idParam(r)) === 'google_tag_manager' ? idParam(r) : null],
    detail: (r) => `gtm.js loaded${idParam(r) ? ` for ${idParam(r)}` : ''}`,
  },
  // A custom loader path (a server-side container's, e.g. data.shop.test/abcd.js?id=GTM-…): a GTM container id in
  // `id` on any other path of a non-Google host.
  {
    key: 'google_tag_manager',
    role: 'loader',
    when: (r) =>
      !/\/gtm\.js/.test(r.path) &&
      !/\/(ns\.html|gtag\/js)$/.test(r.path) &&
      !isGoogleHost(r.host) &&
      taggedBy(idParam(r)) === 'google_tag_manager',
    ids: (r) => [idParam(r)],
    detail: (r) => `GTM container ${idParam(r)} loaded through the custom loader ${r.path}`,
  },
  {
    key: 'google_tag_manager',
    role: 'loader',
    path: /\/ns\.html$/,
    when: (r) => !!idParam(r)?.startsWith('GTM-'),
    ids: (r) => [idParam(r)],
    detail: (r) => `GTM noscript iframe for ${idParam(r)}`,
  },
  // gtag.js is the loader of the product its id names; only an unknown or missing id leaves a bare "Google tag".
  {
    key: 'google_tag',
    role: 'loader',
    path: /\/gtag\/js$/,
    keyFor: (r) => taggedBy(idParam(r)) ?? 'google_tag',
    ids: (r) => [idParam(r)],
    detail: (r) => `gtag.js loaded${idParam(r) ? ` for ${idParam(r)}` : ''}`,
  },
  // GA4 hits, on any host (a non-Google host means a server-side container).
  {
    key: 'google_analytics_4',
    role: 'hit',
    path: /\/g\/collect$/,
    when: (r) => r.param('v') === '2' || !!r.param('tid')?.startsWith('G-'),
    ids: (r) => [r.param('tid')],
    detail: (r) => `GA4 hit${r.param('en') ? ` (event ${r.param('en')})` : ''}${withGcs(r)}`,
    extra: consent,
  },
  // A server-side container's hits on a renamed path: the GA4 parameter set (v=2, a G- tid, a client id, an event).
  {
    key: 'google_analytics_4',
    role: 'hit',
    orElse: true,
    when: (r) =>
      !isGoogleHost(r.host) &&
      r.param('v') === '2' &&
      taggedBy(r.param('tid')) === 'google_analytics_4' &&
      !!r.param('cid') &&
      !!r.param('en'),
    ids: (r) => [r.param('tid')],
    detail: (r) => `GA4 hit (event ${r.param('en')}) on the renamed path ${r.path}${withGcs(r)}`,
    extra: consent,
  },
  // Universal Analytics hits.
  {
    key: 'universal_analytics',
    role: 'hit',
    path: /\/(r\/|j\/)?collect$/,
    when: (r) =>
      ((/^\/(r\/|j\/)?collect$/.test(r.path) && hostIs(r.host, 'google-analytics.com')) ||
        !!r.param('tid')?.startsWith('UA-')) &&
      (!!r.param('tid')?.startsWith('UA-') || r.param('v') === '1'),
    ids: (r) => [r.param('tid')],
    detail: (r) => `Universal Analytics hit${r.param('tid') ? ` for ${r.param('tid')}` : ''}`,
  },
  {
    key: 'universal_analytics',
    role: 'loader',
    hosts: ['google-analytics.com'],
    path: /\/analytics\.js$|\/ga\.js$/,
    detail: 'analytics.js loaded',
  },
  // Google Ads.
  {
    key: 'google_ads',
    role: 'hit',
    path: /\/pagead\/(?:viewthrough)?conversion\/(\d{6,12})/,
    when: (r) => isGoogleHost(r.host) || !!r.gcs,
    ids: (_, m) => [`AW-${m[1]}`],
    detail: (r, m) => `Google Ads conversion/remarketing hit for AW-${m[1]}${withGcs(r)}`,
    extra: consent,
  },
  // Cookieless pings of Google Ads in Consent Mode (advanced): remarketing list and conversion pings on google.com.
  {
    key: 'google_ads',
    role: 'hit',
    path: /\/pagead\/1p-(user-list|conversion)\/(\d{6,12})/,
    when: (r) => isGoogleHost(r.host),
    ids: (_, m) => [`AW-${m[2]}`],
    detail: (r, m) =>
      `Google Ads ${m[1] === 'user-list' ? 'remarketing' : 'conversion'} ping (1p-${m[1]}) for AW-${m[2]}${withGcs(r)}`,
    extra: consent,
  },
  // Conversion measurement pings: Google Ads' unless the tag id is a GA4 one.
  {
    key: 'google_ads',
    role: 'hit',
    hosts: ['google.com'],
    path: /^\/ccm\/collect/,
    keyFor: (r) => (taggedBy(r.param('tid')) === 'google_analytics_4' ? 'google_analytics_4' : 'google_ads'),
    ids: (r) => [taggedBy(r.param('tid')) ? r.param('tid') : null],
    detail: (r) =>
      `Google conversion measurement ping (ccm/collect)${r.param('tid') ? ` for ${r.param('tid')}` : ''}${withGcs(r)}`,
    extra: (r) => ({ ...consent(r), ...(taggedBy(r.param('tid')) ? {} : { untagged: true }) }),
  },
  // Floodlight.
  {
    key: 'floodlight',
    role: 'hit',
    hosts: ['doubleclick.net'],
    path: /^\/activity[;/]/,
    ids: (r) => {
      const src = /src=(\d+)/.exec(r.path + r.url.search);
      return [src ? `DC-${src[1]}` : null];
    },
    detail: 'Floodlight activity hit',
  },
  // Meta.
  { key: 'meta_pixel', role: 'loader', hosts: ['facebook.net'], path: /\/fbevents\.js$/, detail: 'fbevents.js loaded' },
  {
    key: 'meta_pixel',
    role: 'loader',
    hosts: ['facebook.net'],
    path: /\/signals\/config\/(\d+)/,
    ids: (_, m) => [m[1]],
    detail: 'Meta Pixel configuration loaded',
  },
  {
    key: 'meta_pixel',
    role: 'hit',
    path: /^\/tr\/?$/,
    when: (r) => !!idParam(r) && (hostIs(r.host, 'facebook.com') || !!r.param('ev')),
    ids: (r) => [idParam(r)],
    detail: (r) =>
      `Meta Pixel hit${r.param('ev') ? ` (${r.param('ev')})` : ''}${r.param('eid') ? ` with an ${META_EVENT_ID_NOTE}` : ''}`,
  },
  // TikTok.
  {
    key: 'tiktok_pixel',
    role: 'loader',
    hosts: ['tiktok.com'],
    path: /\/pixel\/events\.js$/,
    ids: (r) => [r.param('sdkid')],
    detail: 'TikTok pixel loaded',
  },
  { key: 'tiktok_pixel', role: 'hit', hosts: ['tiktok.com'], path: /\/api\/v2\/pixel/, detail: 'TikTok pixel hit' },
  // LinkedIn.
  {
    key: 'linkedin_insight',
    role: 'loader',
    hosts: ['licdn.com'],
    path: /insight(\.min)?\.js$/,
    detail: 'LinkedIn Insight Tag loaded',
  },
  {
    key: 'linkedin_insight',
    role: 'hit',
    hosts: ['ads.linkedin.com', 'linkedin.com'],
    path: /\/collect\/?$|\/attribution_trigger/,
    ids: (r) => [r.param('pid')],
    detail: 'LinkedIn Insight hit',
  },
  // Bing UET.
  { key: 'bing_uet', role: 'loader', hosts: ['bing.com'], path: /\/bat\.js$/, detail: 'UET bat.js loaded' },
  {
    key: 'bing_uet',
    role: 'hit',
    hosts: ['bing.com'],
    path: /^\/action\//,
    ids: (r) => [r.param('ti')],
    detail: 'UET hit',
  },
  // Pinterest.
  { key: 'pinterest_tag', role: 'loader', hosts: ['pinimg.com'], path: /\/core\.js$/, detail: 'Pinterest tag loaded' },
  {
    key: 'pinterest_tag',
    role: 'hit',
    hosts: ['pinterest.com'],
    path: /^\/v3\/?/,
    when: (r) => r.host.startsWith('ct.'),
    ids: (r) => [r.param('tid')],
    detail: 'Pinterest tag hit',
  },
  // Snap.
  {
    key: 'snap_pixel',
    role: 'loader',
    hosts: ['sc-static.net'],
    path: /scevent(\.min)?\.js$/,
    detail: 'Snap Pixel loaded',
  },
  {
    key: 'snap_pixel',
    role: 'hit',
    hosts: ['snapchat.com'],
    when: (r) => r.host.startsWith('tr'),
    detail: 'Snap Pixel hit',
  },
  // X.
  { key: 'x_pixel', role: 'loader', hosts: ['ads-twitter.com'], path: /\/(uwt|oct)\.js$/, detail: 'X pixel loaded' },
  {
    key: 'x_pixel',
    role: 'hit',
    path: /\/i\/adsct/,
    when: (r) => hostIs(r.host, 'twitter.com') || r.host === 't.co',
    ids: (r) => [r.param('txn_id')],
    detail: 'X pixel hit',
  },
  // Hotjar.
  {
    key: 'hotjar',
    role: 'loader',
    hosts: ['hotjar.com'],
    path: /\/c\/hotjar-(\d+)\.js$/,
    ids: (_, m) => [m[1]],
    detail: (_, m) => `Hotjar loaded for site ${m[1]}`,
  },
  { key: 'hotjar', role: 'hit', orElse: true, hosts: ['hotjar.com', 'hotjar.io'], detail: 'Hotjar request' },
  // Clarity.
  {
    key: 'clarity',
    role: 'loader',
    hosts: ['clarity.ms'],
    path: /^\/tag\/([a-z0-9]{6,14})/i,
    ids: (_, m) => [m[1]],
    detail: (_, m) => `Clarity tag loaded for project ${m[1]}`,
  },
  { key: 'clarity', role: 'hit', orElse: true, hosts: ['clarity.ms'], path: /\/collect/, detail: 'Clarity hit' },
  { key: 'clarity', role: 'loader', orElse: true, hosts: ['clarity.ms'], detail: 'Clarity script loaded' },
  // Matomo (usually self-hosted; Matomo Cloud on matomo.cloud / innocraft.cloud).
  {
    key: 'matomo',
    role: 'loader',
    path: /\/(matomo|piwik)\.js$/,
    when: (r) => !hostIs(r.host, 'piwik.pro'),
    detail: (r) => `${r.path.split('/').pop()} loaded`,
    extra: matomoCloud,
  },
  {
    key: 'matomo',
    role: 'hit',
    path: /\/(matomo|piwik)\.php$/,
    when: (r) => !!r.param('idsite') && !hostIs(r.host, 'piwik.pro'),
    ids: (r) => [r.param('idsite')],
    detail: (r) => `Matomo hit for site ${r.param('idsite')}`,
    extra: matomoCloud,
  },
  // Segment.
  {
    key: 'segment',
    role: 'loader',
    path: /\/analytics\.js\/v1\/([A-Za-z0-9]{10,40})\/analytics(\.min)?\.js$/,
    ids: (_, m) => [m[1]],
    detail: 'Segment analytics.js loaded',
    extra: (r) => ({ byHost: hostIs(r.host, 'segment.com') }),
  },
  {
    key: 'segment',
    role: 'hit',
    hosts: ['segment.io'],
    path: /^\/v1\/(t|p|i|track|page|identify|batch)$/,
    detail: 'Segment API call',
    extra: () => ({ byHost: true }),
  },
];

const ANY_PATH = /(?:)/;

/** Classifies a request URL with our own rules (`URL_RULES`), then by the vendors' protocols. */
export function matchUrl(raw: string, body: string | null = null): UrlMatch[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [];
  }
  const param = (name: string) => {
    const value = url.searchParams.get(name);
    return value && value.length < 200 ? value : null;
  };
  const request: UrlRequest = {
    url,
    host: url.hostname.toLowerCase(),
    path: url.pathname,
    param,
    gcs: param('gcs') ?? undefined,
    gcd: param('gcd') ?? undefined,
  };
  const out: UrlMatch[] = [];
  let matched = false;
  for (const rule of URL_RULES) {
    if (rule.orElse && matched) continue;
    const match = applies(rule, request);
    matched = !!match;
    if (!match) continue;
    out.push({
      key: rule.keyFor?.(request) ?? rule.key,
      role: rule.role,
      ids: (rule.ids?.(request, match) ?? []).filter((id): id is string => !!id),
      detail: typeof rule.detail === 'string' ? rule.detail : rule.detail(request, match),
      ...rule.extra?.(request, match),
    });
  }
  out.push(...matchProtocols(url, body), ...matchTagManagerUrls(url));
  return out;
}

function applies(rule: UrlRule, request: UrlRequest): RegExpExecArray | null {
  if (rule.hosts && !rule.hosts.some((domain) => hostIs(request.host, domain))) return null;
  const match = (rule.path ?? ANY_PATH).exec(request.path);
  return match && (!rule.when || rule.when(request, match)) ? match : null;
}
