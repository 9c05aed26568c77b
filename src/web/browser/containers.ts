import { showSettings } from './container-settings.js';
import { showTaggingServer } from './tagging-server.js';
import type { Reply, Schemas } from './api-types.js';
import { type Chart, chartOrNoData, hasData } from './chart.js';
import { $, api, bindForm, el, showError } from './ui.js';

type Container = Schemas['Container'];

// Containers and domains
const containersTable = $('#containers-table');
let usageChart: Chart | null = null;
async function showUsage(container: Container) {
  const usage = await api<Schemas['ContainerUsage']>('GET', `/api/containers/${container.id}/usage/`);
  $('#usage-caption').textContent = `${container.name}: ${usage.total_requests} requests (${
    Object.entries(usage.by_status_class)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || 'none yet'
  })`;
  $('#usage-chart-box').hidden = false;
  usageChart?.destroy();
  usageChart = null;
  const canvas = $<HTMLCanvasElement>('#usage-chart');
  if (chartOrNoData(canvas, !hasData(usage.days.map((d) => d.requests))) && window.Chart)
    usageChart = new window.Chart(canvas, {
      type: 'bar',
      data: {
        labels: usage.days.map((d) => d.day),
        datasets: [{ label: 'Requests', data: usage.days.map((d) => d.requests), backgroundColor: '#0b5cad' }],
      },
      options: { responsive: true, maintainAspectRatio: false, animation: false, scales: { y: { beginAtZero: true } } },
    });
  await showTaggingServer(container);
  await showSettings(container, usage);
}
async function containerAction(container: Container, action: Container['allowed_actions'][number]) {
  if (action === 'delete' && !window.confirm(`Delete the container "${container.name}"?`)) return;
  try {
    await api(
      action === 'delete' ? 'DELETE' : 'POST',
      action === 'delete' ? `/api/containers/${container.id}/` : `/api/containers/${container.id}/${action}/`,
    );
  } catch (error) {
    showError($('#container-error'), error);
  }
  await loadContainers();
}
// Provisioning, starting and stopping are finished by the background worker; while any
// container is in one of them the list refreshes itself, so a new container turns "running"
// on screen however long its start takes.
const TRANSITIONAL: readonly Container['status'][] = ['provisioning', 'starting', 'stopping', 'deleting'];
const REFRESH_MS = 1500;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
function refreshWhileTransitional(containers: readonly Container[]) {
  clearTimeout(refreshTimer);
  if (!containers.some((container) => TRANSITIONAL.includes(container.status))) return;
  refreshTimer = setTimeout(
    () => loadContainers({ withDomains: false }).catch((error) => showError($('#container-error'), error)),
    REFRESH_MS,
  );
}
async function loadContainers({ withDomains = true } = {}) {
  const list = await api<Reply<'/api/containers/'>>('GET', '/api/containers/?page_size=100');
  refreshWhileTransitional(list.results);
  containersTable.querySelector('tbody')!.replaceChildren(
    ...(list.results.length
      ? list.results.map((container) =>
          el(
            'tr',
            {},
            el(
              'td',
              {},
              el('button', { type: 'button', class: 'link', onclick: () => showUsage(container) }, container.name),
            ),
            el(
              'td',
              { class: container.status === 'running' ? 'yes' : container.status === 'failed' ? 'no' : '' },
              container.status,
              container.status_reason ? ` (${container.status_reason})` : '',
            ),
            el('td', {}, container.region),
            el('td', {}, el('code', {}, container.default_hostname)),
            el(
              'td',
              {},
              container.runtime === 'builtin'
                ? el('a', { href: `/dashboard/containers/${container.id}/meta-pixels` }, 'Meta pixels')
                : null,
              container.runtime === 'builtin'
                ? [' ', el('a', { href: `/dashboard/containers/${container.id}/outgoing-log` }, 'Outgoing log')]
                : null,
              // The buttons stay on one line together, after the links (which may wrap).
              el(
                'span',
                { class: 'actions' },
                container.allowed_actions.map((action) =>
                  el(
                    'button',
                    {
                      type: 'button',
                      class: action === 'delete' ? 'danger' : '',
                      onclick: () => containerAction(container, action),
                    },
                    action,
                  ),
                ),
              ),
            ),
          ),
        )
      : [el('tr', {}, el('td', { colspan: 5 }, 'No containers yet.'))]),
  );
  const chosen = $<HTMLSelectElement>('#domain-container');
  const chosenId = chosen.value;
  chosen.replaceChildren(
    el('option', { value: '' }, list.results.length ? 'Choose a container' : 'Create a container first'),
    ...list.results.map((container) => el('option', { value: container.id }, container.name)),
  );
  chosen.value = list.results.some((container) => container.id === chosenId) ? chosenId : '';
  if (withDomains) await loadDomains();
}
async function loadDomains() {
  const domains = await api<Reply<'/api/domains/'>>('GET', '/api/domains/?page_size=100');
  $('#domains-list').replaceChildren(
    ...(domains.results.length
      ? domains.results.map((domain) =>
          el(
            'section',
            { class: 'card' },
            el(
              'h3',
              {},
              domain.hostname,
              ' ',
              el(
                'span',
                { class: domain.status === 'active' ? 'yes' : domain.status === 'failed' ? 'no' : '' },
                domain.status.replace('_', ' '),
              ),
            ),
            domain.failure_detail ? el('p', { class: 'error' }, domain.failure_detail) : null,
            el(
              'div',
              { class: 'table-wrap' },
              el(
                'table',
                {},
                el(
                  'thead',
                  {},
                  el(
                    'tr',
                    {},
                    ['Type', 'Name', 'Value', 'Purpose'].map((h) => el('th', { scope: 'col' }, h)),
                  ),
                ),
                el(
                  'tbody',
                  {},
                  domain.dns_records.map((record) =>
                    el(
                      'tr',
                      {},
                      el('td', {}, record.type),
                      el('td', {}, el('code', {}, record.name)),
                      el('td', {}, el('code', {}, record.value)),
                      el('td', {}, record.purpose),
                    ),
                  ),
                ),
              ),
            ),
            el(
              'button',
              {
                type: 'button',
                onclick: async () => {
                  try {
                    await api('POST', `/api/domains/${domain.id}/verify/`);
                  } catch (error) {
                    showError($('#domain-error'), error);
                  }
                  await loadDomains();
                },
              },
              'Verify now',
            ),
          ),
        )
      : [el('p', {}, 'No custom domains yet.')]),
  );
}
if (containersTable) {
  loadContainers().catch((error) => showError($('#container-error'), error));
  bindForm($<HTMLFormElement>('#container-form'), $('#container-error'), async (data) => {
    const body: Record<string, FormDataEntryValue | null> = {
      name: data.get('name'),
      region: data.get('region'),
      config: data.get('config'),
    };
    if (data.get('upstream_url')) body.upstream_url = data.get('upstream_url');
    if (data.get('runtime') && !(data.get('runtime') === 'builtin' && body.upstream_url))
      body.runtime = data.get('runtime');
    await api('POST', '/api/containers/', body);
    $<HTMLFormElement>('#container-form').reset();
    await loadContainers();
  });
  bindForm($<HTMLFormElement>('#domain-form'), $('#domain-error'), async (data) => {
    await api('POST', '/api/domains/', { hostname: data.get('hostname'), container_id: data.get('container_id') });
    $<HTMLFormElement>('#domain-form').reset();
    await loadDomains();
  });
}
