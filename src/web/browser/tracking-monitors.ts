// Tracking monitors: the list (pages, interval, status, open incident, last run) and the form to add one.
import type { Reply } from './api-types.js';
import { ApiError, $, api, bindForm, date, el, showError, text } from './ui.js';
import { fillChannelChoices } from './channel-choices.js';
import { intervalWords, pagesWords, STATUS } from './tracking-words.js';

const table = $('#tracking-monitors-table');

async function loadTrackingMonitors() {
  const monitors = await api<Reply<'/api/tracking-monitors/'>>('GET', '/api/tracking-monitors/?page_size=100');
  table
    .querySelector('tbody')!
    .replaceChildren(
      ...(monitors.results.length
        ? monitors.results.map((monitor) =>
            el(
              'tr',
              {},
              el('td', {}, el('a', { href: `/dashboard/tracking-monitors/${monitor.id}` }, monitor.name)),
              el('td', {}, pagesWords(monitor)),
              el('td', {}, intervalWords(monitor.interval_seconds)),
              el('td', { class: STATUS[monitor.status].tone }, STATUS[monitor.status].text),
              el(
                'td',
                {},
                monitor.open_incident_id
                  ? el(
                      'a',
                      { class: 'pill bad', href: `/dashboard/tracking-monitors/${monitor.id}#tm-incident-heading` },
                      'Open incident',
                    )
                  : '—',
              ),
              el('td', {}, date(monitor.last_run_at)),
            ),
          )
        : [el('tr', {}, el('td', { colspan: 6 }, 'No tracking monitors yet: add one below.'))]),
    );
}

/** The tenant's containers to link, and the plan's limits: intervals below its minimum are offered disabled. */
async function loadFormChoices() {
  const session = await api<Reply<'/api/auth/session'>>('GET', '/api/auth/session');
  const [containers, tenant] = await Promise.all([
    api<Reply<'/api/containers/'>>('GET', '/api/containers/?page_size=100'),
    api<Reply<'/api/tenants/{id}/'>>('GET', `/api/tenants/${session.tenant_id}/`),
  ]);
  $('#tm-container').append(
    ...containers.results.map((container) =>
      el('option', { value: container.id }, `${container.name} (${container.default_hostname})`),
    ),
  );
  // Come from a container's settings ("watch this container's tracking"): that container is chosen.
  const linked = new URLSearchParams(location.search).get('container');
  if (linked && containers.results.some((container) => container.id === linked))
    $<HTMLSelectElement>('#tm-container').value = linked;
  const { tracking_monitor_max_pages: maxPages, tracking_monitor_min_interval_seconds: minimum } = tenant.features;
  if (maxPages)
    $('#tm-pages-limit').textContent = `Your plan scans up to ${maxPages} pages per run, followed links included.`;
  if (!minimum) return;
  for (const option of $<HTMLSelectElement>('#tm-interval').options) {
    if (option.value === 'custom' || Number(option.value) >= minimum) continue;
    option.disabled = true;
    option.textContent += ` (your plan: at least ${intervalWords(minimum)})`;
  }
  $<HTMLInputElement>('#tm-seconds').min = String(minimum);
  $<HTMLInputElement>('#tm-seconds').value = String(Math.max(minimum, 3600));
}

function showSecondsField() {
  const custom = $<HTMLSelectElement>('#tm-interval').value === 'custom';
  $('#tm-seconds-field').hidden = !custom;
}

/** The API names a page as `pages[1]` and the interval as `interval_seconds`: the fields of this form that hold them. */
function forThisForm(error: unknown, custom: boolean): unknown {
  if (!(error instanceof ApiError) || !error.body?.error) return error;
  const issue = error.body.error;
  const rename = (param: string | undefined) =>
    param?.startsWith('pages') ? 'pages' : param === 'interval_seconds' && !custom ? 'interval_choice' : param;
  issue.param = rename(issue.param);
  for (const detail of issue.details?.errors ?? []) detail.param = rename(detail.param);
  return error;
}

if (table) {
  loadTrackingMonitors().catch((error) => showError($('#tm-error'), error));
  loadFormChoices().catch((error) => showError($('#tm-error'), error));
  fillChannelChoices($('#tm-channel-options')).catch((error) => showError($('#tm-error'), error));
  $('#tm-interval').addEventListener('change', showSecondsField);
  const form = $<HTMLFormElement>('#tm-form');
  bindForm(form, $('#tm-error'), async (data) => {
    const choice = text(data, 'interval_choice');
    const custom = choice === 'custom';
    try {
      await api('POST', '/api/tracking-monitors/', {
        name: text(data, 'name'),
        pages: text(data, 'pages')
          .split(/\s*\n\s*/)
          .map((line) => line.trim())
          .filter(Boolean),
        follow_links: Number(text(data, 'follow_links') || 0),
        interval_seconds: Number(custom ? text(data, 'interval_seconds') : choice),
        consent_check: data.has('consent_check'),
        container_id: text(data, 'container_id') || null,
        notification_channel_ids: data.getAll('notification_channel_ids'),
      });
    } catch (error) {
      throw forThisForm(error, custom);
    }
    form.reset();
    showSecondsField();
    await loadTrackingMonitors();
  });
}
