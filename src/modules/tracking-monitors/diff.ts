import {
  type ChangeDto,
  DEFAULT_RULES,
  type PageSnapshotDto,
  type RuleSettings,
  type Severity,
  TRACKING_RULES,
} from './schemas.js';

type Page = PageSnapshotDto;
type Tracker = Page['trackers'][number];
type Draft = Omit<ChangeDto, 'severity' | 'page'>;

export interface DiffSettings {
  rules: RuleSettings;
  lossThresholdPct: number;
}

const list = (values: string[]) => (values.length ? values.join(', ') : 'none');
const hostOf = (url: string) => url.replace(/^[a-z]+:\/\//i, '').replace(/[/:].*$/, '');

function trackerChanges(before: Tracker[], after: Tracker[]): Draft[] {
  const drafts: Draft[] = [];
  const now = new Map(after.map((tracker) => [tracker.key, tracker]));
  const then = new Map(before.map((tracker) => [tracker.key, tracker]));
  for (const old of before) {
    const current = now.get(old.key);
    if (!current) {
      drafts.push({
        rule: 'tracker_removed',
        tracker: old.key,
        message: `${old.name} no longer loads.`,
        before: old.ids,
        after: null,
        evidence: old.evidence,
      });
      continue;
    }
    const added = current.ids.filter((id) => !old.ids.includes(id));
    const removed = old.ids.filter((id) => !current.ids.includes(id));
    if (added.length || removed.length)
      drafts.push({
        rule: 'ids_changed',
        tracker: old.key,
        message: `${old.name} ids changed: ${list(removed)} gone, ${list(added)} new.`,
        before: old.ids,
        after: current.ids,
        evidence: current.evidence,
      });
    if (current.fires_before_consent === true && old.fires_before_consent !== true)
      drafts.push({
        rule: 'fires_before_consent',
        tracker: old.key,
        message: `${old.name} now sends requests before consent.`,
        before: old.fires_before_consent,
        after: true,
        evidence: current.evidence,
      });
  }
  for (const fresh of after.filter((tracker) => !then.has(tracker.key)))
    drafts.push({
      rule: fresh.unlisted ? 'unlisted_tracker' : 'tracker_added',
      tracker: fresh.key,
      message: fresh.unlisted ? `An unlisted tracker appeared: ${fresh.name}.` : `${fresh.name} now loads.`,
      before: null,
      after: fresh.ids,
      evidence: fresh.evidence,
    });
  return drafts;
}

function consentChanges(before: Page, after: Page): Draft[] {
  const drafts: Draft[] = [];
  const consent = (message: string, was: unknown, is: unknown): Draft => ({
    rule: 'consent_changed',
    tracker: null,
    message,
    before: was,
    after: is,
    evidence: [],
  });
  if (before.cmp !== after.cmp)
    drafts.push(
      consent(
        after.cmp === null
          ? `The consent platform ${before.cmp} is gone.`
          : `The consent platform is now ${after.cmp} (was ${before.cmp ?? 'none'}).`,
        before.cmp,
        after.cmp,
      ),
    );
  const was = before.consent_mode;
  const is = after.consent_mode;
  if (was.detected !== is.detected || was.version !== is.version || was.mode !== is.mode) {
    const describe = (mode: Page['consent_mode']) =>
      mode.detected ? `Consent Mode ${mode.version ?? ''} ${mode.mode ?? ''}`.replace(/\s+/g, ' ').trim() : 'none';
    drafts.push(consent(`Google Consent Mode changed: ${describe(was)} → ${describe(is)}.`, was, is));
  }
  return drafts;
}

function serverSideChanges(before: Page, after: Page): Draft[] {
  const failing = after.trackers.flatMap((tracker) => tracker.blocked.map((request) => ({ tracker, request })));
  return before.server_side_endpoints.flatMap((endpoint): Draft[] => {
    const host = hostOf(endpoint);
    const failed = failing.filter(({ request }) => hostOf(request) === host);
    if (failed.length)
      return [
        {
          rule: 'server_side_lost',
          tracker: failed[0].tracker.key,
          message: `Requests to the server-side endpoint ${endpoint} fail.`,
          before: endpoint,
          after: failed.map(({ request }) => request),
          evidence: failed.slice(0, 3).map(({ request }) => ({ kind: 'request', detail: request })),
        },
      ];
    if (after.server_side_endpoints.includes(endpoint)) return [];
    return [
      {
        rule: 'server_side_lost',
        tracker: null,
        message: `The server-side endpoint ${endpoint} no longer receives hits from this page.`,
        before: endpoint,
        after: null,
        evidence: [],
      },
    ];
  });
}

function otherChanges(before: Page, after: Page, lossThresholdPct: number): Draft[] {
  const drafts: Draft[] = [];
  if (after.container_seen === false)
    drafts.push({
      rule: 'container_missing',
      tracker: null,
      message: "The page no longer uses the container's hostname: its snippet or endpoint is gone.",
      before: before.container_seen,
      after: false,
      evidence: [],
    });
  if (before.loss_pct !== null && after.loss_pct !== null && after.loss_pct - before.loss_pct > lossThresholdPct)
    drafts.push({
      rule: 'loss_increased',
      tracker: null,
      message: `The estimated loss rose from ${before.loss_pct}% to ${after.loss_pct}%.`,
      before: before.loss_pct,
      after: after.loss_pct,
      evidence: [],
    });
  return drafts;
}

/**
 * The differences of a run from its baseline, page by page (pages the baseline does not have are not compared),
 * keeping the rules that are on, each with its severity.
 */
export function compareWithBaseline(baseline: Page[], run: Page[], settings: DiffSettings): ChangeDto[] {
  const baselineByUrl = new Map(baseline.map((page) => [page.url, page]));
  return run.flatMap((page) => {
    const before = baselineByUrl.get(page.url);
    if (!before || page.error) return [];
    const drafts = [
      ...trackerChanges(before.trackers, page.trackers),
      ...consentChanges(before, page),
      ...serverSideChanges(before, page),
      ...otherChanges(before, page, settings.lossThresholdPct),
    ];
    return drafts
      .filter((draft) => settings.rules[draft.rule].enabled)
      .map((draft) => ({ ...draft, page: page.url, severity: settings.rules[draft.rule].severity }));
  });
}

/** The highest severity among changes (critical before warning). */
export function severityOf(changes: ChangeDto[]): Severity {
  return changes.some((change) => change.severity === 'critical') ? 'critical' : 'warning';
}

/** Rule settings with changes applied, every rule present (rules added since a monitor was saved get defaults). */
export function withRuleChanges(
  current: Partial<RuleSettings>,
  changes?: Partial<Record<keyof RuleSettings, Partial<RuleSettings[keyof RuleSettings]>>>,
): RuleSettings {
  return Object.fromEntries(
    TRACKING_RULES.map((rule) => [rule, { ...DEFAULT_RULES[rule], ...current[rule], ...changes?.[rule] }]),
  ) as RuleSettings;
}
