import { fillRequestPowerups, requestPowerupsFrom } from './request-powerups.js';
import type { Reply, Schemas } from './api-types.js';
import { type Chart, chartOrNoData, hasData } from './chart.js';
import { $, api, bindForm, control, copyText } from './ui.js';

type Container = Schemas['Container'];
type Settings = Container['settings'];
type Usage = Schemas['ContainerUsage'];
type RuntimeDay = NonNullable<Usage['runtime']>['days'][number];

// A container's built-in runtime: its tracking chart, the snippet to paste and its settings form.
let runtimeChart: Chart | null = null;
let current: Container | null = null;
/** The Anonymizer's settings per vendor, each a select named `<vendor>.<field>` in the form. */
const ANONYMIZER_FIELDS = ['ip', 'user_agent', 'click_ids', 'user_id', 'user_data'] as const;

/** The hostname to put in the snippet: an active custom domain (first-party), else the default hostname. */
async function snippetHost(container: Container) {
  const domains = await api<Reply<'/api/domains/'>>('GET', '/api/domains/?page_size=100');
  const active = domains.results.find((domain) => domain.container_id === container.id && domain.status === 'active');
  return active ? active.hostname : container.default_hostname;
}

function snippet(container: Container, host: string) {
  const base = `https://${host}`;
  const loader = `${base}/${container.settings.loader_path}.js`;
  const ga4 = container.settings.ga4_measurement_ids[0];
  if (ga4)
    return `<script async src="${loader}?id=${ga4}"></script>
<script>
  window.dataLayer = window.dataLayer || [];
  function gtag(){dataLayer.push(arguments);}
  gtag('js', new Date());
  gtag('config', '${ga4}', { server_container_url: '${base}' });
</script>`;
  return `<script>(function(w,d,s,l,i){w[l]=w[l]||[];w[l].push({'gtm.start':new Date().getTime(),event:'gtm.js'});
var f=d.getElementsByTagName(s)[0],j=d.createElement(s),dl=l!='dataLayer'?'&l='+l:'';j.async=true;
j.src='${loader}?id='+i+dl;f.parentNode.insertBefore(j,f);})(window,document,'script','dataLayer','${container.gtm_container_id}');</script>`;
}

function drawRuntimeChart(container: Container, usage: Usage) {
  // Only the built-in runtime counts hits and forwards itself; a tagging server's own are in GA4 and its vendors.
  $('#runtime-chart').parentElement!.hidden = container.runtime !== 'builtin';
  if (container.runtime !== 'builtin') {
    $('#runtime-caption').textContent =
      `Power-ups apply in front of the ${container.runtime === 'sgtm' ? 'Google tagging server' : 'upstream tagging server'}; the snippet loads Google's tags through it.`;
    return;
  }
  const runtime = usage.runtime!;
  $('#runtime-caption').textContent =
    `${runtime.totals.hits_received} hits received, ${runtime.totals.ga4_forwarded} forwarded to GA4, ` +
    `${runtime.totals.meta_forwarded} to Meta, ${runtime.totals.forwards_failed} failed, ` +
    `${runtime.totals.bots_dropped} bots dropped, ${runtime.totals.cookies_restored} cookies restored.`;
  runtimeChart?.destroy();
  runtimeChart = null;
  const canvas = $<HTMLCanvasElement>('#runtime-chart');
  if (!chartOrNoData(canvas, !hasData(runtime.days.map((d) => d.hits_received))) || !window.Chart) return;
  const series = (label: string, key: Exclude<keyof RuntimeDay, 'day'>, color: string) => ({
    label,
    data: runtime.days.map((d) => d[key]),
    backgroundColor: color,
  });
  runtimeChart = new window.Chart(canvas, {
    type: 'bar',
    data: {
      labels: runtime.days.map((d) => d.day),
      datasets: [
        series('Hits received', 'hits_received', '#0b5cad'),
        series('GA4 forwarded', 'ga4_forwarded', '#2e7d32'),
        series('Meta forwarded', 'meta_forwarded', '#6a1b9a'),
        series('Failed', 'forwards_failed', '#c62828'),
        series('Bots dropped', 'bots_dropped', '#757575'),
      ],
    },
    options: { responsive: true, maintainAspectRatio: false, animation: false, scales: { y: { beginAtZero: true } } },
  });
}

function fillForm(settings: Settings) {
  const form = $<HTMLFormElement>('#settings-form');
  control(form, 'loader_path').value = settings.loader_path;
  control(form, 'ga4_measurement_ids').value = settings.ga4_measurement_ids.join(', ');
  control(form, 'cookie_keeper').checked = settings.cookie_keeper.enabled;
  control(form, 'click_id_restorer').checked = settings.click_id_restorer.enabled;
  control(form, 'geo_headers').checked = settings.geo_headers.enabled;
  control(form, 'bot_detection').value = settings.bot_detection.mode;
  for (const vendor of ['ga4', 'meta'] as const)
    for (const field of ANONYMIZER_FIELDS)
      control(form, `${vendor}.${field}`).value = settings.anonymizer[vendor][field];
  fillRequestPowerups(form, settings);
}

function settingsFrom(data: FormData, previous: Settings) {
  const vendor = (name: string) =>
    Object.fromEntries(ANONYMIZER_FIELDS.map((field) => [field, data.get(`${name}.${field}`)]));
  return {
    loader_path: data.get('loader_path'),
    ga4_measurement_ids: String(data.get('ga4_measurement_ids') ?? '')
      .split(/[\s,]+/)
      .filter(Boolean),
    cookie_keeper: { enabled: data.get('cookie_keeper') === 'on' },
    click_id_restorer: { enabled: data.get('click_id_restorer') === 'on' },
    geo_headers: { enabled: data.get('geo_headers') === 'on' },
    bot_detection: { mode: data.get('bot_detection') },
    anonymizer: { ga4: vendor('ga4'), meta: vendor('meta') },
    ...requestPowerupsFrom(data, previous),
  };
}

/** Shows the chosen container's tracking, snippet and settings. */
export async function showSettings(container: Container, usage: Usage) {
  current = container;
  $('#container-settings').hidden = false;
  $('#settings-title').textContent = `Tracking and settings: ${container.name} (runtime ${container.runtime})`;
  drawRuntimeChart(container, usage);
  fillForm(container.settings);
  $('#settings-snippet').textContent = snippet(container, await snippetHost(container));
  $('#copy-snippet-status').textContent = '';
  $<HTMLAnchorElement>('#track-container').href =
    `/dashboard/tracking-monitors?container=${encodeURIComponent(container.id)}#tm-new-heading`;
}

if ($('#settings-form')) {
  $('#copy-snippet').addEventListener('click', () => copyText($('#settings-snippet'), $('#copy-snippet-status')));
  bindForm($<HTMLFormElement>('#settings-form'), $('#settings-error'), async (data) => {
    if (!current) return;
    current = await api<Reply<'/api/containers/{id}/', 'patch'>>('PATCH', `/api/containers/${current.id}/`, {
      settings: settingsFrom(data, current.settings),
    });
    fillForm(current.settings);
    $('#settings-snippet').textContent = snippet(current, await snippetHost(current));
  });
}
