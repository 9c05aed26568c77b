import { matchCode, matchUrl, TRACKERS, type TrackerKey, trackerForGoogleId } from '../signatures.js';

/** One tag a container is configured with, before it is compared with what the scan saw firing. */
export interface ConfiguredTag {
  /** The container's tag type: `__googtag`, `__html`, a custom template `__cvt_…`. */
  type: string;
  /** The tracker key (as in `trackers[].key`), when the tag's type or its code names one. */
  key: TrackerKey | `tpw:${string}` | null;
  vendor: string;
  ids: string[];
  /** Plain terms: "page view", "scroll 50 %", "custom event purchase", "consent: ad_storage". */
  triggers: string[];
}

type Item = Record<string, unknown>;

/** Tags that only listen for triggers (scroll, clicks, timers, forms…): GTM's machinery, not tags of a vendor. */
const LISTENERS = new Set(['__sdl', '__cl', '__lcl', '__tl', '__evl', '__fsl', '__ytl', '__hl', '__jel', '__paused']);

const GOOGLE_TYPES: Record<string, string> = {
  __googtag: 'vtp_tagId',
  __gaawc: 'vtp_measurementId',
  __gaawe: 'vtp_measurementIdOverride',
  __ga4: 'vtp_measurementId',
  __ua: 'vtp_trackingId',
  __flc: 'vtp_advertiserId',
  __fls: 'vtp_advertiserId',
};

const text = (value: unknown) => (typeof value === 'string' && value.length < 4000 ? value : null);

export function tagFromGtm(tag: Item): Omit<ConfiguredTag, 'triggers'> | null {
  const type = text(tag.function);
  if (!type || LISTENERS.has(type)) return null;
  if (type === '__awct' || type === '__sp') return googleAds(type, tag);
  if (type in GOOGLE_TYPES) return googleTag(type, text(tag[GOOGLE_TYPES[type]]));
  if (type === '__baut') return known(type, 'bing_uet', [text(tag.vtp_tagId)]);
  if (type === '__html') return tagFromCode(type, text(tag.vtp_html) ?? '', 'custom HTML');
  if (type === '__img') return tagFromUrl(type, text(tag.vtp_url) ?? '');
  return { type, key: null, vendor: type.startsWith('__cvt_') ? 'custom template' : type, ids: [] };
}

function googleAds(type: string, tag: Item): Omit<ConfiguredTag, 'triggers'> {
  const id = text(tag.vtp_conversionId);
  const label = text(tag.vtp_conversionLabel);
  return known(type, 'google_ads', [id ? `AW-${id.replace(/^AW-/, '')}${label ? `/${label}` : ''}` : null]);
}

function googleTag(type: string, id: string | null): Omit<ConfiguredTag, 'triggers'> {
  const prefix = type === '__flc' || type === '__fls' ? 'DC-' : '';
  const full = id ? `${prefix}${id}` : null;
  const key = (full && trackerForGoogleId(full)) || (type === '__ua' ? 'universal_analytics' : null);
  return key ? known(type, key, [full]) : { type, key: 'google_tag', vendor: TRACKERS.google_tag.name, ids: [] };
}

function known(type: string, key: TrackerKey, ids: Array<string | null>): Omit<ConfiguredTag, 'triggers'> {
  return { type, key, vendor: TRACKERS[key].name, ids: ids.filter((id): id is string => !!id) };
}

/** Custom code: the vendor our code rules (and URL rules, for its script src and pixels) find in it. */
export function tagFromCode(type: string, html: string, unknownVendor: string): Omit<ConfiguredTag, 'triggers'> {
  const matches = matchCode(html);
  const key = matches[0]?.key;
  if (key)
    return known(
      type,
      key,
      matches.filter((match) => match.key === key).map((match) => match.id),
    );
  const src = /\bsrc\s*=\s*["']([^"']+)["']/.exec(html)?.[1];
  return src ? tagFromUrl(type, src) : { type, key: null, vendor: unknownVendor, ids: [] };
}

/** An image or script URL: the vendor our URL rules find in it. */
export function tagFromUrl(type: string, url: string): Omit<ConfiguredTag, 'triggers'> {
  const match = matchUrl(url.startsWith('//') ? `https:${url}` : url)[0];
  return match ? known(type, match.key, match.ids) : { type, key: null, vendor: 'custom image', ids: [] };
}
