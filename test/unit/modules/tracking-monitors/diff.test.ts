import { describe, expect, it } from 'vitest';
import { compareWithBaseline, severityOf } from '../../../../src/modules/tracking-monitors/diff.js';
import { DEFAULT_RULES, type PageSnapshotDto } from '../../../../src/modules/tracking-monitors/schemas.js';

const URL = 'https://shop.example/';

type Tracker = PageSnapshotDto['trackers'][number];
const tracker = (key: string, ids: string[], extra: Partial<Tracker> = {}): Tracker => ({
  key,
  name: key,
  ids,
  fires_before_consent: false,
  server_side: false,
  unlisted: key.startsWith('tpw:'),
  evidence: [{ kind: 'request', detail: `${key} hit`, url: `https://${key}.example/collect` }],
  blocked: [],
  ...extra,
});

const page = (extra: Partial<PageSnapshotDto> = {}): PageSnapshotDto => ({
  url: URL,
  final_url: URL,
  error: null,
  trackers: [tracker('google_analytics_4', ['G-1']), tracker('meta_pixel', ['123'])],
  cmp: 'Cookiebot',
  consent_mode: { detected: true, version: 'v2', mode: 'advanced' },
  server_side_endpoints: ['https://sst.shop.example'],
  loss_pct: 20,
  container_seen: null,
  ...extra,
});

const compare = (before: PageSnapshotDto, after: PageSnapshotDto, rules = DEFAULT_RULES) =>
  compareWithBaseline([before], [after], { rules, lossThresholdPct: 10 });

describe('a tracking run compared with its baseline', () => {
  it('finds nothing when the page shows the same', () => {
    expect(compare(page(), page())).toEqual([]);
  });

  it('names a tracker gone (critical), a tracker added and an unlisted one (warnings), with evidence', () => {
    const changes = compare(
      page(),
      page({
        trackers: [
          tracker('google_analytics_4', ['G-1']),
          tracker('tiktok_pixel', ['C1']),
          tracker('tpw:Some Vendor', []),
        ],
      }),
    );
    expect(changes.map((change) => [change.rule, change.tracker, change.severity])).toEqual([
      ['tracker_removed', 'meta_pixel', 'critical'],
      ['tracker_added', 'tiktok_pixel', 'warning'],
      ['unlisted_tracker', 'tpw:Some Vendor', 'warning'],
    ]);
    expect(changes[0]).toMatchObject({ page: URL, before: ['123'], after: null });
    expect(changes[0].evidence[0].url).toBe('https://meta_pixel.example/collect');
    expect(severityOf(changes)).toBe('critical');
    expect(severityOf(changes.slice(1))).toBe('warning');
  });

  it('sees ids changed and a tracker that now fires before consent', () => {
    const changes = compare(
      page(),
      page({
        trackers: [
          tracker('google_analytics_4', ['G-2']),
          tracker('meta_pixel', ['123'], { fires_before_consent: true }),
        ],
      }),
    );
    expect(changes.map((change) => change.rule)).toEqual(['ids_changed', 'fires_before_consent']);
    expect(changes[0].message).toBe('google_analytics_4 ids changed: G-1 gone, G-2 new.');
  });

  it('sees the consent platform and Consent Mode change', () => {
    const changes = compare(page(), page({ cmp: null, consent_mode: { detected: false, version: null, mode: null } }));
    expect(changes.map((change) => change.message)).toEqual([
      'The consent platform Cookiebot is gone.',
      'Google Consent Mode changed: Consent Mode v2 advanced → none.',
    ]);
  });

  it('sees a server-side endpoint gone, or still named but failing', () => {
    const gone = compare(page(), page({ server_side_endpoints: [] }));
    expect(gone.map((change) => change.rule)).toEqual(['server_side_lost']);
    const failing = compare(
      page(),
      page({
        trackers: [
          tracker('google_analytics_4', ['G-1'], {
            blocked: ['https://sst.shop.example/g/collect?v=2 (network error: net::ERR_CONNECTION_REFUSED)'],
          }),
          tracker('meta_pixel', ['123']),
        ],
      }),
    );
    expect(failing).toHaveLength(1);
    expect(failing[0]).toMatchObject({ rule: 'server_side_lost', tracker: 'google_analytics_4' });
    expect(failing[0].message).toBe('Requests to the server-side endpoint https://sst.shop.example fail.');
  });

  it("sees the linked container's hostname missing, and the loss estimate rising past the threshold only", () => {
    expect(compare(page(), page({ container_seen: false })).map((change) => change.rule)).toEqual([
      'container_missing',
    ]);
    expect(compare(page(), page({ container_seen: true }))).toEqual([]);
    expect(compare(page(), page({ loss_pct: 30 }))).toEqual([]);
    expect(compare(page(), page({ loss_pct: 31 })).map((change) => change.rule)).toEqual(['loss_increased']);
  });

  it('keeps only rules that are on, with the severity chosen', () => {
    const rules = {
      ...DEFAULT_RULES,
      tracker_removed: { enabled: false, severity: 'critical' as const },
      ids_changed: { enabled: true, severity: 'warning' as const },
    };
    const changes = compare(page(), page({ trackers: [tracker('google_analytics_4', ['G-9'])] }), rules);
    expect(changes.map((change) => [change.rule, change.severity])).toEqual([['ids_changed', 'warning']]);
  });

  it('compares nothing on a page that failed or that the baseline does not have', () => {
    expect(compare(page(), page({ error: 'connection reset', trackers: [] }))).toEqual([]);
    expect(
      compareWithBaseline([page()], [page({ url: 'https://shop.example/new', trackers: [] })], {
        rules: DEFAULT_RULES,
        lossThresholdPct: 10,
      }),
    ).toEqual([]);
  });
});
