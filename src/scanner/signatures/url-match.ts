import type { TrackerKey } from './trackers.js';

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
