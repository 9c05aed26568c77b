import type { Reply } from './api-types.js';
import { $, api, type Child, date, el, showError } from './ui.js';

type LogPage = Reply<'/api/containers/{id}/outgoing-log/'>;
type Forward = LogPage['results'][number];

// "Why is my conversion missing": the container's outgoing log searched by event name or id, each forward with
// what was sent and what GA4 or Meta answered; failures stand out with the vendor's message.
const root = $('#outgoing-log');
const containerId = root?.dataset.containerId;
const logUrl = `/api/containers/${encodeURIComponent(containerId ?? '')}/outgoing-log/`;
const PAGE_SIZE = 25;
const VENDOR_NAMES: Record<string, string> = { ga4: 'GA4', meta: 'Meta' };

/** The `next` links still to follow for the current search, one per query it runs. */
let pending: string[] = [];
let shown = 0;

function fact(term: string, ...description: Child[]) {
  return [el('dt', {}, term), el('dd', {}, ...description)];
}

function answerOf(entry: Forward) {
  const status = entry.http_status === null ? '' : `HTTP ${entry.http_status}`;
  if (entry.status === 'delivered')
    return [el('span', { class: 'yes' }, 'accepted'), status ? ` · ${status}` : ' (GA4 answers without a body)'];
  return [el('span', { class: 'no vendor-answer' }, entry.error ?? 'failed'), status || 'no answer from the vendor'];
}

function forwardCard(entry: Forward) {
  const heading = `forward-${entry.id}`;
  const vendor = VENDOR_NAMES[entry.vendor] ?? entry.vendor;
  return el(
    'section',
    { class: `card forward ${entry.status}`, 'aria-labelledby': heading },
    el(
      'h3',
      { id: heading },
      el('span', { class: entry.status === 'failed' ? 'no' : 'yes' }, entry.status),
      ` · ${entry.event_name} to ${vendor}`,
    ),
    el(
      'dl',
      { class: 'facts' },
      ...fact('Destination', el('code', {}, entry.destination)),
      ...fact('Event id', entry.event_id ? el('code', {}, entry.event_id) : 'none'),
      ...fact('When', date(entry.at)),
      ...fact(`${vendor} answered`, ...answerOf(entry)),
      ...fact(
        'Attempts',
        String(entry.attempts),
        entry.latency_ms === null ? '' : ` · last took ${entry.latency_ms} ms`,
      ),
      ...fact('Sent', el('pre', { tabindex: '0' }, JSON.stringify(entry.request, null, 2))),
    ),
  );
}

/** Each query the search runs: by event id and by event name, the same vendor and outcome filters on both. */
function searchUrls(form: HTMLFormElement) {
  const data = new FormData(form);
  const q = String(data.get('q') ?? '').trim();
  const common = new URLSearchParams({ page_size: String(PAGE_SIZE) });
  for (const name of ['vendor', 'status']) if (data.get(name)) common.set(name, String(data.get(name)));
  if (!q) return [`${logUrl}?${common}`];
  const by = (name: string) => {
    const params = new URLSearchParams(common);
    params.set(name, q);
    return `${logUrl}?${params}`;
  };
  return q.length <= 100 && /^[A-Za-z][A-Za-z0-9_]*$/.test(q) ? [by('event_id'), by('event_name')] : [by('event_id')];
}

/** Reads one page of each query, newest first without repeats, and keeps where each may go on. */
async function load(urls: string[], append: boolean) {
  showError($('#outgoing-error'), null);
  const pages = await Promise.all(urls.map((url) => api<LogPage>('GET', url)));
  pending = pages.map((page) => page.next).filter((next): next is string => Boolean(next));
  const shownCards = append ? [...$('#outgoing-results').querySelectorAll('.forward')] : [];
  const seen = new Set(shownCards.map((card) => card.id));
  const entries = pages
    .flatMap((page) => page.results)
    .filter((entry, index, all) => all.findIndex((other) => other.id === entry.id) === index)
    .filter((entry) => !seen.has(`card-${entry.id}`))
    .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  const cards = entries.map((entry) => Object.assign(forwardCard(entry), { id: `card-${entry.id}` }));
  if (append) $('#outgoing-results').append(...cards);
  else $('#outgoing-results').replaceChildren(...cards);
  shown = (append ? shown : 0) + cards.length;
  const failed = $('#outgoing-results').querySelectorAll('.forward.failed').length;
  $('#outgoing-summary').textContent = shown
    ? `${shown} forward${shown === 1 ? '' : 's'} shown, ${failed} failed.`
    : 'No forward matches: the event never reached the container, was dropped as a bot, or is older than your plan keeps the log.';
  $('#outgoing-more').hidden = pending.length === 0;
}

async function showContainer() {
  const container = await api<Reply<'/api/containers/{id}/'>>(
    'GET',
    `/api/containers/${encodeURIComponent(containerId ?? '')}/`,
  );
  $('#outgoing-title').textContent = `Outgoing log: ${container.name}`;
}

if (root) {
  const failed = (error: unknown) => showError($('#outgoing-error'), error);
  const form = $<HTMLFormElement>('#outgoing-search');
  showContainer().catch(failed);
  load(searchUrls(form), false).catch(failed);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    load(searchUrls(form), false).catch(failed);
  });
  $('#outgoing-more').addEventListener('click', () => {
    const urls = pending.map((link) => {
      const url = new URL(link);
      return `${url.pathname}${url.search}`;
    });
    load(urls, true).catch(failed);
  });
}
