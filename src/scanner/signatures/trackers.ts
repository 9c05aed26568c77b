import type { TrackerCategory } from '../schema.js';

export interface TrackerInfo {
  key: string;
  name: string;
  vendor: string;
  category: TrackerCategory;
  /** The vendor stopped processing data for the product on this date (ISO 8601): it only costs page weight. */
  discontinuedSince?: string;
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
    discontinuedSince: '2023-07-01',
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
  rudderstack: { key: 'rudderstack', name: 'RudderStack', vendor: 'RudderStack', category: 'customer_data_platform' },
  piwik_pro: { key: 'piwik_pro', name: 'Piwik PRO', vendor: 'Piwik PRO', category: 'analytics' },
  posthog: { key: 'posthog', name: 'PostHog', vendor: 'PostHog', category: 'analytics' },
  plausible: { key: 'plausible', name: 'Plausible Analytics', vendor: 'Plausible Insights', category: 'analytics' },
  umami: { key: 'umami', name: 'Umami', vendor: 'Umami Software', category: 'analytics' },
  fathom: { key: 'fathom', name: 'Fathom Analytics', vendor: 'Conva Ventures', category: 'analytics' },
  simple_analytics: {
    key: 'simple_analytics',
    name: 'Simple Analytics',
    vendor: 'Simple Analytics',
    category: 'analytics',
  },
  goatcounter: { key: 'goatcounter', name: 'GoatCounter', vendor: 'GoatCounter', category: 'analytics' },
  pirsch: { key: 'pirsch', name: 'Pirsch Analytics', vendor: 'Emvi Software', category: 'analytics' },
  cabin: { key: 'cabin', name: 'Cabin', vendor: 'Cabin', category: 'analytics' },
  counter_dev: { key: 'counter_dev', name: 'Counter.dev', vendor: 'Counter.dev', category: 'analytics' },
  ackee: { key: 'ackee', name: 'Ackee', vendor: 'Ackee', category: 'analytics' },
  cloudflare_web_analytics: {
    key: 'cloudflare_web_analytics',
    name: 'Cloudflare Web Analytics',
    vendor: 'Cloudflare',
    category: 'analytics',
  },
  vercel_web_analytics: {
    key: 'vercel_web_analytics',
    name: 'Vercel Web Analytics',
    vendor: 'Vercel',
    category: 'analytics',
  },
  swetrix: { key: 'swetrix', name: 'Swetrix', vendor: 'Swetrix', category: 'analytics' },
  mixpanel: { key: 'mixpanel', name: 'Mixpanel', vendor: 'Mixpanel', category: 'analytics' },
  amplitude: { key: 'amplitude', name: 'Amplitude', vendor: 'Amplitude', category: 'analytics' },
  heap: { key: 'heap', name: 'Heap', vendor: 'Contentsquare', category: 'analytics' },
  fullstory: { key: 'fullstory', name: 'FullStory', vendor: 'FullStory', category: 'session_replay' },
  yandex_metrica: { key: 'yandex_metrica', name: 'Yandex Metrica', vendor: 'Yandex', category: 'analytics' },
  hubspot: { key: 'hubspot', name: 'HubSpot', vendor: 'HubSpot', category: 'marketing' },
  criteo: { key: 'criteo', name: 'Criteo', vendor: 'Criteo', category: 'advertising' },
  taboola: { key: 'taboola', name: 'Taboola Pixel', vendor: 'Taboola', category: 'advertising' },
  outbrain: { key: 'outbrain', name: 'Outbrain Pixel', vendor: 'Outbrain', category: 'advertising' },
  intercom: { key: 'intercom', name: 'Intercom', vendor: 'Intercom', category: 'customer_success' },
  cloudflare_zaraz: {
    key: 'cloudflare_zaraz',
    name: 'Cloudflare Zaraz',
    vendor: 'Cloudflare',
    category: 'tag_manager',
  },
  matomo_tag_manager: {
    key: 'matomo_tag_manager',
    name: 'Matomo Tag Manager',
    vendor: 'Matomo',
    category: 'tag_manager',
  },
  tagcommander: { key: 'tagcommander', name: 'TagCommander', vendor: 'Commanders Act', category: 'tag_manager' },
  ensighten: { key: 'ensighten', name: 'Ensighten', vendor: 'Ensighten', category: 'tag_manager' },
} as const satisfies Record<string, TrackerInfo>;

export type TrackerKey = keyof typeof TRACKERS;

/** Evidence text of a Meta event sent with an eventID: the key that deduplicates it with Conversions API events. */
export const META_EVENT_ID_NOTE = 'eventID set (deduplication with the Conversions API)';

/** Google ids by prefix. */
export function trackerForGoogleId(id: string): TrackerKey | null {
  if (/^GTM-[A-Z0-9]{4,10}$/.test(id)) return 'google_tag_manager';
  if (/^G-[A-Z0-9]{4,14}$/.test(id)) return 'google_analytics_4';
  if (/^UA-\d{4,10}-\d{1,4}$/.test(id)) return 'universal_analytics';
  if (/^AW-\d{6,12}$/.test(id)) return 'google_ads';
  if (/^DC-\d{5,10}$/.test(id)) return 'floodlight';
  return null;
}
