import type { Reply } from './api-types.js';
import { $, api, bindForm, type Child, control, date, el, showError } from './ui.js';

type Pixel = Reply<'/api/containers/{id}/meta-pixels/'>['results'][number];
type Delivery = Reply<'/api/containers/{id}/meta-pixels/{pixel}/deliveries/'>['results'][number];
type GraphError = NonNullable<Delivery['error']>;

// A container's Meta pixels: add one, list each with the last answer Meta's Graph API gave, edit or delete one.
const root = $('#meta-pixels');
const containerId = root?.dataset.containerId;
const pixelsUrl = () => `/api/containers/${encodeURIComponent(containerId ?? '')}/meta-pixels/`;

const STATUS_CLASS: Record<string, string> = { delivered: 'yes', failed: 'no', retrying: 'warning' };

function fact(term: string, ...description: Child[]) {
  return [el('dt', {}, term), el('dd', {}, ...description)];
}

/** Graph's error as Meta sent it: the message first, then what to quote to Meta support. */
function graphError(error: GraphError) {
  const details = [
    error.type,
    error.code === null ? null : `code ${error.code}`,
    error.error_subcode === null ? null : `subcode ${error.error_subcode}`,
    error.fbtrace_id ? `fbtrace_id ${error.fbtrace_id}` : null,
  ].filter(Boolean);
  return [el('span', { class: 'graph-message' }, error.message), details.length ? ` (${details.join(', ')})` : ''];
}

function lastDelivery(delivery: Delivery | null | undefined) {
  if (delivery === undefined) return fact('Last delivery', 'cannot be read now');
  if (!delivery) return fact('Last delivery', 'no events sent yet');
  return [
    ...fact(
      'Last delivery',
      el('span', { class: STATUS_CLASS[delivery.status] ?? '' }, delivery.status),
      ` · ${delivery.event_name} · ${date(delivery.last_attempt_at)}`,
      delivery.http_status ? ` · HTTP ${delivery.http_status}` : '',
      delivery.attempts > 1 ? ` · ${delivery.attempts} attempts` : '',
    ),
    ...(delivery.error ? fact("Meta's error", ...graphError(delivery.error)) : []),
  ];
}

/** The most recently sent event's delivery; null before any, undefined when it cannot be read. */
async function newestDelivery(pixel: Pixel): Promise<Delivery | null | undefined> {
  try {
    const page = await api<Reply<'/api/containers/{id}/meta-pixels/{pixel}/deliveries/'>>(
      'GET',
      `${pixelsUrl()}${pixel.id}/deliveries/?page_size=1`,
    );
    return page.results[0] ?? null;
  } catch {
    return undefined;
  }
}

function pixelCard(pixel: Pixel, delivery: Delivery | null | undefined) {
  const heading = `pixel-${pixel.id}`;
  return el(
    'section',
    { class: 'card pixel', 'data-pixel-id': pixel.id, 'aria-labelledby': heading },
    el('h3', { id: heading }, `Pixel ${pixel.pixel_id}`),
    el(
      'dl',
      { class: 'facts' },
      ...fact(
        'Access token',
        el('code', {}, `…${pixel.access_token_last4}`),
        el('span', { class: 'hint' }, ' (its last four characters)'),
      ),
      ...fact('Test event code', pixel.test_event_code ? el('code', {}, pixel.test_event_code) : 'none'),
      ...fact('Added', date(pixel.created_at)),
      ...lastDelivery(delivery),
    ),
    el(
      'p',
      { class: 'inline' },
      el(
        'button',
        {
          type: 'button',
          'aria-label': `Edit pixel ${pixel.pixel_id}`,
          'aria-expanded': 'false',
          onclick: (event: MouseEvent) => toggleEditor(event.currentTarget as HTMLButtonElement, pixel),
        },
        'Edit',
      ),
      el(
        'button',
        {
          type: 'button',
          class: 'danger',
          'aria-label': `Delete pixel ${pixel.pixel_id}`,
          onclick: () => remove(pixel),
        },
        'Delete',
      ),
    ),
  );
}

