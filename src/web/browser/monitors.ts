import type { Reply, Schemas } from './api-types.js';
import { type Chart, chartOrNoData, hasData } from './chart.js';
import { fillChannelChoices } from './channel-choices.js';
import { $, api, bindForm, date, duration, el, showError, text } from './ui.js';

type Monitor = Schemas['Monitor'];
type Incident = Schemas['Incident'];
type UptimeWindow = Schemas['MonitorStats']['last_24h'];

// Monitors
const monitorsTable = $('#monitors-table');
async function loadMonitors() {
  const [monitors, incidents] = await Promise.all([
    api<Reply<'/api/monitors/'>>('GET', '/api/monitors/?page_size=100'),
    api<Reply<'/api/incidents/'>>('GET', '/api/incidents/?page_size=20'),
  ]);
  const names = Object.fromEntries(monitors.results.map((monitor) => [monitor.id, monitor.name]));
  monitorsTable
    .querySelector('tbody')!
    .replaceChildren(
      ...(monitors.results.length
        ? monitors.results.map((monitor) =>
            el(
              'tr',
              {},
              el('td', {}, el('a', { href: `/dashboard/monitors/${monitor.id}` }, monitor.name)),
              el('td', {}, monitor.target.url),
              el(
                'td',
                { class: monitor.status === 'up' ? 'yes' : monitor.status === 'down' ? 'no' : '' },
                monitor.status,
              ),
              el('td', {}, `every ${duration(monitor.interval_seconds)}`),
              el('td', {}, date(monitor.last_checked_at)),
            ),
          )
        : [el('tr', {}, el('td', { colspan: 5 }, 'No monitors yet.'))]),
    );
  $('#incidents-table tbody').replaceChildren(
    ...(incidents.results.length
      ? incidents.results.map((incident) =>
          el(
            'tr',
            {},
            el('td', {}, names[incident.monitor_id] || incident.monitor_id),
            el('td', { class: incident.status === 'resolved' ? 'yes' : 'no' }, incident.status),
            el('td', {}, incident.cause),
            el('td', {}, date(incident.opened_at)),
            el(
              'td',
              {},
              incident.status === 'open'
                ? el(
                    'button',
                    { type: 'button', onclick: () => incidentAction(incident, 'acknowledge') },
                    'Acknowledge',
                  )
                : null,
              incident.status !== 'resolved'
                ? el(
                    'button',
                    { type: 'button', class: 'danger', onclick: () => incidentAction(incident, 'resolve') },
                    'Resolve',
                  )
                : null,
            ),
          ),
        )
      : [el('tr', {}, el('td', { colspan: 5 }, 'No incidents.'))]),
  );
}
async function incidentAction(incident: Incident, action: 'acknowledge' | 'resolve') {
  try {
    await api('POST', `/api/incidents/${incident.id}/${action}/`);
  } catch (error) {
    showError($('#monitor-error'), error);
  }
  await loadMonitors();
}
// Targets: a URL, or one of the tenant's containers or custom domains (value "container:ctr_…").
async function loadMonitorTargets() {
  const [containers, domains] = await Promise.all([
    api<Reply<'/api/containers/'>>('GET', '/api/containers/?page_size=100'),
    api<Reply<'/api/domains/'>>('GET', '/api/domains/?page_size=100'),
  ]);
  const group = (label: string, items: HTMLOptionElement[]) =>
    items.length ? [el('optgroup', { label }, ...items)] : [];
  $('#monitor-target-kind').append(
    ...group(
      'Containers',
      containers.results.map((container) =>
        el('option', { value: `container:${container.id}` }, `${container.name} (${container.default_hostname})`),
      ),
    ),
    ...group(
      'Custom domains',
      domains.results.map((domain) => el('option', { value: `domain:${domain.id}` }, domain.hostname)),
    ),
  );
}
function showTargetFields() {
  const isUrl = $<HTMLSelectElement>('#monitor-target-kind').value === 'url';
  $('#monitor-url-field').hidden = !isUrl;
  $<HTMLInputElement>('#monitor-url').required = isUrl;
  $('#monitor-path-field').hidden = isUrl;
}
function monitorTarget(data: FormData) {
  const [type, id] = text(data, 'target').split(':');
  if (type === 'url') return { type, url: data.get('url') };
  return { type, [`${type}_id`]: id, path: data.get('path') || '/' };
}
if (monitorsTable) {
  loadMonitors().catch((error) => showError($('#monitor-error'), error));
  loadMonitorTargets().catch((error) => showError($('#monitor-error'), error));
  fillChannelChoices($('#monitor-channel-options')).catch((error) => showError($('#monitor-error'), error));
  $('#monitor-target-kind').addEventListener('change', showTargetFields);
  bindForm($<HTMLFormElement>('#monitor-form'), $('#monitor-error'), async (data) => {
    await api('POST', '/api/monitors/', {
      name: data.get('name'),
      target: monitorTarget(data),
      interval_seconds: Number(data.get('interval_seconds')),
      notification_channel_ids: data.getAll('notification_channel_ids'),
    });
    $<HTMLFormElement>('#monitor-form').reset();
    showTargetFields();
    await loadMonitors();
  });
}

