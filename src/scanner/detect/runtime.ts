import type { RuntimeCookie, RuntimeFindings, RuntimeRequest } from '../browser.js';
import type { Evidence } from '../schema.js';
import {
  CMP_RULES,
  GLOBAL_RULES,
  TRACKERS,
  cmpForCookie,
  cmpForUrl,
  isGoogleHost,
  matchUrl,
  trackerForCookie,
} from '../signatures.js';
import type { WarningDraft } from '../warnings.js';
import { GOOGLE_KEYS, infoForId, type Account, type Book } from './book.js';
import type { ConsentCommand } from './consent.js';
import type { ServerUrl } from './server-side.js';
import { classifyWithThirdPartyWeb } from './third-party-web.js';
import { blockedReason, endpointOf, hostOf, originOf, shorten, wasSent } from './urls.js';

/**
 * Stage 2 (browser): trackers, CMPs and server-side evidence in what the page did — its requests, the tag ids it
 * registered, its globals and cookies — and the consent commands and server URLs in its dataLayer.
 */
export function collectRuntime(
  book: Book,
  runtime: RuntimeFindings,
): { dataLayerCommands: ConsentCommand[]; serverUrls: ServerUrl[]; warnings: WarningDraft[] } {
  const { commands, configs } = consentFromDataLayer(runtime.dataLayer);
  const serverUrls: ServerUrl[] = [];
  for (const config of configs) {
    for (const param of ['transport_url', 'server_container_url']) {
      const value = config.params[param];
      if (typeof value === 'string' && /^https?:\/\//.test(value))
        serverUrls.push({ param, url: value, id: config.id, via: 'global' });
    }
  }
  collectRequests(book, [...runtime.requests, ...refusedBeforeSending(runtime)], runtime.cspViolations);
  collectGoogleTagIds(book, runtime);
  collectGlobals(book, runtime.globals);
  markConfigured(book, configs);
  collectCookies(book, runtime.cookies);
  // A banner of a known CMP found only through its DOM container: named, without evidence of the kinds above.
  if (runtime.banner.cmp && !book.cmp.has(runtime.banner.cmp)) book.cmp.set(runtime.banner.cmp, []);
  const warnings: WarningDraft[] = [];
  if (runtime.refused.length) {
    warnings.push({
      code: 'requests_refused',
      facts: { kind: 'refused', count: runtime.refused.length, example: shorten(runtime.refused[0].url, 120) },
    });
  }
  return { dataLayerCommands: commands, serverUrls, warnings };
}

/** Accounts whose ids the page configured at run time: a tag waiting for consent or its loader, not a bare name. */
function markConfigured(book: Book, configs: Array<{ id: string }>): void {
  const configured = new Set(configs.map(({ id }) => id.toUpperCase()));
  for (const account of book.accounts.values())
    if ([...account.ids].some((id) => configured.has(id.toUpperCase()))) account.configuredInPage = true;
}

function consentFromDataLayer(dataLayer: unknown[]): {
  commands: ConsentCommand[];
  configs: Array<{ id: string; params: Record<string, unknown> }>;
} {
  const commands: ConsentCommand[] = [];
  const configs: Array<{ id: string; params: Record<string, unknown> }> = [];
  for (const entry of dataLayer) {
    if (!Array.isArray(entry)) continue;
    if (
      entry[0] === 'consent' &&
      (entry[1] === 'default' || entry[1] === 'update') &&
      entry[2] &&
      typeof entry[2] === 'object'
    ) {
      const values: Record<string, string> = {};
      for (const [key, value] of Object.entries(entry[2] as Record<string, unknown>))
        values[key] = Array.isArray(value) ? JSON.stringify(value) : String(value);
      commands.push({ command: entry[1], values, source: 'dataLayer' });
    }
    if (entry[0] === 'config' && typeof entry[1] === 'string') {
      configs.push({
        id: entry[1],
        params: entry[2] && typeof entry[2] === 'object' ? (entry[2] as Record<string, unknown>) : {},
      });
    }
  }
  return { commands, configs };
}

function kindForRequest(request: RuntimeRequest): Evidence['kind'] {
  return request.resourceType === 'script' ? 'script' : 'request';
}

/** Our rules first; a request they do not know goes to the CMP rules, then to third-party-web. */
function collectRequests(
  book: Book,
  requests: RuntimeRequest[],
  cspViolations: RuntimeFindings['cspViolations'],
): void {
  for (const request of requests) {
    if (!/^https?:/.test(request.url)) continue;
    const host = hostOf(request.url);
    const firstParty = book.isFirstParty(host);
    const kind = kindForRequest(request);
    const sent = wasSent(request);
    const reason = sent ? null : blockedReason(request, cspViolations);
    const record = (account: Account) => {
      if (reason) {
        if (account.blocked.length < 12) account.blocked.push({ url: shorten(request.url), reason });
      } else account.requests.push(request);
    };
    const suffix = reason ? ` — blocked, no response: ${reason}` : '';
    const matches = matchUrl(request.url, request.postData);
    for (const match of matches) {
      const key =
        match.untagged && !book.has('google_ads') && book.has('google_analytics_4') ? 'google_analytics_4' : match.key;
      const account = book.add(
        TRACKERS[key],
        { kind, detail: `${match.detail}${suffix}`, url: shorten(request.url) },
        match.ids,
      );
      record(account);
      if (match.byHost && host) account.namedByHost ??= host;
      if (!reason && match.role === 'hit' && firstParty) noteFirstPartyHit(book, account, request.url, match.detail);
      if (!reason && match.role === 'hit' && GOOGLE_KEYS.includes(key)) account.hitsGcs.push(match.gcs ?? null);
      if (firstParty) account.firstParty = true;
      const origin = originOf(request.url);
      if (key === 'google_analytics_4' && match.role === 'hit' && host && !isGoogleHost(host)) {
        account.serverSide = true;
        book.addServer(
          {
            kind: 'request',
            detail: `GA4 hits sent to ${host}, not to Google: a server-side container`,
            url: shorten(request.url),
          },
          origin,
        );
      }
      const loader = match.role === 'loader' ? googleLoaderOf(request.url, key) : undefined;
      if (loader && host && !isGoogleHost(host)) {
        account.serverSide = true;
        book.addServer(
          {
            kind: 'script',
            detail: `${loader} served from ${host}${firstParty ? " (the site's own domain)" : ''}, not from Google`,
            url: shorten(request.url),
          },
          origin,
        );
      }
    }
    if (!matches.length) {
      const cmp = cmpForUrl(request.url);
      if (cmp)
        book.addCmp(cmp.name, { kind, detail: `${request.resourceType} from ${host}`, url: shorten(request.url) });
      else {
        const account = classifyWithThirdPartyWeb(book, request.url, {
          kind,
          detail: `${request.resourceType} to ${host}${suffix}`,
          url: shorten(request.url),
        });
        if (account) record(account);
      }
    }
  }
}

/** gtm.js or gtag/js, or a GTM container's custom loader path: the Google loaders a tagging server can serve. */
function googleLoaderOf(url: string, key: string): string | undefined {
  const path = new URL(url).pathname;
  const known = /\/(gtm\.js|gtag\/js)$/.exec(path)?.[1];
  if (known) return known;
  return key === 'google_tag_manager' && !/\/ns\.html$/.test(path) ? `GTM custom loader ${path}` : undefined;
}

/** Ids in window.google_tag_manager; a GTM container running without a gtm.js request was loaded some other way. */
function collectGoogleTagIds(book: Book, runtime: RuntimeFindings): void {
  for (const id of runtime.googleTagIds) {
    const info = infoForId(id);
    if (info) book.add(info, { kind: 'global', detail: `window.google_tag_manager has ${id}` }, [id]);
  }
  const gtm = book.accounts.get('google_tag_manager');
  if (
    gtm &&
    runtime.googleTagIds.some((id) => id.startsWith('GTM-')) &&
    !gtm.requests.some((request) => matchUrl(request.url).some((match) => match.role === 'loader'))
  ) {
    gtm.serverSide = true;
    book.addServer(
      {
        kind: 'global',
        detail:
          'GTM is running but no gtm.js request was seen: loaded through a custom loader path (typical of a server-side container)',
      },
      null,
    );
  }
}

function collectGlobals(book: Book, globals: string[]): void {
  for (const rule of GLOBAL_RULES) {
    if (!rule.key || !globals.includes(rule.global)) continue;
    if (rule.weak && !book.has(rule.key)) continue;
    book.add(TRACKERS[rule.key], { kind: 'global', detail: `window.${rule.global} is defined` });
  }
  for (const rule of CMP_RULES) {
    for (const global of rule.globals)
      if (globals.includes(global)) book.addCmp(rule.name, { kind: 'global', detail: `window.${global} is defined` });
  }
}

function collectCookies(book: Book, cookies: RuntimeCookie[]): void {
  for (const cookie of cookies) {
    const key = trackerForCookie(cookie.name, (known) => book.has(known));
    if (key) {
      const setBy =
        cookie.setBy === 'http'
          ? 'set by HTTP header'
          : cookie.script
            ? `set by script ${shorten(cookie.script, 200)}`
            : 'set by script';
      book.add(TRACKERS[key], { kind: 'cookie', detail: `${cookie.name} on ${cookie.domain} (${setBy})` });
      if (cookie.setBy === 'http' && book.isFirstParty(cookie.domain) && GOOGLE_KEYS.includes(key)) {
        book.addServer(
          { kind: 'cookie', detail: `${cookie.name} set by an HTTP response on the site's domain (server-set cookie)` },
          null,
        );
      }
    }
    const cmp = cmpForCookie(cookie.name);
    if (cmp) book.addCmp(cmp.name, { kind: 'cookie', detail: `${cookie.name} cookie` });
  }
}

/**
 * A hit in a known collection protocol sent to the site's own domain: first-party collection (a reverse proxy, a
 * server-side container or a self-hosted install). GA4 has its own, more specific evidence above.
 */
function noteFirstPartyHit(book: Book, account: Account, url: string, detail: string): void {
  account.endpoints.add(endpointOf(url));
  if (GOOGLE_KEYS.includes(account.info.key as (typeof GOOGLE_KEYS)[number])) return;
  account.serverSide = true;
  book.addServer(
    {
      kind: 'request',
      detail: `${account.info.name}: ${detail} sent to ${hostOf(url)}, the site's own domain (first-party collection)`,
      url: shorten(url),
    },
    originOf(url),
  );
}

/**
 * Requests CSP refused before the browser even started them (fetch, beacons and WebSockets under connect-src leave no
 * request event): known only from their violation report, they are listed as blocked like the others.
 */
function refusedBeforeSending(runtime: RuntimeFindings): RuntimeRequest[] {
  const seen = new Set(runtime.requests.map((request) => request.url));
  return runtime.cspViolations
    .filter((violation) => /^https?:\/\/[^/]+\/./.test(violation.url) && !seen.has(violation.url))
    .map((violation) => ({
      url: violation.url,
      method: 'GET',
      resourceType: /^script/.test(violation.directive)
        ? 'script'
        : /^img/.test(violation.directive)
          ? 'image'
          : 'fetch',
      status: null,
      failure: 'csp',
      frameUrl: null,
      atMs: 0,
      postData: null,
    }));
}
