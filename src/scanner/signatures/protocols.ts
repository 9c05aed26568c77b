import type { TrackerKey } from './trackers.js';
import type { HitRole, UrlMatch } from './url-match.js';

/**
 * Collection protocols and loaders of analytics tools beyond the big ad and Google tags, read from each tool's public
 * documentation (HTTP API or tracker reference). Path-and-payload rules match on any host: a hit of that shape sent to
 * the site's own domain is a first-party proxy or a self-hosted install of the tool. Rules that only match on the
 * vendor's own hosts say so with `byHost`, which names the vendor above shared APIs (see detect/families.ts).
 */

function hostIs(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/** A JSON payload's field, when the body is JSON; undefined otherwise. */
function jsonField(body: string | null, ...path: string[]): unknown {
  if (!body?.trimStart().startsWith('{')) return undefined;
  try {
    let value: unknown = JSON.parse(body);
    for (const key of path)
      value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    return value;
  } catch {
    return undefined;
  }
}

const text = (value: unknown) => (typeof value === 'string' && value.length < 200 ? value : null);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function matchProtocols(url: URL, body: string | null): UrlMatch[] {
  const host = url.hostname.toLowerCase();
  const path = url.pathname;
  const param = (name: string) => text(url.searchParams.get(name));
  const out: UrlMatch[] = [];
  const add = (key: TrackerKey, role: HitRole, ids: Array<string | null>, detail: string, byHost = false) =>
    out.push({ key, role, ids: ids.filter((id): id is string => !!id), detail, ...(byHost ? { byHost } : {}) });

  // Plausible: script.js (and its extensions) from plausible.io; events POSTed to /api/event as {n, u, d}.
  if (hostIs(host, 'plausible.io') && /^\/js\/(script|plausible)[\w.-]*\.js$/.test(path))
    add('plausible', 'loader', [], 'Plausible script loaded', true);
  if (/\/api\/event$/.test(path) && text(jsonField(body, 'n')) && text(jsonField(body, 'u')))
    add('plausible', 'hit', [text(jsonField(body, 'd'))], `Plausible event (${text(jsonField(body, 'n'))})`);
  // Umami: POST /api/send {type, payload: {website}}.
  const umamiWebsite = text(jsonField(body, 'payload', 'website'));
  if (/\/api\/send$/.test(path) && umamiWebsite && UUID.test(umamiWebsite))
    add('umami', 'hit', [umamiWebsite], 'Umami event');
  if (hostIs(host, 'umami.is') || hostIs(host, 'umami.dev')) add('umami', 'loader', [], 'Umami Cloud request', true);
  // PostHog: /e/, /i/v0/e/, /batch/, /decide/, /flags/ with the library version in `ver`; array.js loader.
  if (/^(\/[\w-]+)*\/(e|i\/v0\/e|batch|decide|flags|capture|engage|s)\/?$/.test(path) && param('ver'))
    add('posthog', 'hit', [text(jsonField(body, 'api_key')) ?? text(jsonField(body, 'token'))], 'PostHog capture call');
  if (/\/static\/array(\.full)?(\.no-external)?\.js$/.test(path) || hostIs(host, 'posthog.com'))
    add('posthog', 'loader', [], 'PostHog library (array.js) loaded', hostIs(host, 'posthog.com'));
  // Fathom, Simple Analytics, Pirsch, Cabin, Counter.dev: hosted only.
  if (hostIs(host, 'usefathom.com'))
    add('fathom', param('sid') ? 'hit' : 'loader', [param('sid')], 'Fathom request', true);
  if (hostIs(host, 'simpleanalyticscdn.com') || hostIs(host, 'simpleanalytics.com'))
    add(
      'simple_analytics',
      /^scripts?\./.test(host) ? 'loader' : 'hit',
      [param('hostname')],
      'Simple Analytics request',
      true,
    );
  if (hostIs(host, 'pirsch.io')) add('pirsch', /\.js$/.test(path) ? 'loader' : 'hit', [], 'Pirsch request', true);
  if (hostIs(host, 'withcabin.com')) add('cabin', /\.js$/.test(path) ? 'loader' : 'hit', [], 'Cabin request', true);
  if (hostIs(host, 'counter.dev'))
    add('counter_dev', /\.js$/.test(path) ? 'loader' : 'hit', [param('id')], 'Counter.dev request', true);
  // GoatCounter: count.js from gc.zgo.at; hits GET /count?p=…&rnd=… (hosted or self-hosted).
  if (host === 'gc.zgo.at') add('goatcounter', 'loader', [], 'GoatCounter count.js loaded', true);
  if (/\/count$/.test(path) && param('p') !== null && param('rnd') !== null) {
    const code = hostIs(host, 'goatcounter.com') ? host.split('.')[0] : null;
    add('goatcounter', 'hit', [code], 'GoatCounter hit', hostIs(host, 'goatcounter.com'));
  }
  // Cloudflare Web Analytics: beacon.min.js from cloudflareinsights.com; RUM hits there or, on proxied zones, to
  // the site's own /cdn-cgi/rum.
  if (hostIs(host, 'cloudflareinsights.com') && /\/beacon(\.min)?\.js$/.test(path))
    add('cloudflare_web_analytics', 'loader', [], 'Cloudflare Web Analytics beacon loaded', true);
  if (/^\/cdn-cgi\/rum$/.test(path))
    add(
      'cloudflare_web_analytics',
      'hit',
      [],
      'Cloudflare Web Analytics RUM hit',
      hostIs(host, 'cloudflareinsights.com'),
    );
  // Vercel Web Analytics: served by the site itself under /_vercel/insights/ (or from va.vercel-scripts.com).
  if (
    /^\/_vercel\/insights\/script\.js$/.test(path) ||
    (hostIs(host, 'vercel-scripts.com') && /\/script(\.debug)?\.js$/.test(path))
  )
    add('vercel_web_analytics', 'loader', [], 'Vercel Web Analytics script loaded');
  if (/^\/_vercel\/insights\/(view|event|session)$/.test(path))
    add('vercel_web_analytics', 'hit', [], 'Vercel Web Analytics hit');
  // Swetrix: hosted API or self-hosted /log.
  if (hostIs(host, 'swetrix.org') || hostIs(host, 'swetrix.com'))
    add('swetrix', /\.js$/.test(path) ? 'loader' : 'hit', [text(jsonField(body, 'pid'))], 'Swetrix request', true);
  // Cloudflare Zaraz: always on the site's own zone, under /cdn-cgi/zaraz/.
  if (/^\/cdn-cgi\/zaraz\//.test(path))
    add(
      'cloudflare_zaraz',
      /\/s\.js$|\/i\.js$/.test(path) ? 'loader' : 'hit',
      [],
      `Zaraz ${path.split('/').pop() || 'request'}`,
    );
  // RudderStack: SDK from its CDN, events to a data plane.
  if (/\/rudder-analytics(\.min)?\.js$|\/rsa(\.min)?\.js$/.test(path))
    add('rudderstack', 'loader', [], 'RudderStack SDK loaded', hostIs(host, 'rudderlabs.com'));
  if (
    (hostIs(host, 'rudderstack.com') || hostIs(host, 'rudderlabs.com')) &&
    /^\/v1\/(batch|track|page|identify)$/.test(path)
  )
    add('rudderstack', 'hit', [], 'RudderStack event', true);
  // Segment's HTTP tracking API on any host (custom domain proxies): /v1/t|p|i|batch with a writeKey in the payload.
  const writeKey = text(jsonField(body, 'writeKey'));
  const rudderHost = hostIs(host, 'rudderstack.com') || hostIs(host, 'rudderlabs.com');
  if (!hostIs(host, 'segment.io') && !rudderHost && /\/v1\/(t|p|i|batch|track|page|identify)$/.test(path) && writeKey)
    add('segment', 'hit', [writeKey], 'analytics.js API call (writeKey in payload)');
  // Piwik PRO: its own hosts, and its ppms.php tracker.
  if (hostIs(host, 'piwik.pro'))
    add('piwik_pro', /\.php$/.test(path) ? 'hit' : 'loader', [param('idsite')], 'Piwik PRO request', true);
  else if (/\/ppms\.php$/.test(path) && param('idsite')) add('piwik_pro', 'hit', [param('idsite')], 'Piwik PRO hit');
  out.push(...matchLongTailHosts(host, path, param, body, url.searchParams));
  return out;
}

/** Loaders and hits of tools third-party-web knows by host, with the ids their URLs or payloads carry. */
function matchLongTailHosts(
  host: string,
  path: string,
  param: (name: string) => string | null,
  body: string | null,
  query: URLSearchParams,
): UrlMatch[] {
  const out: UrlMatch[] = [];
  const add = (key: TrackerKey, role: HitRole, ids: Array<string | null>, detail: string) =>
    out.push({ key, role, ids: ids.filter((id): id is string => !!id), detail, byHost: true });
  const yandex = /^\/watch\/(\d{5,12})/.exec(path);
  if (/^mc\.yandex\.(ru|com|by|kz|com\.tr)$/.test(host))
    add('yandex_metrica', yandex ? 'hit' : 'loader', [yandex?.[1] ?? null], 'Yandex Metrica request');
  const hubspot = /^\/(\d{3,10})\.js$/.exec(path);
  if (hostIs(host, 'hs-scripts.com') && hubspot) add('hubspot', 'loader', [hubspot[1]], 'HubSpot tracking code loaded');
  // The tracking code loads the analytics script with the portal id in its path: js.hs-analytics.net/analytics/<ts>/<id>.js
  const hubspotAnalytics = /^\/analytics\/\d+\/(\d{3,10})\.js$/.exec(path);
  if (hostIs(host, 'hs-analytics.net'))
    add('hubspot', 'loader', [hubspotAnalytics?.[1] ?? null], 'HubSpot analytics script loaded');
  if (hostIs(host, 'track.hubspot.com')) add('hubspot', 'hit', [param('a')], 'HubSpot tracking hit');
  const heap = /\/heap-(\d{6,12})\.js$/.exec(path);
  if (hostIs(host, 'heapanalytics.com'))
    add('heap', heap ? 'loader' : 'hit', [heap?.[1] ?? param('a')], heap ? 'Heap loaded' : 'Heap hit');
  if (hostIs(host, 'mixpanel.com') || hostIs(host, 'mxpnl.com'))
    add(
      'mixpanel',
      /\.js$/.test(path) ? 'loader' : 'hit',
      [mixpanelToken(query.get('data'), body)],
      'Mixpanel request',
    );
  if (hostIs(host, 'amplitude.com'))
    add('amplitude', /\.js$/.test(path) ? 'loader' : 'hit', [text(jsonField(body, 'api_key'))], 'Amplitude request');
  if (hostIs(host, 'fullstory.com'))
    add(
      'fullstory',
      /\.js$/.test(path) ? 'loader' : 'hit',
      [param('OrgId') ?? text(jsonField(body, 'OrgId')) ?? /^\/s\/settings\/([\w-]{4,24})\//.exec(path)?.[1] ?? null],
      'FullStory request',
    );
  if (hostIs(host, 'criteo.net') || hostIs(host, 'criteo.com'))
    add('criteo', /\.js$/.test(path) ? 'loader' : 'hit', [param('a')], 'Criteo request');
  const taboola = /^\/(?:libtrc\/unip\/)?(\d{5,9})\//.exec(path);
  if (hostIs(host, 'taboola.com'))
    add('taboola', /\.js$/.test(path) ? 'loader' : 'hit', [taboola?.[1] ?? null], 'Taboola request');
  if (hostIs(host, 'outbrain.com'))
    add('outbrain', /\.js$/.test(path) ? 'loader' : 'hit', [param('marketerId')], 'Outbrain request');
  const intercom = /^\/widget\/([a-z0-9]{6,10})$/.exec(path);
  if (hostIs(host, 'intercom.io') || hostIs(host, 'intercomcdn.com'))
    add('intercom', intercom || /\.js$/.test(path) ? 'loader' : 'hit', [intercom?.[1] ?? null], 'Intercom request');
  return out;
}

/**
 * The project token of a Mixpanel /track or /engage call: its `data` (query or form field) is the event as JSON, plain
 * or base64, one event or a batch, with the token in `properties.token` (`$token` for engage).
 */
function mixpanelToken(query: string | null, body: string | null): string | null {
  let data = query;
  if (!data && body) {
    try {
      data = new URLSearchParams(body).get('data');
    } catch {
      data = null;
    }
  }
  if (!data) return null;
  for (const candidate of [data, Buffer.from(data, 'base64').toString('utf8')]) {
    try {
      const parsed: unknown = JSON.parse(candidate);
      const event = (Array.isArray(parsed) ? parsed[0] : parsed) as Record<string, unknown> | undefined;
      const properties = event?.properties as Record<string, unknown> | undefined;
      const token = text(properties?.token) ?? text(event?.$token);
      if (token && /^[0-9a-f]{32}$/.test(token)) return token;
    } catch {
      /* not this encoding */
    }
  }
  return null;
}
