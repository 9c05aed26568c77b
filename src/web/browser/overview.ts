// Overview: "is everything OK?" drawn from one request, GET /api/overview/.
import type { Reply } from './api-types.js';
import { $, api, date, duration, el } from './ui.js';

type Overview = Reply<'/api/overview/'>;

const REASONS: Record<string, string> = {
  container_failed: 'Container failed',
  certificate_failed: 'Certificate cannot be issued',
  domain_failed: 'Domain check failed',
  container_stopped: 'Container stopped',
  domain_not_verified: 'Domain not verified yet',
};

const number = (value: number) => new Intl.NumberFormat().format(value);
const percent = (value: number | null) => (value === null ? 'no checks' : `${value.toFixed(value === 100 ? 0 : 2)} %`);

function attention(items: Overview['containers']['needs_attention']) {
  const box = $('#attention');
  box.classList.toggle('ok', items.length === 0);
  if (items.length === 0) {
    box.replaceChildren(
      el('p', {}, el('strong', {}, 'All is well.'), ' No container, domain or certificate needs you.'),
    );
    return;
  }
  box.replaceChildren(
    el('p', {}, el('strong', {}, `${items.length} ${items.length === 1 ? 'thing needs' : 'things need'} you`)),
    el(
      'ul',
      { class: 'plain' },
      items.map((item) =>
        el(
          'li',
          {},
          el('span', { class: `pill ${item.reason.endsWith('failed') ? 'bad' : 'warn'}` }, REASONS[item.reason]),
          ' ',
          el('a', { href: '/dashboard/containers' }, item.hostname ?? item.container_name),
          item.detail ? el('span', { class: 'hint' }, ` — ${item.detail}`) : null,
        ),
      ),
    ),
  );
}

/** A 30-day line of requests as an inline SVG; the numbers are in its accessible name and its title. */
function sparkline(daily: Overview['traffic']['daily']) {
  const width = 240;
  const height = 48;
  const max = Math.max(1, ...daily.map((entry) => entry.requests));
  const step = width / Math.max(1, daily.length - 1);
  const points = daily
    .map(
      (entry, index) =>
        `${(index * step).toFixed(1)},${(height - 2 - (entry.requests / max) * (height - 4)).toFixed(1)}`,
    )
    .join(' ');
  const label = `Requests per day over ${daily.length} days, from ${daily[0].day} to ${daily.at(-1)?.day}; peak ${number(max)}.`;
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('class', 'sparkline');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
  line.setAttribute('points', points);
  svg.append(line);
  return svg;
}

function tiles(overview: Overview) {
  const { containers, traffic, monitors, scans } = overview;
  $('#containers-figure').textContent = `${number(containers.by_status.running)} / ${number(containers.total)}`;
  $('#containers-detail').textContent = 'running / all';
  $('#traffic-today').textContent = number(traffic.today);
  $('#traffic-detail').textContent = `today · ${number(traffic.last_30_days)} in 30 days`;
  $('#traffic-sparkline').replaceChildren(traffic.last_30_days > 0 ? sparkline(traffic.daily) : '');
  $('#uptime-list').replaceChildren(
    ...(
      [
        ['24 h', monitors.uptime.last_24_hours],
        ['7 days', monitors.uptime.last_7_days],
        ['30 days', monitors.uptime.last_30_days],
      ] as Array<[string, number | null]>
    ).flatMap(([span, value]) => [el('dt', {}, span), el('dd', {}, percent(value))]),
  );
  $('#incidents-detail').textContent =
    monitors.total === 0
      ? 'No monitors yet.'
      : `${monitors.total} monitors · ${monitors.open_incidents} open incidents`;
  $('#scans-figure').textContent = `${scans.used_this_hour} / ${scans.hourly_quota}`;
  $('#scans-detail').textContent =
    scans.used_this_hour === 0
      ? 'used of the hourly quota'
      : `used · a slot frees in ${duration(scans.resets_in_seconds)}`;
}

function nextSteps(steps: Overview['next_steps']) {
  const open = steps.some((step) => !step.done);
  $('#next-steps').hidden = !open;
  if (!open) return;
  $('#steps-list').replaceChildren(
    ...steps.map((step) =>
      el(
        'li',
        { class: step.done ? 'done' : '' },
        step.done
          ? el('span', {}, step.title, el('span', { class: 'sr-only' }, ' (done)'))
          : el('a', { href: step.href }, step.title),
      ),
    ),
  );
}

function incidents(monitors: Overview['monitors']) {
  $('#incidents-section').hidden = monitors.incidents.length === 0;
  $('#incidents-list').replaceChildren(
    ...monitors.incidents.map((incident) =>
      el(
        'li',
        {},
        el('span', { class: `pill ${incident.status === 'open' ? 'bad' : 'warn'}` }, incident.status),
        ' ',
        el('a', { href: `/dashboard/monitors/${incident.monitor_id}` }, incident.monitor_name),
        ` — ${incident.cause}, since ${date(incident.opened_at)}`,
      ),
    ),
  );
}

function clients(summary: Overview['clients']) {
  $('#clients-section').hidden = !summary || summary.needs_attention.length === 0;
  if (!summary) return;
  $('#clients-table tbody').replaceChildren(
    ...summary.needs_attention.map((client) =>
      el(
        'tr',
        {},
        el('td', {}, client.name),
        el('td', {}, String(client.failed_containers)),
        el('td', {}, String(client.open_incidents)),
      ),
    ),
  );
}

function latestScans(scans: Overview['scans']) {
  const rows = scans.latest.map((scan) =>
    el(
      'tr',
      {},
      el('td', {}, el('a', { href: `/dashboard/scans/${scan.scan_id}` }, scan.url)),
      el('td', {}, scan.status),
      el('td', {}, scan.tracker_count === null ? '—' : String(scan.tracker_count)),
      el('td', {}, date(scan.created_at)),
    ),
  );
  $('#latest-scans-table tbody').replaceChildren(
    ...(rows.length
      ? rows
      : [el('tr', {}, el('td', { colspan: 4 }, 'No scans yet. ', el('a', { href: '/check' }, 'Run one')))]),
  );
}

async function loadOverview() {
  const overview = await api<Overview>('GET', '/api/overview/');
  attention(overview.containers.needs_attention);
  tiles(overview);
  nextSteps(overview.next_steps);
  incidents(overview.monitors);
  clients(overview.clients);
  latestScans(overview.scans);
  $('#overview').setAttribute('aria-busy', 'false');
}

if ($('#overview')) {
  loadOverview().catch((error) => {
    $('#attention').replaceChildren(el('p', { class: 'error' }, error.message));
    $('#overview').setAttribute('aria-busy', 'false');
  });
}
