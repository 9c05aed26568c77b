import { createRequire } from 'node:module';
import type { ScanResult } from '../src/scanner/index.js';
import type { ExpectedVendor, FixtureExpectation } from '../test/fixtures/scanner/expectations.js';

/**
 * Scoring for the scanner accuracy benchmark: what a system reported for a page against the page's expected answer,
 * as true/false positives and false negatives per dimension (vendors, ids, first-party collection, named CMP, and the
 * domains listed as unlisted trackers, on the pages whose answer says which should be).
 */

const thirdPartyWeb: {
  getEntity(url: string): { name: string; categories: string[] } | undefined;
} = createRequire(import.meta.url)('third-party-web');

const TRACKING_CATEGORIES = new Set(['analytics', 'ad', 'tag-manager', 'social', 'marketing', 'customer-success']);
export const DIMENSIONS = ['vendors', 'ids', 'first_party', 'cmp', 'unlisted'] as const;
export type Dimension = (typeof DIMENSIONS)[number];
export interface Counts {
  tp: number;
  fp: number;
  fn: number;
}
export type PageScore = Record<Dimension, Counts> & { misses: string[] };

/** What a system reported for one page, reduced to what is scored. */
export interface Reported {
  trackers: Array<{ label: string; ids: string[]; first_party: boolean }>;
  cmp: string | null;
  /** Registrable domains (a first-party proxy: its host) reported as unlisted trackers; none when absent. */
  unlisted?: string[];
}

const normalise = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');
const matches = (vendor: ExpectedVendor, label: string) =>
  vendor.match.some((token) => normalise(label).includes(token));

/** Pairs reported trackers with expected vendors (each used once); the rest are false positives / negatives. */
function pair(expected: ExpectedVendor[], reported: Reported['trackers'], misses: string[], what: string): Counts {
  const unmatched = new Set(expected);
  let fp = 0;
  for (const tracker of reported) {
    const vendor = [...unmatched].find((candidate) => matches(candidate, tracker.label));
    if (vendor) unmatched.delete(vendor);
    else {
      fp++;
      misses.push(`${what} extra: ${tracker.label}`);
    }
  }
  for (const vendor of unmatched) misses.push(`${what} missed: ${vendor.vendor}`);
  return { tp: expected.length - unmatched.size, fp, fn: unmatched.size };
}

export function scorePage(expected: FixtureExpectation, reported: Reported): PageScore {
  const misses: string[] = [];
  const vendors = pair(expected.vendors, reported.trackers, misses, 'vendor');
  const firstParty = pair(
    expected.vendors.filter((vendor) => vendor.first_party),
    reported.trackers.filter((tracker) => tracker.first_party),
    misses,
    'first-party',
  );
  const truth = new Set(expected.vendors.flatMap((vendor) => vendor.ids.map((id) => id.toLowerCase())));
  const optional = new Set(
    expected.vendors.flatMap((vendor) => (vendor.optional_ids ?? []).map((id) => id.toLowerCase())),
  );
  const found = new Set(reported.trackers.flatMap((tracker) => tracker.ids.map((id) => id.toLowerCase())));
  const ids: Counts = { tp: 0, fp: 0, fn: 0 };
  for (const id of found) {
    if (truth.has(id)) ids.tp++;
    else if (!optional.has(id)) {
      ids.fp++;
      misses.push(`id extra: ${id}`);
    }
  }
  for (const id of truth)
    if (!found.has(id)) {
      ids.fn++;
      misses.push(`id missed: ${id}`);
    }
  const cmpRight =
    !!expected.cmp &&
    !!reported.cmp &&
    expected.cmp.match.some((token) => normalise(reported.cmp ?? '').includes(token));
  const cmp: Counts = {
    tp: cmpRight ? 1 : 0,
    fp: reported.cmp && !cmpRight ? 1 : 0,
    fn: expected.cmp && !cmpRight ? 1 : 0,
  };
  if (cmp.fp) misses.push(`cmp extra: ${reported.cmp}`);
  if (cmp.fn) misses.push(`cmp missed: ${expected.cmp?.name}`);
  const unlisted = scoreUnlisted(expected.unlisted, reported.unlisted ?? [], misses);
  return { vendors, ids, first_party: firstParty, cmp, unlisted, misses };
}

/** Listed or not, per domain; pages whose answer does not say (`unlisted` absent) are not scored. */
function scoreUnlisted(expected: string[] | undefined, reported: string[], misses: string[]): Counts {
  if (!expected) return { tp: 0, fp: 0, fn: 0 };
  const truth = new Set(expected);
  const found = new Set(reported);
  const counts: Counts = { tp: 0, fp: 0, fn: 0 };
  for (const domain of found) {
    if (truth.has(domain)) counts.tp++;
    else {
      counts.fp++;
      misses.push(`unlisted extra: ${domain}`);
    }
  }
  for (const domain of truth)
    if (!found.has(domain)) {
      counts.fn++;
      misses.push(`unlisted missed: ${domain}`);
    }
  return counts;
}

/** The trackers a scan claims: those it only saw named in the page's code (`referenced`) are not claims. */
export function fromScan(result: ScanResult): Reported {
  return {
    trackers: result.trackers
      .filter((tracker) => tracker.activation?.state !== 'referenced')
      .map((tracker) => ({
        label: `${tracker.key} ${tracker.name}`,
        ids: tracker.ids,
        first_party: tracker.first_party,
      })),
    cmp: result.consent.cmp?.name ?? null,
    unlisted: (result.unlisted_trackers ?? []).map((found) => found.domain),
  };
}

/**
 * The baseline: third-party-web entities of the requests that reached the network during the scan. A list names no
 * vendor it does not know, so it reports no unlisted tracker.
 */
export function fromRequests(requests: string[]): Reported {
  const trackers = new Map<string, Reported['trackers'][number]>();
  let cmp: string | null = null;
  for (const url of requests) {
    const entity = thirdPartyWeb.getEntity(url);
    if (!entity) continue;
    if (entity.categories.includes('consent-provider')) cmp ??= entity.name;
    else if (entity.categories.some((category) => TRACKING_CATEGORIES.has(category)))
      trackers.set(entity.name, { label: entity.name, ids: [], first_party: false });
  }
  return { trackers: [...trackers.values()], cmp, unlisted: [] };
}

const ratio = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 1000) / 1000);
export const precision = (counts: Counts) => ratio(counts.tp, counts.tp + counts.fp);
export const recall = (counts: Counts) => ratio(counts.tp, counts.tp + counts.fn);
