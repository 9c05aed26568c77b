// The diff view of a tracking monitor's run: its changes from the baseline grouped by page, and per page the trackers
// the run saw with their ids and how each compares with the baseline (new, removed, ids changed…, from the changes).
// The open incident's changes use the same list.
import { date, el } from './ui.js';
import {
  comparable,
  type PageSnapshot,
  RESULT,
  RULES,
  runTime,
  type TrackingChange,
  type TrackingRun,
} from './tracking-words.js';

/** Tracker names by key, from every snapshot loaded (a removed tracker is named as the baseline named it). */
export type TrackerNames = Map<string, string>;

export function trackerNames(runs: TrackingRun[]): TrackerNames {
  const names: TrackerNames = new Map();
  for (const run of runs)
    for (const page of run.pages) for (const tracker of page.trackers) names.set(tracker.key, tracker.name);
  return names;
}

const nameOf = (names: TrackerNames, key: string | null) => (key ? (names.get(key) ?? key) : null);
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(String) : value === null || value === undefined ? [] : [String(value)];

function evidenceList(evidence: TrackingChange['evidence']) {
  if (evidence.length === 0) return null;
  return el(
    'ul',
    { class: 'evidence' },
    evidence.map((item) =>
      el(
        'li',
        {},
        el('span', { class: 'pill' }, item.kind),
        ' ',
        el('code', {}, item.detail),
        item.url && item.url !== item.detail ? [' ', el('span', { class: 'hint' }, item.url)] : null,
      ),
    ),
  );
}

/** One change: its severity, the rule in words, the tracker, what changed and the evidence the scan saw. */
export function changeItem(change: TrackingChange, names: TrackerNames): HTMLLIElement {
  const tracker = nameOf(names, change.tracker);
  return el(
    'li',
    { class: 'change' },
    el(
      'p',
      {},
      el('span', { class: change.severity === 'critical' ? 'pill bad' : 'pill warn' }, change.severity),
      ' ',
      el('strong', {}, RULES[change.rule]?.name ?? change.rule),
      tracker ? ` · ${tracker}` : null,
    ),
    el('p', {}, change.message),
    evidenceList(change.evidence),
  );
}

const pageUrls = (pages: string[], changes: TrackingChange[]) => [
  ...new Set([...pages, ...changes.map((change) => change.page)]),
];

/** Changes under a heading per page (the incident's list). */
export function changesByPage(changes: TrackingChange[], names: TrackerNames): HTMLElement[] {
  return pageUrls([], changes).map((url) =>
    el(
      'div',
      { class: 'tm-page' },
      el('h3', {}, url),
      el(
        'ul',
        { class: 'changes' },
        changes.filter((change) => change.page === url).map((change) => changeItem(change, names)),
      ),
    ),
  );
}

/** How a tracker of this run compares with the baseline, from the run's changes on its page. */
function comparison(key: string, changes: TrackingChange[], run: TrackingRun) {
  const rules = changes.filter((change) => change.tracker === key).map((change) => change.rule);
  if (rules.includes('tracker_added') || rules.includes('unlisted_tracker'))
    return el('span', { class: 'pill warn' }, 'new');
  const notes = [
    rules.includes('ids_changed') ? 'ids changed' : null,
    rules.includes('fires_before_consent') ? 'now fires before consent' : null,
    rules.includes('server_side_lost') ? 'server-side requests fail' : null,
  ].filter((note): note is string => Boolean(note));
  if (notes.length) return el('span', { class: 'pill bad' }, notes.join(', '));
  if (run.result === 'baseline') return 'baseline';
  return comparable(run) ? 'unchanged' : '—';
}

const consentTiming = (value: boolean | null) =>
  value === true ? 'fires before consent' : value === false ? 'waits for consent' : '—';

function trackerTable(page: PageSnapshot, changes: TrackingChange[], run: TrackingRun, names: TrackerNames) {
  const removed = changes.filter((change) => change.rule === 'tracker_removed' && change.tracker);
  const rows = [
    ...page.trackers.map((tracker) =>
      el(
        'tr',
        {},
        el(
          'th',
          { scope: 'row' },
          tracker.name,
          tracker.unlisted ? el('span', { class: 'hint' }, ' (unlisted)') : null,
        ),
        el('td', {}, tracker.ids.length ? el('code', {}, tracker.ids.join(', ')) : '—'),
        el('td', {}, consentTiming(tracker.fires_before_consent)),
        el('td', {}, tracker.server_side ? 'yes' : 'no'),
        el('td', {}, comparison(tracker.key, changes, run)),
      ),
    ),
    ...removed.map((change) =>
      el(
        'tr',
        { class: 'removed' },
        el('th', { scope: 'row' }, nameOf(names, change.tracker)),
        el('td', {}, strings(change.before).length ? el('code', {}, strings(change.before).join(', ')) : '—'),
        el('td', {}, '—'),
        el('td', {}, '—'),
        el('td', {}, el('span', { class: 'pill bad' }, 'removed: no longer loads')),
      ),
    ),
  ];
  return el(
    'div',
    { class: 'table-wrap' },
    el(
      'table',
      { class: 'tm-trackers' },
      el('caption', { class: 'sr-only' }, `Trackers on ${page.url}`),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ['Tracker', 'Ids', 'Consent', 'Server-side', 'Compared with the baseline'].map((label) =>
            el('th', { scope: 'col' }, label),
          ),
        ),
      ),
      el('tbody', {}, rows.length ? rows : el('tr', {}, el('td', { colspan: 5 }, 'No trackers.'))),
    ),
  );
}

