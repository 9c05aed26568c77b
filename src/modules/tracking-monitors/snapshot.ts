import type { ScanResult, Tracker } from '../../scanner/schema.js';
import type { PageSnapshotDto } from './schemas.js';

type PageTracker = PageSnapshotDto['trackers'][number];

/** States in which a tracker's code is on the page but never runs for a visitor: not counted as loading. */
const NOT_LOADING = new Set(['referenced', 'noscript_only']);
const EVIDENCE_KEPT = 3;

const hostOf = (url: string): string | null => {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
};

function pageTracker(tracker: Tracker): PageTracker {
  return {
    key: tracker.key,
    name: tracker.name,
    ids: [...tracker.ids].sort(),
    fires_before_consent: tracker.fires_before_consent,
    server_side: tracker.server_side,
    unlisted: tracker.key.startsWith('tpw:'),
    evidence: tracker.evidence.slice(0, EVIDENCE_KEPT).map(({ kind, detail, url }) => ({
      kind,
      detail,
      ...(url === undefined ? {} : { url }),
    })),
    blocked: (tracker.blocked ?? []).map((request) => `${request.url} (${request.reason})`),
  };
}

/** The hosts a scan saw the page use: tracker evidence, blocked requests and server-side endpoints. */
function hostsUsed(result: ScanResult, trackers: Tracker[]): Set<string> {
  const urls = [
    ...result.server_side_tagging.endpoints,
    ...trackers.flatMap((tracker) => [
      ...tracker.evidence.flatMap((evidence) => (evidence.url ? [evidence.url] : [])),
      ...(tracker.endpoints ?? []),
    ]),
  ];
  return new Set(urls.map(hostOf).filter((host): host is string => host !== null));
}

function lossPct(result: ScanResult): number | null {
  const figures = [result.loss_estimate.analytics_events, result.loss_estimate.ad_conversions]
    .filter((figure) => figure !== null)
    .map((figure) => figure.lost_pct);
  return figures.length ? Math.max(...figures) : null;
}

/**
 * What a scan shows of each page, the part a run compares: the trackers that load (with ids, consent timing,
 * server-side use and a little evidence), the consent platform and mode, server-side endpoints, the loss estimate
 * and whether the linked container's hostnames are used. A multi-page scan gives one snapshot per page visited;
 * page-level tracker lists come from the scan's `pages`, the rest is the scan's merged view.
 */
export function snapshotsOf(result: ScanResult, containerHosts: string[]): PageSnapshotDto[] {
  const loading = result.trackers.filter((tracker) => !NOT_LOADING.has(tracker.activation?.state ?? ''));
  const pages = result.pages ?? [
    {
      url: result.url,
      final_url: result.final_url,
      status: 'ok',
      trackers: loading.map((tracker) => tracker.key),
      error: null,
    },
  ];
  const partial = result.partial ? `Only the HTML could be checked: ${result.partial.message}` : null;
  return pages.map((page) => {
    const keys = new Set(page.trackers);
    const trackers = loading.filter((tracker) => keys.has(tracker.key));
    const hosts = hostsUsed(result, trackers);
    return {
      url: page.url,
      final_url: page.final_url,
      error: page.error ?? (page.status === 'ok' || page.status === 'partial' ? partial : `Page ${page.status}.`),
      trackers: trackers.map(pageTracker).sort((a, b) => a.key.localeCompare(b.key)),
      cmp: result.consent.cmp ? (result.consent.cmp.name ?? 'unnamed consent platform') : null,
      consent_mode: {
        detected: result.consent.consent_mode.detected,
        version: result.consent.consent_mode.version,
        mode: result.consent.consent_mode.mode,
      },
      server_side_endpoints: [...result.server_side_tagging.endpoints].sort(),
      loss_pct: lossPct(result),
      container_seen: containerHosts.length ? containerHosts.some((host) => hosts.has(host)) : null,
    };
  });
}

/** A page that could not be scanned: the run fails, and nothing is compared. */
export function failedSnapshot(url: string, error: string): PageSnapshotDto {
  return {
    url,
    final_url: null,
    error,
    trackers: [],
    cmp: null,
    consent_mode: { detected: false, version: null, mode: null },
    server_side_endpoints: [],
    loss_pct: null,
    container_seen: null,
  };
}
