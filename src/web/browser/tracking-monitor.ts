// One tracking monitor: its settings with Run now, Pause/Resume and Delete; the open incident with its changes; the
// timeline of runs, where choosing a run shows its diff view (tracking-diff.ts) and offers it as the baseline; the
// incident history; and its rules (tracking-rules.ts). While a run is queued or running the page follows it.
import type { Reply } from './api-types.js';
import { changesByPage, runView, trackerNames } from './tracking-diff.js';
import { bindRules, drawRules } from './tracking-rules.js';
import {
  inProgress,
  intervalWords,
  RESULT,
  runTime,
  STATUS,
  type TrackingIncident,
  type TrackingMonitor,
  type TrackingRun,
} from './tracking-words.js';
import { $, api, date, el, messageOf, showError } from './ui.js';

const root = $('#tracking-monitor');
const monitorId = root?.dataset.monitorId ?? '';
const base = `/api/tracking-monitors/${monitorId}`;

let monitor: TrackingMonitor;
let runs: TrackingRun[] = [];
let selectedRunId: string | null = null;
let canAdmin = false;
let rulesDrawn = false;
let following: number | undefined;
/** Names of the tenant's containers and channels, for the settings summary. */
const labels = new Map<string, string>();

const RESOLUTION: Record<string, string> = {
  run_matched: 'a later run matched the baseline',
  baseline_accepted: 'a new baseline was accepted',
};

const RUN_QUEUED = 'Run queued: this page shows its result when it ends.';

function say(message: string) {
  $('#tm-action-status').textContent = message;
}

function drawSettings() {
  $('#tm-title').textContent = monitor.name;
  const status = STATUS[monitor.status];
  $('#tm-state').replaceChildren(
    el('span', { class: status.tone }, status.text),
    monitor.next_run_at
      ? ` · next run ${Date.parse(monitor.next_run_at) <= Date.now() ? 'due now' : date(monitor.next_run_at)}`
      : '',
  );
  const baseline = runs.find((run) => run.id === monitor.baseline_run_id);
  const facts: Array<[string, Node | string]> = [
    [
      'Pages',
      el(
        'ul',
        { class: 'plain' },
        monitor.pages.map((page) => el('li', {}, el('code', {}, page))),
      ),
    ],
    ['Follow links', monitor.follow_links ? `${monitor.follow_links} from the start page` : 'none'],
    ['Runs', intervalWords(monitor.interval_seconds)],
    ['Consent check', monitor.consent_check ? 'on: each page is also loaded after “reject all”' : 'off'],
    ['Container', monitor.container_id ? (labels.get(monitor.container_id) ?? monitor.container_id) : 'none'],
    ['Notify', monitor.notification_channel_ids.map((id) => labels.get(id) ?? id).join(', ') || 'no channels'],
    [
      'Baseline',
      monitor.baseline_run_id
        ? `the run of ${baseline ? date(runTime(baseline)) : monitor.baseline_run_id}`
        : 'none yet: the next run that scans every page becomes the baseline',
    ],
  ];
  $('#tm-settings').replaceChildren(...facts.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]));
  $('#tm-toggle').textContent = monitor.status === 'paused' ? 'Resume' : 'Pause';
  $('#tm-toggle').hidden = !canAdmin;
  $('#tm-delete').hidden = !canAdmin;
}

function showRunButton(run: TrackingRun, label: string) {
  return el('button', { type: 'button', class: 'link', onclick: () => selectRun(run.id, true) }, label);
}

function drawIncidents(incidents: TrackingIncident[], names: ReturnType<typeof trackerNames>) {
  const open = incidents.find((incident) => incident.id === monitor.open_incident_id);
  const opener = open && runs.find((run) => run.id === open.opened_run_id);
  const last = incidents.find((incident) => incident.status === 'resolved');
  $('#tm-incident').replaceChildren(
    ...(open
      ? [
          el(
            'p',
            { class: 'notice' },
            el('span', { class: open.severity === 'critical' ? 'pill bad' : 'pill warn' }, open.severity),
            ` Open since ${date(open.opened_at)}: ${open.changes.length} ${open.changes.length === 1 ? 'change' : 'changes'} from the baseline. `,
            opener ? showRunButton(opener, 'Show the run that found it') : null,
          ),
          ...changesByPage(open.changes, names),
          el(
            'p',
            { class: 'hint' },
            'It resolves when a run matches the baseline again, or when you accept a run as the new baseline.',
          ),
        ]
      : [
          el('p', { class: 'yes' }, 'No open incident.'),
          ...(last
            ? [
                el(
                  'p',
                  { id: 'tm-last-resolved' },
                  `The last incident resolved ${date(last.resolved_at)}: ${RESOLUTION[last.resolution ?? ''] ?? 'resolved'}.`,
                ),
              ]
            : []),
        ]),
  );
  $('#tm-incidents-table tbody').replaceChildren(
    ...(incidents.length
      ? incidents.map((incident) =>
          el(
            'tr',
            {},
            el('td', {}, date(incident.opened_at)),
            el('td', {}, incident.severity),
            el('td', { class: incident.status === 'open' ? 'no' : 'yes' }, incident.status),
            el('td', {}, String(incident.changes.length)),
            el(
              'td',
              {},
              incident.resolved_at
                ? `${date(incident.resolved_at)} (${RESOLUTION[incident.resolution ?? ''] ?? ''})`
                : '—',
            ),
          ),
        )
      : [el('tr', {}, el('td', { colspan: 5 }, 'No incidents yet.'))]),
  );
}