/** The form to change a pixel's test event code or replace its token; the token field starts (and stays) empty. */
function editForm(pixel: Pixel, close: () => void) {
  const id = (name: string) => `${name}-${pixel.id}`;
  const form = el(
    'form',
    { class: 'stack pixel-edit', novalidate: true, 'aria-label': `Edit pixel ${pixel.pixel_id}` },
    el('label', { for: id('edit-code') }, 'Test event code ', el('span', { class: 'hint' }, '(empty for none)')),
    el('input', {
      id: id('edit-code'),
      name: 'test_event_code',
      autocomplete: 'off',
      maxlength: 64,
      value: pixel.test_event_code ?? '',
    }),
    el(
      'label',
      { for: id('edit-token') },
      'New access token ',
      el('span', { class: 'hint' }, `(empty keeps the token ending in ${pixel.access_token_last4})`),
    ),
    el('input', {
      id: id('edit-token'),
      name: 'access_token',
      type: 'password',
      autocomplete: 'new-password',
      maxlength: 1000,
    }),
    el(
      'p',
      { class: 'inline' },
      el('button', { type: 'submit' }, 'Save'),
      el('button', { type: 'button', onclick: close }, 'Cancel'),
    ),
    el('p', { class: 'error', role: 'alert', id: id('edit-error'), hidden: true }),
  );
  bindForm(form, form.querySelector<HTMLElement>('.error')!, async (data) => {
    const token = String(data.get('access_token') ?? '').trim();
    const code = String(data.get('test_event_code') ?? '').trim();
    const body = { test_event_code: code || null, ...(token ? { access_token: token } : {}) };
    const saved = await api<Reply<'/api/containers/{id}/meta-pixels/{pixel}/', 'patch'>>(
      'PATCH',
      `${pixelsUrl()}${pixel.id}/`,
      body,
    );
    control(form, 'access_token').value = '';
    await reloadThenSay(
      token
        ? `Pixel ${saved.pixel_id} saved. Its new access token is stored encrypted and not shown again: only its last four characters, …${saved.access_token_last4}.`
        : `Pixel ${saved.pixel_id} saved.`,
    );
  });
  return form;
}

/** Opens the pixel's edit form under its card's buttons, or closes it. */
function toggleEditor(button: HTMLButtonElement, pixel: Pixel) {
  const card = button.closest('.pixel')!;
  const open = card.querySelector('.pixel-edit');
  const close = () => {
    card.querySelector('.pixel-edit')?.remove();
    button.setAttribute('aria-expanded', 'false');
    button.focus();
  };
  if (open) return close();
  card.append(editForm(pixel, close));
  button.setAttribute('aria-expanded', 'true');
  card.querySelector<HTMLInputElement>('.pixel-edit input')!.focus();
}

async function loadPixels() {
  showError($('#pixels-error'), null);
  const pixels = (await api<Reply<'/api/containers/{id}/meta-pixels/'>>('GET', `${pixelsUrl()}?page_size=100`)).results;
  const deliveries = await Promise.all(pixels.map(newestDelivery));
  $('#pixels-list').replaceChildren(
    ...(pixels.length
      ? pixels.map((pixel, index) => pixelCard(pixel, deliveries[index]))
      : [el('p', {}, 'No pixels yet: add one above.')]),
  );
}

/** Announces a change once the list shows it, so the status never describes a list still being redrawn. */
async function reloadThenSay(message: string) {
  try {
    await loadPixels();
  } finally {
    $('#pixel-status').textContent = message;
  }
}

async function remove(pixel: Pixel) {
  const question = `Delete pixel ${pixel.pixel_id}? The container stops sending it events; its access token and delivery records are deleted.`;
  if (!window.confirm(question)) return;
  try {
    await api('DELETE', `${pixelsUrl()}${pixel.id}/`);
    await reloadThenSay(`Pixel ${pixel.pixel_id} deleted.`);
  } catch (error) {
    showError($('#pixels-error'), error);
  }
}

/** Names the container; only the built-in runtime sends events to Meta itself. */
async function showContainer() {
  const container = await api<Reply<'/api/containers/{id}/'>>(
    'GET',
    `/api/containers/${encodeURIComponent(containerId ?? '')}/`,
  );
  $('#pixels-title').textContent = `Meta pixels: ${container.name}`;
  const note = $('#pixels-runtime');
  note.hidden = container.runtime === 'builtin';
  note.textContent = `This container runs on the ${container.runtime} runtime: only the built-in runtime sends events to Meta pixels.`;
}

function pixelFrom(data: FormData) {
  const text = (name: string) => String(data.get(name) ?? '').trim();
  const body: Record<string, string> = { pixel_id: text('pixel_id'), access_token: text('access_token') };
  if (text('test_event_code')) body.test_event_code = text('test_event_code');
  return body;
}

if (root) {
  const failed = (error: unknown) => showError($('#pixels-error'), error);
  showContainer().catch(failed);
  loadPixels().catch(failed);
  $('#pixels-refresh').addEventListener('click', () => loadPixels().catch(failed));
  bindForm($<HTMLFormElement>('#pixel-form'), $('#pixel-error'), async (data) => {
    const { pixel_id, access_token_last4 } = await api<Reply<'/api/containers/{id}/meta-pixels/', 'post'>>(
      'POST',
      pixelsUrl(),
      pixelFrom(data),
    );
    $<HTMLFormElement>('#pixel-form').reset();
    await reloadThenSay(
      `Pixel ${pixel_id} added. Its access token is stored encrypted and not shown again: only its last four characters, …${access_token_last4}.`,
    );
  });
}
