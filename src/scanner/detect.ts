import thirdPartyWeb from 'third-party-web';
import type { RuntimeFindings, RuntimeRequest } from './browser.ts';
import type { StaticFindings } from './parse.ts';
import type { ConsentResult, ConsentValue, CookieResult, Evidence, ServerSideResult, Tracker, TrackerCategory } from './schema.ts';
import type { WarningDraft } from './warnings.ts';
import {
  CMP_RULES,
  GLOBAL_RULES,
  TRACKERS,
  cmpForCode,
  cmpForCookie,
  cmpForUrl,
  consentCommandsInCode,
  isGoogleHost,
  matchCode,
  matchUrl,
  serverUrlsInCode,
  trackerForCookie,
  trackerForGoogleId,
  type TrackerInfo,
  type TrackerKey,
} from './signatures.ts';

/**
 * Turns what stage 1 (static HTML) and stage 2 (browser) saw into findings: trackers, consent, server-side tagging
 * and cookies. Either input may be missing when its stage failed.
 */

export interface Detection {
  trackers: Tracker[];
  consent: ConsentResult;
  serverSide: ServerSideResult;
  cookies: CookieResult[];
  warnings: WarningDraft[];
}

const MAX_EVIDENCE = 12;
const GOOGLE_KEYS: TrackerKey[] = ['google_analytics_4', 'universal_analytics', 'google_ads', 'floodlight'];

/** third-party-web entities that our own rules already cover, and which of our trackers they belong to. */
const TPW_OWNERS: Record<string, TrackerKey[]> = {
  'Google Tag Manager': ['google_tag_manager', 'google_tag', 'google_analytics_4', 'google_ads', 'floodlight', 'universal_analytics'],
  'Google Analytics': ['google_analytics_4', 'universal_analytics'],
  'Google/Doubleclick Ads': ['google_ads', 'floodlight'],
  Facebook: ['meta_pixel'],
  TikTok: ['tiktok_pixel'],
  'LinkedIn Ads': ['linkedin_insight'],
  LinkedIn: ['linkedin_insight'],
  'Bing Ads': ['bing_uet'],
  Pinterest: ['pinterest_tag'],
  Snapchat: ['snap_pixel'],
  'Twitter Online Conversion Tracking': ['x_pixel'],
  Hotjar: ['hotjar'],
  Clarity: ['clarity'],
  Matomo: ['matomo'],
  Segment: ['segment'],
};

const TPW_CATEGORIES: Record<string, TrackerCategory> = {
  ad: 'advertising',
  analytics: 'analytics',
  'tag-manager': 'tag_manager',
  social: 'social',
  marketing: 'marketing',
};

/** Registrable domain ("eTLD+1") of a host, via third-party-web's public-suffix aware helper. */
export function registrableDomain(host: string): string {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  try {
    return thirdPartyWeb.getRootDomain(`https://${bare.includes(':') ? `[${bare}]` : bare}/`) || bare;
  } catch {
    return bare;
  }
}

function hostOf(raw: string): string | null {
  try {
    return new URL(raw).hostname.toLowerCase();
  } catch {
    return null;
  }
}

function originOf(raw: string): string | null {
  try {
    return new URL(raw).origin;
  } catch {
    return null;
  }
}

function shorten(raw: string, max = 300): string {
  return raw.length > max ? `${raw.slice(0, max - 1)}…` : raw;
}

interface Account {
  info: TrackerInfo;
  ids: Set<string>;
  evidence: Evidence[];
  evidenceKeys: Set<string>;
  firstParty: boolean;
  serverSide: boolean;
  /** Requests attributed to the tracker in the browser. */
  requests: RuntimeRequest[];
  /** gcs values of its data hits (Google only); null when the hit had none. */
  hitsGcs: Array<string | null>;
}

class Book {
  readonly accounts = new Map<string, Account>();
  readonly cmp = new Map<string, Evidence[]>();
  readonly serverEvidence: Evidence[] = [];
  readonly serverKeys = new Set<string>();
  readonly endpoints = new Set<string>();

  constructor(readonly siteDomain: string) {}

  isFirstParty(host: string | null): boolean {
    return !!host && registrableDomain(host) === this.siteDomain;
  }

  account(info: TrackerInfo): Account {
    let account = this.accounts.get(info.key);
    if (!account) {
      account = { info, ids: new Set(), evidence: [], evidenceKeys: new Set(), firstParty: false, serverSide: false, requests: [], hitsGcs: [] };
      this.accounts.set(info.key, account);
    }
    return account;
  }

