import { matchProtocols } from './protocols.js';
import { META_EVENT_ID_NOTE, trackerForGoogleId, type TrackerKey } from './trackers.js';

export type HitRole = 'loader' | 'hit';

export interface UrlMatch {
  key: TrackerKey;
  ids: string[];
  role: HitRole;
  detail: string;
  /** The request carries Google consent parameters. */
  gcs?: string;
  gcd?: string;
  /** The vendor's own host decided the match (not a path or protocol another product shares). */
  byHost?: boolean;
  /** A Google ping without a tag id (ccm/collect): Google Ads', unless the page shows GA4 and no Google Ads. */
  untagged?: boolean;
}

const GOOGLE_COLLECTION_HOSTS =
  /(^|\.)(google-analytics\.com|analytics\.google\.com|googletagmanager\.com|google\.com|doubleclick\.net|googleadservices\.com|googlesyndication\.com|google\.[a-z.]{2,6})$/;

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
export function matchUrl(raw: string, body: string | null = null): UrlMatch[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [];
  }
  const host = url.hostname.toLowerCase();
  const path = url.pathname;
  const out: UrlMatch[] = [];
  const add = (
    key: TrackerKey,
    role: HitRole,
    ids: Array<string | null>,
    detail: string,
    extra: Partial<UrlMatch> = {},
  ) => out.push({ key, role, ids: ids.filter((id): id is string => !!id), detail, ...extra });

  // Google tag manager / gtag loaders, on any host.
  if (/\/gtm\.js$/.test(path) || (/\/gtm\.js/.test(path) && param(url, 'id')?.startsWith('GTM-'))) {
    const id = param(url, 'id');
    add(
      'google_tag_manager',
      'loader',
      [id && trackerForGoogleId(id) === 'google_tag_manager' ? id : null],
      `gtm.js loaded${id ? ` for ${id}` : ''}`,
    );
  }
  // A custom loader path (a server-side container's, e.g. data.shop.test/abcd.js?id=GTM-…): a GTM container id in
  // `id` on any other path of a non-Google host.
  const customId = param(url, 'id');
  if (
    !/\/gtm\.js/.test(path) &&
    !/\/(ns\.html|gtag\/js)$/.test(path) &&
    !isGoogleHost(host) &&
    customId &&
    trackerForGoogleId(customId) === 'google_tag_manager'
  )
    add(
      'google_tag_manager',
      'loader',
      [customId],
      `GTM container ${customId} loaded through the custom loader ${path}`,
    );
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
    add(
      'google_analytics_4',
      'hit',
      [tid],
      `GA4 hit${param(url, 'en') ? ` (event ${param(url, 'en')})` : ''}${gcs ? ` with gcs=${gcs}` : ''}`,
      { gcs, gcd },
    );
  }
  // Universal Analytics hits.
  if (
    (/^\/(r\/|j\/)?collect$/.test(path) && hostIs(host, 'google-analytics.com')) ||
    (/\/(r\/|j\/)?collect$/.test(path) && param(url, 'tid')?.startsWith('UA-'))
  ) {
    const tid = param(url, 'tid');
    if (tid?.startsWith('UA-') || param(url, 'v') === '1')
      add('universal_analytics', 'hit', [tid], `Universal Analytics hit${tid ? ` for ${tid}` : ''}`);
  }
  if (hostIs(host, 'google-analytics.com') && /\/analytics\.js$|\/ga\.js$/.test(path))
    add('universal_analytics', 'loader', [], 'analytics.js loaded');
  // Google Ads.
  const conversion = /\/pagead\/(?:viewthrough)?conversion\/(\d{6,12})/.exec(path);
  if (conversion && (isGoogleHost(host) || gcs))
    add(
      'google_ads',
      'hit',
      [`AW-${conversion[1]}`],
      `Google Ads conversion/remarketing hit for AW-${conversion[1]}${gcs ? ` with gcs=${gcs}` : ''}`,
      { gcs, gcd },
    );
  // Cookieless pings of Google Ads in Consent Mode (advanced): remarketing list and conversion pings on google.com.
  const firstPartyPing = /\/pagead\/1p-(user-list|conversion)\/(\d{6,12})/.exec(path);
  if (firstPartyPing && isGoogleHost(host))
    add(
      'google_ads',
      'hit',
      [`AW-${firstPartyPing[2]}`],
      `Google Ads ${firstPartyPing[1] === 'user-list' ? 'remarketing' : 'conversion'} ping (1p-${firstPartyPing[1]}) for AW-${firstPartyPing[2]}${gcs ? ` with gcs=${gcs}` : ''}`,
      { gcs, gcd },
    );
  // Conversion measurement pings: Google Ads' unless the tag id is a GA4 one.
  if (hostIs(host, 'google.com') && /^\/ccm\/collect/.test(path)) {
    const tid = param(url, 'tid');
    add(
      tid && trackerForGoogleId(tid) === 'google_analytics_4' ? 'google_analytics_4' : 'google_ads',
      'hit',
      [tid && trackerForGoogleId(tid) ? tid : null],
      `Google conversion measurement ping (ccm/collect)${tid ? ` for ${tid}` : ''}${gcs ? ` with gcs=${gcs}` : ''}`,
      { gcs, gcd, ...(tid && trackerForGoogleId(tid) ? {} : { untagged: true }) },
    );
  }
  // Floodlight.
  if (hostIs(host, 'doubleclick.net') && /^\/activity[;/]/.test(path)) {
    const src = /src=(\d+)/.exec(path + url.search);
    add('floodlight', 'hit', [src ? `DC-${src[1]}` : null], 'Floodlight activity hit');
  }
  // Meta.
  if (hostIs(host, 'facebook.net') && /\/fbevents\.js$/.test(path))
    add('meta_pixel', 'loader', [], 'fbevents.js loaded');
  if (hostIs(host, 'facebook.net') && /\/signals\/config\/(\d+)/.test(path))
    add('meta_pixel', 'loader', [/\/signals\/config\/(\d+)/.exec(path)![1]], 'Meta Pixel configuration loaded');
  if (/^\/tr\/?$/.test(path) && param(url, 'id') && (hostIs(host, 'facebook.com') || param(url, 'ev'))) {
    add(
      'meta_pixel',
      'hit',
      [param(url, 'id')],
      `Meta Pixel hit${param(url, 'ev') ? ` (${param(url, 'ev')})` : ''}${param(url, 'eid') ? ` with an ${META_EVENT_ID_NOTE}` : ''}`,
    );
  }
  // TikTok.
  if (hostIs(host, 'tiktok.com') && /\/pixel\/events\.js$/.test(path))
    add('tiktok_pixel', 'loader', [param(url, 'sdkid')], 'TikTok pixel loaded');
  if (hostIs(host, 'tiktok.com') && /\/api\/v2\/pixel/.test(path)) add('tiktok_pixel', 'hit', [], 'TikTok pixel hit');
  // LinkedIn.
  if (hostIs(host, 'licdn.com') && /insight(\.min)?\.js$/.test(path))
    add('linkedin_insight', 'loader', [], 'LinkedIn Insight Tag loaded');
  if (
    (hostIs(host, 'ads.linkedin.com') || hostIs(host, 'linkedin.com')) &&
    /\/collect\/?$|\/attribution_trigger/.test(path)
  )
    add('linkedin_insight', 'hit', [param(url, 'pid')], 'LinkedIn Insight hit');
  // Bing UET.
  if (hostIs(host, 'bing.com') && /\/bat\.js$/.test(path)) add('bing_uet', 'loader', [], 'UET bat.js loaded');
  if (hostIs(host, 'bing.com') && /^\/action\//.test(path)) add('bing_uet', 'hit', [param(url, 'ti')], 'UET hit');
  // Pinterest.
  if (hostIs(host, 'pinimg.com') && /\/core\.js$/.test(path))
    add('pinterest_tag', 'loader', [], 'Pinterest tag loaded');
  if (hostIs(host, 'pinterest.com') && /^\/v3\/?/.test(path) && host.startsWith('ct.'))
    add('pinterest_tag', 'hit', [param(url, 'tid')], 'Pinterest tag hit');
  // Snap.
  if (hostIs(host, 'sc-static.net') && /scevent(\.min)?\.js$/.test(path))
    add('snap_pixel', 'loader', [], 'Snap Pixel loaded');
  if (hostIs(host, 'snapchat.com') && host.startsWith('tr')) add('snap_pixel', 'hit', [], 'Snap Pixel hit');
  // X.
  if (hostIs(host, 'ads-twitter.com') && /\/(uwt|oct)\.js$/.test(path)) add('x_pixel', 'loader', [], 'X pixel loaded');
  if ((hostIs(host, 'twitter.com') || host === 't.co') && /\/i\/adsct/.test(path))
    add('x_pixel', 'hit', [param(url, 'txn_id')], 'X pixel hit');
  // Hotjar.
  const hotjar = /\/c\/hotjar-(\d+)\.js$/.exec(path);
  if (hostIs(host, 'hotjar.com') && hotjar) add('hotjar', 'loader', [hotjar[1]], `Hotjar loaded for site ${hotjar[1]}`);
  else if (hostIs(host, 'hotjar.com') || hostIs(host, 'hotjar.io')) add('hotjar', 'hit', [], 'Hotjar request');
  // Clarity.
  const clarityTag = /^\/tag\/([a-z0-9]{6,14})/i.exec(path);
  if (hostIs(host, 'clarity.ms') && clarityTag)
    add('clarity', 'loader', [clarityTag[1]], `Clarity tag loaded for project ${clarityTag[1]}`);
  else if (hostIs(host, 'clarity.ms') && /\/collect/.test(path)) add('clarity', 'hit', [], 'Clarity hit');
  else if (hostIs(host, 'clarity.ms')) add('clarity', 'loader', [], 'Clarity script loaded');
  // Matomo (usually self-hosted; Matomo Cloud on matomo.cloud / innocraft.cloud).
  const matomoCloud = hostIs(host, 'matomo.cloud') || hostIs(host, 'innocraft.cloud');
  if (/\/(matomo|piwik)\.js$/.test(path) && !hostIs(host, 'piwik.pro'))
    add('matomo', 'loader', [], `${path.split('/').pop()} loaded`, { byHost: matomoCloud });
  if (/\/(matomo|piwik)\.php$/.test(path) && param(url, 'idsite') && !hostIs(host, 'piwik.pro'))
    add('matomo', 'hit', [param(url, 'idsite')], `Matomo hit for site ${param(url, 'idsite')}`, {
      byHost: matomoCloud,
    });
  // Segment.
  const segment = /\/analytics\.js\/v1\/([A-Za-z0-9]{10,40})\/analytics(\.min)?\.js$/.exec(path);
  if (segment)
    add('segment', 'loader', [segment[1]], 'Segment analytics.js loaded', { byHost: hostIs(host, 'segment.com') });
  if (hostIs(host, 'segment.io') && /^\/v1\/(t|p|i|track|page|identify|batch)$/.test(path))
    add('segment', 'hit', [], 'Segment API call', { byHost: true });
  out.push(...matchProtocols(url, body));
  return out;
}
