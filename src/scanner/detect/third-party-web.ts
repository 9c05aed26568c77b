import thirdPartyWeb from 'third-party-web';
import type { Evidence, TrackerCategory } from '../schema.js';
import { TRACKERS, type TrackerKey } from '../signatures.js';
import type { RuntimeCookie } from '../capture-types.js';
import type { Account, Book } from './book.js';
import { idInCookieName, idsInRequests } from './generic-ids.js';
import { registrableDomainOfUrl } from './registrable-domain.js';
import { hostOf } from './urls.js';

/** third-party-web entities that our own rules already cover, and which of our trackers they belong to. */
const TPW_OWNERS: Record<string, TrackerKey[]> = {
  'Google Tag Manager': [
    'google_tag_manager',
    'google_tag',
    'google_analytics_4',
    'google_ads',
    'floodlight',
    'universal_analytics',
  ],
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
  Piwik: ['piwik_pro'],
  Plausible: ['plausible'],
  'Fathom Analytics': ['fathom'],
  Cabin: ['cabin'],
  Mixpanel: ['mixpanel'],
  'Amplitude Mobile Analytics': ['amplitude'],
  Heap: ['heap'],
  FullStory: ['fullstory'],
  'Yandex Metrica': ['yandex_metrica'],
  Hubspot: ['hubspot'],
  Criteo: ['criteo'],
  Taboola: ['taboola'],
  Outbrain: ['outbrain'],
  Intercom: ['intercom'],
};

const TPW_KEY_PREFIX = 'tpw:';

/** Entities whose hosts also serve social widgets, maps or images: their host alone does not name the tag. */
const BROAD_ENTITIES = ['Facebook', 'LinkedIn', 'LinkedIn Ads', 'TikTok', 'Pinterest', 'Snapchat', 'Bing Ads'];
const TPW_PRODUCTS = new Set(
  Object.keys(TPW_OWNERS).filter((name) => TPW_OWNERS[name].length === 1 && !BROAD_ENTITIES.includes(name)),
);

/**
 * Every third-party-web category, mapped to ours; null for the ones that do not describe tracking (cdn, hosting,
 * content, utility, other) and for consent providers, which are CMPs. test/unit/scanner/detection-rules.test.ts checks
 * that the installed third-party-web has no category missing here.
 */
export const TPW_CATEGORIES: Record<string, TrackerCategory | null> = {
  ad: 'advertising',
  analytics: 'analytics',
  'tag-manager': 'tag_manager',
  social: 'social',
  marketing: 'marketing',
  'customer-success': 'customer_success',
  video: 'video',
  'consent-provider': null,
  cdn: null,
  hosting: null,
  content: null,
  utility: null,
  other: null,
};

/** Links an unmatched URL to one of our trackers via third-party-web, or to a generic third-party-web tracker. */
export function classifyWithThirdPartyWeb(book: Book, raw: string, evidence: Evidence): Account | null {
  const host = hostOf(raw);
  if (!host || book.isFirstParty(host)) return null;
  let entity: ReturnType<typeof thirdPartyWeb.getEntity>;
  try {
    entity = thirdPartyWeb.getEntity(raw);
  } catch {
    return null;
  }
  if (!entity) return null;
  if (entity.category === 'consent-provider') {
    book.addCmp(entity.name, evidence);
    return null;
  }
  const owners = TPW_OWNERS[entity.name];
  // A vendor we have our own rules for is named by its host here too, even when our rules did not match the URL.
  const product = TPW_PRODUCTS.has(entity.name) ? owners?.[0] : undefined;
  const owner = owners?.find((key) => book.has(key)) ?? product;
  if (owner) {
    const account = book.add(TRACKERS[owner], evidence);
    if (product) account.namedByHost ??= host;
    return account;
  }
  const category = TPW_CATEGORIES[entity.category];
  if (!category) return null;
  return book.add(
    { key: `${TPW_KEY_PREFIX}${entity.name}`, name: entity.name, vendor: entity.company, category },
    evidence,
  );
}

/**
 * Ids of the vendors named through third-party-web alone, which no rule of ours reads: from their requests
 * (detect/generic-ids.ts) and from the names of the cookies their scripts wrote.
 */
export function addFallbackIds(book: Book, cookies: RuntimeCookie[]): void {
  for (const account of book.accounts.values()) {
    if (!account.info.key.startsWith(TPW_KEY_PREFIX) || account.ids.size) continue;
    for (const id of idsInRequests(account.requests).keys()) account.ids.add(id);
    const domains = new Set(account.requests.map((request) => registrableDomainOfUrl(request.url)).filter(Boolean));
    for (const cookie of cookies) {
      const token = domains.has(registrableDomainOfUrl(cookie.script)) ? idInCookieName(cookie.name) : null;
      if (token) account.ids.add(token);
    }
  }
}
