import { html, Html } from '../../web/html.js';
import type { StatusDocument } from './service.js';

type Incident = StatusDocument['open_incidents'][number];
type Component = StatusDocument['components'][number];
type Window = StatusDocument['maintenance'][number];

const STATE_LABELS = { operational: 'Operational', degraded: 'Degraded', outage: 'Outage' } as const;
/** A shape beside every colour, so no state is told by colour alone. */
const STATE_ICONS = { operational: '✓', degraded: '!', outage: '✕' } as const;
const HEADLINES = {
  operational: 'All systems operational',
  degraded: 'Some systems degraded',
  outage: 'Some systems are down',
} as const;
const STAGE_LABELS = {
  investigating: 'Investigating',
  identified: 'Identified',
  monitoring: 'Monitoring',
  resolved: 'Resolved',
} as const;

const when = (iso: string) => new Html(`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`);
const dayLabel = (date: string) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });

function dayClass(day: Component['days'][number]): string {
  if (day.uptime_percent === null) return 'none';
  if (day.failures === 0) return 'ok';
  return day.uptime_percent >= 95 ? 'partial' : 'down';
}

function dayText(day: Component['days'][number]): string {
  if (day.uptime_percent === null) return `${dayLabel(day.date)}: no data`;
  const failed = day.failures ? `, ${day.failures} of ${day.checks} checks failed` : `, ${day.checks} checks`;
  return `${dayLabel(day.date)}: ${day.uptime_percent}% uptime${failed}`;
}

function uptimeBar(component: Component) {
  const last = component.days.length - 1;
  return html`<ol class="uptime" aria-label="${component.name}: daily uptime over the last 90 days; use the arrow keys to move between days">${component.days.map(
    (day, index) =>
      html`<li class="day day-${dayClass(day)}" tabindex="${index === last ? '0' : '-1'}"><span class="tip">${dayText(day)}</span></li>`,
  )}</ol>`;
}

/**
 * The uptime over the days that have checks, saying how many: "100% uptime over 1 day", not over 90 days of which 89
 * are empty; "No data yet" before the first check.
 */
function overallUptime(component: Component): string {
  if (component.uptime_percent === null) return 'No data yet';
  const counted = component.days.filter((day) => day.uptime_percent !== null).length;
  return `${component.uptime_percent}% uptime over ${counted === 1 ? '1 day' : `${counted} days`}`;
}

function componentRow(component: Component) {
  const overall = overallUptime(component);
  return html`<li class="component">
<div class="component-head"><h3>${component.name}</h3><span class="state state-${component.status}"><span aria-hidden="true">${STATE_ICONS[component.status]}</span> ${STATE_LABELS[component.status]}</span></div>
<p class="hint">${component.detail}</p>
${uptimeBar(component)}
<div class="uptime-scale" aria-hidden="true"><span>90 days ago</span><span>${overall}</span><span>Today</span></div>
<p class="sr-only">${component.name}: ${overall} with checks, of the last 90 days.</p>
</li>`;
}

function incidentArticle(incident: Incident, level: 'h3' | 'h4') {
  const heading = level === 'h3' ? html`<h3>${incident.title}</h3>` : html`<h4>${incident.title}</h4>`;
  return html`<article class="incident incident-${incident.status}" id="${incident.id}">
${heading}
<p class="hint"><span class="stage stage-${incident.stage}">${STAGE_LABELS[incident.stage]}</span> · ${incident.component} · opened ${when(incident.opened_at)}${incident.resolved_at ? html`, resolved ${when(incident.resolved_at)}` : ''}</p>
<ol class="timeline">${incident.updates.map(
    (update) =>
      html`<li><strong>${STAGE_LABELS[update.status]}</strong> <span class="hint">${when(update.created_at)}</span><p>${update.message}</p></li>`,
  )}</ol>
</article>`;
}

function maintenanceArticle(window: Window) {
  const label = { scheduled: 'Scheduled', in_progress: 'In progress', completed: 'Completed' }[window.state];
  return html`<article class="maintenance maintenance-${window.state}" id="${window.id}">
<h3>${window.title}</h3>
<p class="hint"><span class="stage stage-maintenance">${label}</span> · ${when(window.starts_at)} to ${when(window.ends_at)}${window.components.length ? ` · ${window.components.join(', ')}` : ''}</p>
<p>${window.message}</p>
</article>`;
}

function section(id: string, title: string, items: Html[], empty?: string) {
  if (items.length === 0 && !empty) return html``;
  return html`<section aria-labelledby="${id}"><h2 id="${id}">${title}</h2>${items.length ? items : html`<p class="hint">${empty}</p>`}</section>`;
}