const monitorDetail = $('#monitor-detail');
let latencyChart: Chart | null = null;
async function loadMonitor() {
  const id = monitorDetail.dataset.monitorId;
  const [monitor, stats, checks] = await Promise.all([
    api<Monitor>('GET', `/api/monitors/${id}/`),
    api<Schemas['MonitorStats']>('GET', `/api/monitors/${id}/stats/`),
    api<Reply<'/api/monitors/{id}/checks/'>>('GET', `/api/monitors/${id}/checks/?page_size=100`),
  ]);
  $('#monitor-title').textContent = monitor.name;
  $('#monitor-status').textContent = `Status: ${monitor.status}`;
  $('#monitor-target').textContent = monitor.target.url;
  $('#monitor-toggle').textContent = monitor.status === 'paused' ? 'Resume' : 'Pause';
  $('#monitor-toggle').onclick = async () => {
    await api('POST', `/api/monitors/${id}/${monitor.status === 'paused' ? 'resume' : 'pause'}/`);
    await loadMonitor();
  };
  // A monitor younger than a window has checks over its age only: the figure says so ("over 5 min").
  const age = (Date.now() - Date.parse(monitor.created_at)) / 1000;
  $('#monitor-stats').replaceChildren(
    ...(
      [
        ['24 hours', 86_400, stats.last_24h],
        ['7 days', 7 * 86_400, stats.last_7d],
        ['30 days', 30 * 86_400, stats.last_30d],
      ] as Array<[string, number, UptimeWindow]>
    ).map(([label, seconds, window]) =>
      el(
        'div',
        { class: 'card' },
        el('div', {}, `Uptime, ${label}`),
        el('div', { class: 'big' }, window.uptime_pct === null ? 'No data yet' : `${window.uptime_pct}%`),
        window.uptime_pct !== null && age < seconds
          ? el('div', { class: 'covers' }, `over ${duration(age)}, since the monitor was added`)
          : null,
        el(
          'div',
          { class: 'hint' },
          `p50 ${window.p50_ms ?? '—'} ms · p95 ${window.p95_ms ?? '—'} ms · ${window.checks} ${window.checks === 1 ? 'check' : 'checks'}`,
        ),
      ),
    ),
  );
  $('#checks-table tbody').replaceChildren(
    ...checks.results
      .slice(0, 30)
      .map((check) =>
        el(
          'tr',
          {},
          el('td', {}, date(check.checked_at)),
          el('td', { class: check.result === 'down' ? 'no' : 'yes' }, check.result),
          el('td', {}, check.status_code ?? '—'),
          el('td', {}, check.latency_ms === null ? '—' : `${check.latency_ms} ms`),
          el('td', {}, check.error || ''),
        ),
      ),
  );
  latencyChart?.destroy();
  latencyChart = null;
  const canvas = $<HTMLCanvasElement>('#latency-chart');
  if (chartOrNoData(canvas, !hasData(checks.results.map((check) => check.latency_ms))) && window.Chart) {
    const points = [...checks.results].reverse();
    latencyChart = new window.Chart(canvas, {
      type: 'line',
      data: {
        labels: points.map((check) => new Date(check.checked_at).toLocaleTimeString()),
        datasets: [
          {
            label: 'Latency (ms)',
            data: points.map((check) => check.latency_ms),
            borderColor: '#0b5cad',
            pointBackgroundColor: points.map((check) => (check.result === 'down' ? '#b42318' : '#0b5cad')),
            spanGaps: false,
          },
        ],
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        scales: { y: { beginAtZero: true, title: { display: true, text: 'ms' } } },
      },
    });
  }
}
if (monitorDetail) {
  const id = monitorDetail.dataset.monitorId;
  api<Monitor>('GET', `/api/monitors/${id}/`)
    .then((monitor) => fillChannelChoices($('#detail-channel-options'), monitor.notification_channel_ids))
    .catch((error) => showError($('#monitor-channels-error'), error));
  bindForm($<HTMLFormElement>('#monitor-channels-form'), $('#monitor-channels-error'), async (data) => {
    $('#monitor-channels-status').textContent = '';
    await api('PATCH', `/api/monitors/${id}/`, { notification_channel_ids: data.getAll('notification_channel_ids') });
    $('#monitor-channels-status').textContent = 'Saved.';
  });
}
if (monitorDetail) loadMonitor().catch((error) => monitorDetail.append(el('p', { class: 'error' }, error.message)));