/** What else the page showed: consent platform and mode, server-side endpoints, loss, the container. */
function pageFacts(page: PageSnapshot) {
  const mode = page.consent_mode;
  const facts: Array<[string, string]> = [
    ['Consent platform', page.cmp ?? 'none'],
    [
      'Consent Mode',
      mode.detected ? [mode.version, mode.mode].filter(Boolean).join(' ') || 'detected' : 'not detected',
    ],
    ['Server-side endpoints', page.server_side_endpoints.join(', ') || 'none'],
    ['Loss estimate', page.loss_pct === null ? '—' : `${page.loss_pct}%`],
  ];
  if (page.container_seen !== null) facts.push(['Container hostname', page.container_seen ? 'used' : 'not used']);
  if (page.final_url && page.final_url !== page.url) facts.unshift(['Ended at', page.final_url]);
  return el(
    'dl',
    { class: 'facts' },
    facts.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]),
  );
}

export interface RunViewOptions {
  names: TrackerNames;
  /** The monitor's current baseline run. */
  baselineRunId: string | null;
  /** Makes this run the baseline (after the person confirmed). */
  accept?: () => Promise<void>;
}

/** The run's summary line, with "Accept as baseline" on a run that scanned every page and is not the baseline. */
function runSummary(run: TrackingRun, options: RunViewOptions): HTMLElement[] {
  const result = RESULT[run.result];
  const isBaseline = run.id === options.baselineRunId;
  const summary = el(
    'p',
    {},
    el('span', { class: result.tone }, result.text),
    ` · ${run.trigger === 'manual' ? 'run by hand' : 'scheduled'} · ${date(runTime(run))}`,
    ` · ${run.changes.length} ${run.changes.length === 1 ? 'change' : 'changes'}`,
    isBaseline ? [' ', el('span', { class: 'pill' }, 'current baseline')] : null,
  );
  const parts = [summary];
  if (run.result === 'failed')
    parts.push(
      el(
        'p',
        { class: 'error' },
        `This run failed: ${run.error ?? 'a page could not be scanned'}. Nothing was compared.`,
      ),
    );
  const { accept } = options;
  if (comparable(run) && !isBaseline && accept) {
    const status = el('span', { role: 'status', id: 'tm-accept-status' });
    const button = el('button', { type: 'button', id: 'tm-accept' }, 'Accept as baseline');
    button.addEventListener('click', async () => {
      const question =
        'Accept this run as the baseline? Later runs are compared with what it found, and the open incident resolves.';
      if (!window.confirm(question)) return;
      button.disabled = true;
      status.textContent = 'Accepting…';
      try {
        await accept();
      } catch (error) {
        status.textContent = error instanceof Error ? error.message : String(error);
        button.disabled = false;
      }
    });
    parts.push(
      el('p', { class: 'token-row' }, button, status),
      el(
        'p',
        { class: 'hint' },
        'Use it when the change was intended: this run becomes what later runs are compared with.',
      ),
    );
  }
  return parts;
}

/** The diff view of a run: its summary, then per page its changes and its trackers. */
export function runView(run: TrackingRun, options: RunViewOptions): HTMLElement[] {
  const urls = pageUrls(
    run.pages.map((page) => page.url),
    run.changes,
  );
  const sections = urls.map((url) => {
    const page = run.pages.find((candidate) => candidate.url === url);
    const changes = run.changes.filter((change) => change.page === url);
    return el(
      'div',
      { class: 'tm-page' },
      el('h3', {}, url),
      page?.error ? el('p', { class: 'error' }, `Could not be scanned: ${page.error}`) : null,
      changes.length
        ? [
            el('h4', {}, 'Changes'),
            el(
              'ul',
              { class: 'changes' },
              changes.map((change) => changeItem(change, options.names)),
            ),
          ]
        : comparable(run) && run.result !== 'baseline'
          ? el('p', { class: 'yes' }, 'No changes from the baseline.')
          : null,
      ...(page && !page.error
        ? [el('h4', {}, 'Trackers'), trackerTable(page, changes, run, options.names), pageFacts(page)]
        : []),
    );
  });
  return [
    ...runSummary(run, options),
    ...(sections.length
      ? sections
      : [el('p', {}, run.result === 'queued' ? 'Waiting for a free scanner…' : 'No pages yet.')]),
  ];
}
