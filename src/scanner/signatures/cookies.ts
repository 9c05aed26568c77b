import type { TrackerKey } from './trackers.js';

/** Cookie name → tracker. */
const COOKIE_RULES: Array<[RegExp, TrackerKey]> = [
  [/^_ga_[A-Z0-9]+$/, 'google_analytics_4'],
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
  [/^_pk_(id|ses|ref|cvar|hsr)\.\d+\./, 'matomo'],
  [/^ajs_(anonymous|user)_id$/, 'segment'],
  [
    /^rl_(anonymous_id|user_id|trait|group_id|group_trait|page_init_referrer|page_init_referring_domain|session)$/,
    'rudderstack',
  ],
  [/^ph_phc_\w+_posthog$/, 'posthog'],
  [/^_pk_(id|ses|ref)\.[0-9a-f-]{36}\./, 'piwik_pro'],
  [/^cfz_/, 'cloudflare_zaraz'],
  [/^TCPID$/, 'tagcommander'],
  [/^ENSIGHTEN_PRIVACY_/, 'ensighten'],
  [/^FP(ID|LC|GCLAW|GCLDC)$/, 'google_analytics_4'],
  [/^mp_[0-9a-f]{32}_mixpanel$/, 'mixpanel'],
  [/^AMP_[0-9a-f]{10}$|^AMP_MKTG_[0-9a-f]{10}$|^amp_[0-9a-f]{6}$/, 'amplitude'],
  [/^_hp2_(id|ses_props|props)\.\d+$/, 'heap'],
  [/^fs_(uid|lua|cid)$/, 'fullstory'],
  [/^_ym_(uid|d|isad|visorc)$/, 'yandex_metrica'],
  [/^(__hstc|__hssc|__hssrc|hubspotutk)$/, 'hubspot'],
  [/^cto_(bundle|bidid)$/, 'criteo'],
  [/^(t_gid|t_pt_gid|taboola_session_id)$/, 'taboola'],
  [/^(obuid|_obid)$/, 'outbrain'],
  [/^intercom-(id|session|device-id)-[a-z0-9]+$/, 'intercom'],
];

/**
 * The tracker owning a cookie. `_ga` is written by both Google Analytics 4 and Universal Analytics (analytics.js), so
 * it belongs to whichever of them the scan found otherwise (`found`), GA4 first; on its own it names neither.
 */
export function trackerForCookie(name: string, found: (key: TrackerKey) => boolean = () => false): TrackerKey | null {
  if (name === '_ga')
    return found('google_analytics_4')
      ? 'google_analytics_4'
      : found('universal_analytics')
        ? 'universal_analytics'
        : null;
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
  { global: 'rudderanalytics', key: 'rudderstack' },
  { global: 'posthog', key: 'posthog' },
  { global: 'plausible', key: 'plausible' },
  { global: 'umami', key: 'umami', weak: true },
  { global: 'fathom', key: 'fathom', weak: true },
  { global: 'goatcounter', key: 'goatcounter', weak: true },
  { global: 'zaraz', key: 'cloudflare_zaraz' },
  { global: 'ppms', key: 'piwik_pro' },
  { global: 'MatomoTagManager', key: 'matomo_tag_manager' },
  { global: 'tc_vars', key: 'tagcommander', weak: true },
  { global: 'Bootstrapper', key: 'ensighten', weak: true },
  { global: 'mixpanel', key: 'mixpanel' },
  { global: 'amplitude', key: 'amplitude', weak: true },
  { global: 'heap', key: 'heap', weak: true },
  { global: 'FS', key: 'fullstory', weak: true },
  { global: 'ym', key: 'yandex_metrica', weak: true },
  { global: '_hsq', key: 'hubspot' },
  { global: 'criteo_q', key: 'criteo' },
  { global: '_tfa', key: 'taboola' },
  { global: 'obApi', key: 'outbrain' },
  { global: 'Intercom', key: 'intercom' },
];