  has(key: string): boolean {
    return this.accounts.has(key);
  }

  add(info: TrackerInfo, evidence: Evidence, ids: Array<string | null> = []): Account {
    const account = this.account(info);
    for (const id of ids) if (id) account.ids.add(id);
    const dedupe = `${evidence.kind}|${evidence.detail}|${evidence.url ?? ''}`;
    if (!account.evidenceKeys.has(dedupe)) {
      account.evidenceKeys.add(dedupe);
      if (account.evidence.length < MAX_EVIDENCE) account.evidence.push(evidence);
    }
    return account;
  }

  addCmp(name: string, evidence: Evidence) {
    const list = this.cmp.get(name) ?? [];
    if (list.length < MAX_EVIDENCE && !list.some((item) => item.kind === evidence.kind && item.detail === evidence.detail && item.url === evidence.url)) list.push(evidence);
    this.cmp.set(name, list);
  }

  addServer(evidence: Evidence, endpoint: string | null) {
    const dedupe = `${evidence.kind}|${evidence.detail}|${evidence.url ?? ''}`;
    if (!this.serverKeys.has(dedupe) && this.serverEvidence.length < MAX_EVIDENCE) {
      this.serverKeys.add(dedupe);
      this.serverEvidence.push(evidence);
    }
    if (endpoint) this.endpoints.add(endpoint);
  }
}

function kindForRequest(request: RuntimeRequest): Evidence['kind'] {
  return request.resourceType === 'script' ? 'script' : 'request';
}

/** Our tracker info for a Google id, creating nothing. */
function infoForId(id: string): TrackerInfo | null {
  const key = trackerForGoogleId(id);
  return key ? TRACKERS[key] : null;
}

/** Links an unmatched URL to one of our trackers via third-party-web, or to a generic third-party-web tracker. */
function classifyWithThirdPartyWeb(book: Book, raw: string, evidence: Evidence): Account | null {
  const host = hostOf(raw);
  if (!host || book.isFirstParty(host)) return null;
  let entity: ReturnType<typeof thirdPartyWeb.getEntity>;
  try {
    entity = thirdPartyWeb.getEntity(raw);
  } catch {
    return null;
  }
  if (!entity) return null;
  const owners = TPW_OWNERS[entity.name];
  const owner = owners?.find((key) => book.has(key));
  if (owner) return book.add(TRACKERS[owner], evidence);
  const category = TPW_CATEGORIES[entity.category];
  if (!category) return null;
  return book.add({ key: `tpw:${entity.name}`, name: entity.name, vendor: entity.company, category }, evidence);
}

interface ConsentCommand {
  command: 'default' | 'update';
  values: Record<string, string>;
  source: 'code' | 'dataLayer';
}

function consentFromDataLayer(dataLayer: unknown[]): { commands: ConsentCommand[]; configs: Array<{ id: string; params: Record<string, unknown> }> } {
  const commands: ConsentCommand[] = [];
  const configs: Array<{ id: string; params: Record<string, unknown> }> = [];
  for (const entry of dataLayer) {
    if (!Array.isArray(entry)) continue;
    if (entry[0] === 'consent' && (entry[1] === 'default' || entry[1] === 'update') && entry[2] && typeof entry[2] === 'object') {
      const values: Record<string, string> = {};
      for (const [key, value] of Object.entries(entry[2] as Record<string, unknown>)) values[key] = Array.isArray(value) ? JSON.stringify(value) : String(value);
      commands.push({ command: entry[1], values, source: 'dataLayer' });
    }
    if (entry[0] === 'config' && typeof entry[1] === 'string') {
      configs.push({ id: entry[1], params: entry[2] && typeof entry[2] === 'object' ? (entry[2] as Record<string, unknown>) : {} });
    }
  }
  return { commands, configs };
}

function consentValue(value: string | undefined): ConsentValue | null {
  return value === 'granted' || value === 'denied' ? value : null;
}