function drawRuns() {
  $('#tm-runs-table tbody').replaceChildren(
    ...(runs.length
      ? runs.map((run) => {
          const result = RESULT[run.result];
          const selected = run.id === selectedRunId;
          return el(
            'tr',
            { class: selected ? 'selected' : '' },
            el(
              'td',
              {},
              el(
                'button',
                {
                  type: 'button',
                  class: 'link',
                  'aria-pressed': String(selected),
                  onclick: () => selectRun(run.id, true),
                },
                date(runTime(run)),
              ),
            ),
            el(
              'td',
              { class: result.tone },
              result.text,
              run.id === monitor.baseline_run_id ? [' ', el('span', { class: 'pill' }, 'baseline')] : null,
            ),
            el('td', {}, run.trigger === 'manual' ? 'by hand' : 'scheduled'),
            el('td', {}, inProgress(run) ? '—' : String(run.changes.length)),
          );
        })
      : [el('tr', {}, el('td', { colspan: 4 }, 'No runs yet: press Run now, or wait for the schedule.'))]),
  );
}

function drawRun(focus: boolean) {
  const run = runs.find((candidate) => candidate.id === selectedRunId);
  $('#tm-run').hidden = !run;
  if (!run) return;
  $('#tm-run-heading').textContent = `Run of ${date(runTime(run))}`;
  $('#tm-run-body').replaceChildren(
    ...runView(run, {
      names: trackerNames(runs),
      baselineRunId: monitor.baseline_run_id,
      accept: canAdmin
        ? async () => {
            monitor = await api<TrackingMonitor>('POST', `${base}/baseline/`, { run_id: run.id });
            await load();
            say('Accepted: that run is now the baseline, and the open incident is resolved.');
          }
        : undefined,
    }),
  );
  if (focus) $('#tm-run-heading').focus();
}

function selectRun(id: string, focus: boolean) {
  selectedRunId = id;
  drawRuns();
  drawRun(focus);
}

async function load() {
  const [fresh, runList, incidents] = await Promise.all([
    api<TrackingMonitor>('GET', `${base}/`),
    api<Reply<'/api/tracking-monitors/{id}/runs/'>>('GET', `${base}/runs/?page_size=50`),
    api<Reply<'/api/tracking-monitors/{id}/incidents/'>>('GET', `${base}/incidents/?page_size=20`),
  ]);
  monitor = fresh;
  runs = runList.results;
  if (!runs.some((run) => run.id === selectedRunId)) selectedRunId = runs[0]?.id ?? null;
  drawSettings();
  drawIncidents(incidents.results, trackerNames(runs));
  drawRuns();
  drawRun(false);
  if (!rulesDrawn) {
    drawRules(monitor, canAdmin);
    rulesDrawn = true;
  }
  // A run in progress: look again in a moment, until it has ended.
  window.clearTimeout(following);
  if (runs.some(inProgress)) following = window.setTimeout(() => load().catch(fail), 2000);
  else if ($('#tm-action-status').textContent === RUN_QUEUED)
    say(`The run ended: ${RESULT[runs[0].result].text.toLowerCase()}.`);
}

const fail = (error: unknown) => showError($('#tm-error'), error);

async function loadLabels() {
  const [containers, channels] = await Promise.all([
    api<Reply<'/api/containers/'>>('GET', '/api/containers/?page_size=100'),
    api<Reply<'/api/notification-channels/'>>('GET', '/api/notification-channels/?page_size=100'),
  ]);
  for (const container of containers.results)
    labels.set(container.id, `${container.name} (${container.default_hostname})`);
  for (const channel of channels.results) labels.set(channel.id, channel.name);
}

async function act(button: HTMLButtonElement, action: () => Promise<void>) {
  showError($('#tm-error'), null);
  say('');
  button.disabled = true;
  try {
    await action();
  } catch (error) {
    showError($('#tm-error'), messageOf(error));
  } finally {
    button.disabled = false;
  }
}

async function start() {
  const session = await api<Reply<'/api/auth/session'>>('GET', '/api/auth/session').catch(() => null);
  canAdmin = session?.role === 'admin' || session?.role === 'owner';
  await loadLabels().catch(() => undefined);
  await load();
}

if (root) {
  start().catch((error) => {
    $('#tm-state').textContent = '';
    fail(error);
  });
  bindRules(
    () => monitor,
    (saved) => {
      monitor = saved;
      drawSettings();
    },
  );
  $<HTMLButtonElement>('#tm-run-now').addEventListener('click', (event) =>
    act(event.currentTarget as HTMLButtonElement, async () => {
      const run = await api<TrackingRun>('POST', `${base}/runs/`);
      selectedRunId = run.id;
      say(RUN_QUEUED);
      await load();
    }),
  );
  $<HTMLButtonElement>('#tm-toggle').addEventListener('click', (event) =>
    act(event.currentTarget as HTMLButtonElement, async () => {
      monitor = await api<TrackingMonitor>('POST', `${base}/${monitor.status === 'paused' ? 'resume' : 'pause'}/`);
      await load();
      say(monitor.status === 'paused' ? 'Paused: no scheduled runs until you resume it.' : 'Resumed.');
    }),
  );
  $<HTMLButtonElement>('#tm-delete').addEventListener('click', (event) =>
    act(event.currentTarget as HTMLButtonElement, async () => {
      if (!window.confirm(`Delete the tracking monitor "${monitor.name}" with its runs and incidents?`)) return;
      await api('DELETE', `${base}/`);
      location.href = '/dashboard/tracking-monitors';
    }),
  );
}