/** The public status page: headline, active incidents and maintenance, 90-day bars, history and subscriptions. */
/** Offered only where email subscriptions can work (mail configured, and PUBLIC_BASE_URL for the links). */
const EMAIL_FORM = html`<form method="post" action="/status/subscribe" class="inline-form"><label for="subscribe-email">Email address</label><input id="subscribe-email" name="email" type="email" autocomplete="email" required><button type="submit">Subscribe by email</button></form>`;

const NO_EMAIL = html`<p class="hint">Email subscriptions are not available on this instance: use a feed or a webhook.</p>`;

export function statusPageBody(document: StatusDocument, notice?: string, emailSubscriptions = true): Html {
  const inProgress = document.maintenance.filter((window) => window.state === 'in_progress');
  const upcoming = document.maintenance.filter((window) => window.state === 'scheduled');
  const past = document.maintenance.filter((window) => window.state === 'completed').reverse();
  const stale = document.stale
    ? html`<div class="banner banner-stale" role="status"><strong>Data may be stale.</strong> The database is not answering, so incidents, maintenance and uptime are shown as last known${document.data_as_of ? html` (${when(document.data_as_of)})` : ''}; component states are live.</div>`
    : '';
  return html`<div class="status-page">
<div class="status-hero hero-${document.status}"><span class="hero-icon" aria-hidden="true">${STATE_ICONS[document.status]}</span><div><h1>${HEADLINES[document.status]}</h1>
<p class="hint">Updated ${when(document.updated_at)} · <a href="#subscribe">Subscribe to updates</a></p></div></div>
${notice ? html`<div class="banner" role="status">${notice}</div>` : ''}
${stale}
${section(
  'active',
  'Active incidents',
  document.open_incidents.map((incident) => incidentArticle(incident, 'h3')),
)}
${section('maintenance-now', 'Maintenance in progress', inProgress.map(maintenanceArticle))}
${section('maintenance-next', 'Scheduled maintenance', upcoming.map(maintenanceArticle))}
<section aria-labelledby="components"><h2 id="components">Components</h2>
<p class="hint">One bar per day over the last 90 days, from Tagport's own checks every few seconds. Hover or focus a day to read its uptime.</p>
<ul class="legend" aria-label="Legend"><li><span class="swatch day-ok"></span> No failed checks</li><li><span class="swatch day-partial"></span> Some failed (≥ 95%)</li><li><span class="swatch day-down"></span> Down (&lt; 95%)</li><li><span class="swatch day-none"></span> No data</li></ul>
<ul class="components">${document.components.map(componentRow)}</ul>
</section>
${section(
  'history',
  'Incident history (90 days)',
  document.recent_incidents.map((incident) => incidentArticle(incident, 'h3')),
  'No incidents in the last 90 days.',
)}
${section('maintenance-past', 'Past maintenance', past.map(maintenanceArticle))}
<section aria-labelledby="queues-title"><h2 id="queues-title">Queues</h2>
<div class="table-wrap"><table><caption class="sr-only">Job queues</caption><thead><tr><th scope="col">Queue</th><th scope="col">Waiting</th><th scope="col">Running</th><th scope="col">Oldest wait</th></tr></thead>
<tbody>${document.queues.map((queue) => html`<tr><td>${queue.name}</td><td>${String(queue.waiting)}</td><td>${String(queue.running)}</td><td>${String(queue.oldest_wait_seconds)} s</td></tr>`)}</tbody></table></div></section>
<section aria-labelledby="subscribe" class="subscribe"><h2 id="subscribe">Subscribe to updates</h2>
<p>Feeds: <a href="/status/feed.atom" type="application/atom+xml">Atom</a> · <a href="/status/feed.rss" type="application/rss+xml">RSS</a> · JSON: <a href="/api/status.json">/api/status.json</a> · <a href="/changelog">Changelog</a></p>
${emailSubscriptions ? EMAIL_FORM : NO_EMAIL}
<form method="post" action="/status/subscribe" class="inline-form"><label for="subscribe-webhook">Webhook URL (https)</label><input id="subscribe-webhook" name="webhook_url" type="url" placeholder="https://example.com/hooks/status" required><button type="submit">Subscribe a webhook</button></form>
</section>
</div>`;
}

/** A page that confirms or unsubscribes with a button, so a mail scanner following the link changes nothing. */
export function tokenActionPage(action: 'confirm' | 'unsubscribe', token: string): Html {
  const [title, button] =
    action === 'confirm'
      ? ['Confirm your subscription', 'Confirm the subscription']
      : ['Unsubscribe from Tagport status', 'Unsubscribe'];
  return html`<h1>${title}</h1><form method="post" action="/status/${action}"><input type="hidden" name="token" value="${token}"><button type="submit">${button}</button></form><p><a href="/status">Back to the status page</a></p>`;
}