export function detect(siteUrl: string, staticFindings: StaticFindings | null, runtime: RuntimeFindings | null): Detection {
  const siteHost = hostOf(siteUrl) ?? '';
  const book = new Book(registrableDomain(siteHost));
  const warnings: WarningDraft[] = [];
  const codeCommands: ConsentCommand[] = [];
  const serverUrls: Array<{ param: string; url: string; id: string | null; via: Evidence['kind'] }> = [];

  // ---- Stage 1: static HTML ----
  if (staticFindings) {
    const scriptUrls = [
      ...staticFindings.scripts.filter((script) => script.src).map((script) => ({ url: script.src!, gated: script.gated })),
      ...staticFindings.preloads.map((url) => ({ url, gated: null })),
    ];
    for (const { url, gated } of scriptUrls) {
      const note = gated ? ` (held until consent: ${gated})` : '';
      const host = hostOf(url);
      const matches = matchUrl(url);
      for (const match of matches) {
        const account = book.add(TRACKERS[match.key], { kind: 'script', detail: `<script src> — ${match.detail}${note}`, url: shorten(url, 2000) }, match.ids);
        if (book.isFirstParty(host)) account.firstParty = true;
      }
      const cmp = cmpForUrl(url);
      if (cmp) book.addCmp(cmp.name, { kind: 'script', detail: `<script src> from ${host}`, url: shorten(url, 2000) });
      if (!matches.length && !cmp) classifyWithThirdPartyWeb(book, url, { kind: 'script', detail: `<script src> from ${host}${note}`, url: shorten(url, 2000) });
    }
    for (const script of staticFindings.scripts) {
      if (script.src) continue;
      const note = script.gated ? ` (held until consent: ${script.gated})` : '';
      for (const match of matchCode(script.code)) {
        book.add(TRACKERS[match.key], { kind: 'inline', detail: `${match.detail}${note}` }, [match.id]);
      }
      const cmp = cmpForCode(script.code);
      if (cmp) book.addCmp(cmp.name, { kind: 'inline', detail: `${cmp.name} configuration in an inline script` });
      for (const command of consentCommandsInCode(script.code)) codeCommands.push({ ...command, source: 'code' });
      for (const found of serverUrlsInCode(script.code)) serverUrls.push({ ...found, id: configIdAround(script.code, found.url), via: 'inline' });
    }
    for (const { tag, url } of staticFindings.noscript) {
      const matches = matchUrl(url);
      for (const match of matches) book.add(TRACKERS[match.key], { kind: 'noscript', detail: `<noscript><${tag}> — ${match.detail}`, url: shorten(url, 2000) }, match.ids);
      if (!matches.length) classifyWithThirdPartyWeb(book, url, { kind: 'noscript', detail: `<noscript><${tag}> from ${hostOf(url)}`, url: shorten(url, 2000) });
    }
  }

  // ---- Stage 2: browser ----
  let dataLayerCommands: ConsentCommand[] = [];
  if (runtime) {
    const { commands, configs } = consentFromDataLayer(runtime.dataLayer);
    dataLayerCommands = commands;
    for (const config of configs) {
      for (const param of ['transport_url', 'server_container_url']) {
        const value = config.params[param];
        if (typeof value === 'string' && /^https?:\/\//.test(value)) serverUrls.push({ param, url: value, id: config.id, via: 'global' });
      }
    }
    for (const request of runtime.requests) {
      if (!/^https?:/.test(request.url)) continue;
      const host = hostOf(request.url);
      const firstParty = book.isFirstParty(host);
      const kind = kindForRequest(request);
      const matches = matchUrl(request.url);
      for (const match of matches) {
        const account = book.add(TRACKERS[match.key], { kind, detail: match.detail, url: shorten(request.url) }, match.ids);
        account.requests.push(request);
        if (match.role === 'hit' && GOOGLE_KEYS.includes(match.key)) account.hitsGcs.push(match.gcs ?? null);
        if (firstParty) account.firstParty = true;
        const origin = originOf(request.url);
        if (match.key === 'google_analytics_4' && match.role === 'hit' && host && !isGoogleHost(host)) {
          account.serverSide = true;
          book.addServer({ kind: 'request', detail: `GA4 hits sent to ${host}, not to Google: a server-side container`, url: shorten(request.url) }, origin);
        }
        const loader = match.role === 'loader' ? /\/(gtm\.js|gtag\/js)$/.exec(new URL(request.url).pathname)?.[1] : undefined;
        if (loader && host && !isGoogleHost(host)) {
          account.serverSide = true;
          book.addServer({ kind: 'script', detail: `${loader} served from ${host}${firstParty ? " (the site's own domain)" : ''}, not from Google`, url: shorten(request.url) }, origin);
        }
      }
      if (!matches.length) {
        const cmp = cmpForUrl(request.url);
        if (cmp) book.addCmp(cmp.name, { kind, detail: `${request.resourceType} from ${host}`, url: shorten(request.url) });
        else {
          const account = classifyWithThirdPartyWeb(book, request.url, { kind, detail: `${request.resourceType} to ${host}`, url: shorten(request.url) });
          account?.requests.push(request);
        }
      }
    }
    for (const id of runtime.googleTagIds) {
      const info = infoForId(id);
      if (info) book.add(info, { kind: 'global', detail: `window.google_tag_manager has ${id}` }, [id]);
    }
    const gtm = book.accounts.get('google_tag_manager');
    if (gtm && runtime.googleTagIds.some((id) => id.startsWith('GTM-')) && !gtm.requests.some((request) => matchUrl(request.url).some((match) => match.role === 'loader'))) {
      gtm.serverSide = true;
      book.addServer({ kind: 'global', detail: 'GTM is running but no gtm.js request was seen: loaded through a custom loader path (typical of a server-side container)' }, null);
    }
    for (const rule of GLOBAL_RULES) {
      if (!rule.key || !runtime.globals.includes(rule.global)) continue;
      if (rule.weak && !book.has(rule.key)) continue;
      book.add(TRACKERS[rule.key], { kind: 'global', detail: `window.${rule.global} is defined` });
    }
    for (const rule of CMP_RULES) {
      for (const global of rule.globals) if (runtime.globals.includes(global)) book.addCmp(rule.name, { kind: 'global', detail: `window.${global} is defined` });
    }
    for (const cookie of runtime.cookies) {
      const key = trackerForCookie(cookie.name);
      if (key) {
        const setBy = cookie.setBy === 'http' ? 'set by HTTP header' : cookie.script ? `set by script ${shorten(cookie.script, 200)}` : 'set by script';
        book.add(TRACKERS[key], { kind: 'cookie', detail: `${cookie.name} on ${cookie.domain} (${setBy})` });
        if (cookie.setBy === 'http' && book.isFirstParty(cookie.domain) && GOOGLE_KEYS.includes(key)) {
          book.addServer({ kind: 'cookie', detail: `${cookie.name} set by an HTTP response on the site's domain (server-set cookie)` }, null);
        }
      }
      const cmp = cmpForCookie(cookie.name);
      if (cmp) book.addCmp(cmp.name, { kind: 'cookie', detail: `${cookie.name} cookie` });
    }
    // A banner of a known CMP found only through its DOM container: named, without evidence of the kinds above.
    if (runtime.banner.cmp && !book.cmp.has(runtime.banner.cmp)) book.cmp.set(runtime.banner.cmp, []);
    if (runtime.refused.length) {
      warnings.push({ code: 'requests_refused', facts: { kind: 'refused', count: runtime.refused.length, example: shorten(runtime.refused[0].url, 120) } });
    }
  }

  // transport_url / server_container_url
  for (const found of serverUrls) {
    const origin = originOf(found.url);
    const evidence: Evidence = { kind: found.via === 'global' ? 'global' : 'inline', detail: `${found.param} set${found.id ? ` for ${found.id}` : ''}: ${shorten(found.url, 200)}`, url: shorten(found.url, 2000) };
    book.addServer(evidence, origin);
    const info = found.id ? infoForId(found.id) : null;
    const targets = info ? [info.key] : GOOGLE_KEYS.filter((key) => book.has(key));
    for (const key of targets) {
      const account = book.add(TRACKERS[key as TrackerKey], evidence, found.id ? [found.id] : []);
      account.serverSide = true;
    }
  }
  // Hits to a known server-side endpoint make that tracker server-side, whatever the vendor.
  for (const account of book.accounts.values()) {
    if (account.requests.some((request) => book.endpoints.has(originOf(request.url) ?? ''))) account.serverSide = true;
  }

  // ---- Consent ----
  const commands = runtime && dataLayerCommands.length ? dataLayerCommands : [...codeCommands, ...dataLayerCommands];
  const defaultCommand = commands.find((command) => command.command === 'default' && !command.values.region) ?? commands.find((command) => command.command === 'default');
  const googleHits = runtime ? GOOGLE_KEYS.flatMap((key) => book.accounts.get(key)?.hitsGcs ?? []) : [];
  const gcsValues = runtime ? runtime.requests.map((request) => matchUrl(request.url).find((match) => match.gcs || match.gcd)).filter((match) => match !== undefined) : [];
  const gcs = gcsValues.find((match) => match.gcs)?.gcs;
  const gcd = gcsValues.find((match) => match.gcd)?.gcd;
  const detected = commands.length > 0 || !!gcs || !!gcd;
  const v2Keys = commands.some((command) => 'ad_user_data' in command.values || 'ad_personalization' in command.values);
  const defaults = {
    ad_storage: consentValue(defaultCommand?.values.ad_storage),
    analytics_storage: consentValue(defaultCommand?.values.analytics_storage),
    ad_user_data: consentValue(defaultCommand?.values.ad_user_data),
    ad_personalization: consentValue(defaultCommand?.values.ad_personalization),
  };
  const deniedByDefault = defaults.ad_storage === 'denied' || defaults.analytics_storage === 'denied';
  const hasGoogleTag = ['google_tag_manager', 'google_tag', ...GOOGLE_KEYS].some((key) => book.has(key));
  let mode: 'basic' | 'advanced' | null = null;
  if (runtime && detected && hasGoogleTag && (deniedByDefault || (gcs && gcs !== 'G111'))) {
    const deniedHits = googleHits.filter((value) => value === null || value !== 'G111');
    if (deniedHits.length > 0) mode = 'advanced';
    else if (googleHits.length === 0) mode = 'basic';
  }
  const grantedWithoutInteraction = dataLayerCommands.filter((command) => command.command === 'update' && Object.values(command.values).includes('granted'));
  if (grantedWithoutInteraction.length) {
    warnings.push({ code: 'consent_granted_without_interaction', facts: { kind: 'consent_without_interaction' } });
  }

  const cmpEntries = [...book.cmp.entries()].sort((a, b) => b[1].length - a[1].length);
  const cmp = cmpEntries.length ? { name: cmpEntries[0][0], evidence: cmpEntries[0][1] } : null;

  // ---- Trackers ----
  const trackers: Tracker[] = [...book.accounts.values()]
    .filter((account) => !(account.info.key === 'google_tag' && account.ids.size === 0 && book.has('google_tag_manager') && account.requests.length === 0))
    .map((account) => ({
      key: account.info.key,
      name: account.info.name,
      vendor: account.info.vendor,
      category: account.info.category,
      ids: [...account.ids].sort(),
      evidence: account.evidence,
      first_party: account.firstParty,
      server_side: account.serverSide,
      fires_before_consent: runtime ? account.info.category !== 'tag_manager' && account.requests.length > 0 : null,
    }))
    .sort((a, b) => a.category.localeCompare(b.category) || a.name.localeCompare(b.name));

  const tagsBeforeConsent = trackers
    .filter((tracker) => tracker.fires_before_consent)
    .map((tracker) => {
      const account = book.accounts.get(tracker.key)!;
      const hits = account.hitsGcs;
      return {
        key: tracker.key,
        name: tracker.name,
        requests: account.requests.length,
        first_url: shorten(account.requests[0].url),
        cookieless: hits.length > 0 && hits.every((value) => value === 'G100'),
      };
    });

  // ---- Cookies ----
  const cookies: CookieResult[] = (runtime?.cookies ?? []).slice(0, 300).map((cookie) => {
    const key = trackerForCookie(cookie.name);
    return {
      name: cookie.name,
      domain: cookie.domain,
      first_party: book.isFirstParty(cookie.domain),
      ...(key ? { tracker: key } : {}),
      set_by: cookie.setBy,
      expires: cookie.expires > 0 ? new Date(cookie.expires * 1000).toISOString() : null,
    };
  });

  return {
    trackers,
    consent: {
      cmp,
      tcf_api: runtime ? runtime.tcfApi : null,
      consent_mode: {
        detected,
        version: detected ? (v2Keys || gcd ? 'v2' : 'v1') : null,
        mode,
        defaults,
        ...(gcs ? { gcs } : {}),
        ...(gcd ? { gcd } : {}),
      },
      banner_detected: runtime ? runtime.banner.visible : null,
      tags_before_consent: tagsBeforeConsent,
    },
    serverSide: { detected: book.serverEvidence.length > 0 || book.endpoints.size > 0, evidence: book.serverEvidence, endpoints: [...book.endpoints].sort() },
    cookies,
    warnings,
  };
}

/** The gtag('config', ID, {...}) call a transport/server URL appears in, if any. */
function configIdAround(code: string, url: string): string | null {
  const index = code.indexOf(url);
  if (index < 0) return null;
  const before = code.slice(Math.max(0, index - 400), index);
  const calls = [...before.matchAll(/gtag\(\s*["']config["']\s*,\s*["']([A-Z]{1,3}-[A-Z0-9-]+)["']/g)];
  return calls.length ? calls[calls.length - 1][1] : null;
}
