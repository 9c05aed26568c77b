// Shared helpers for the web UI: DOM building, the JSON API client (session cookie + CSRF token), forms.
import type { Reply } from './api-types.js';

/**
 * The element a selector names. Typed as present: a page's script looks its root element up first and returns when
 * the page does not have it; after that, the elements it uses are part of that page's markup.
 */
export const $ = <E extends Element = HTMLElement>(selector: string): E => document.querySelector(selector) as E;

/** A child `el` appends: nodes as they are, anything else as text; nothing for null, undefined and false. */
export type Child = Node | string | number | null | undefined | false;
/** Attributes `el` sets: `on…` names add event listeners; false, null and undefined leave the attribute out. */
export type Attrs = Record<string, unknown>;

/** Builds DOM nodes; text is always set as text, never parsed as HTML. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Array<Child | Child[]>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value as EventListener);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat())
    if (child !== null && child !== undefined && child !== false)
      node.append(child instanceof Node ? child : String(child));
  return node;
}

/** What a failed API call throws: the answer's status and its JSON body. */
export class ApiError extends Error {
  status = 0;
  // biome-ignore lint/suspicious/noExplicitAny: the error body's shape depends on the error (`error.details`).
  body: any;
}

let csrfToken: string | null = null;
async function csrf(): Promise<string> {
  if (!csrfToken) csrfToken = (await api<Reply<'/api/auth/session'>>('GET', '/api/auth/session')).csrf_token;
  return csrfToken;
}

/** Calls the JSON API; `T` is the answer's type (see `Reply` in api-types.ts). Throws an ApiError on failure. */
export async function api<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<T> {
  const headers: Record<string, string> = { ...extraHeaders, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (
    method !== 'GET' &&
    !path.startsWith('/api/auth/login') &&
    !path.startsWith('/api/setup') &&
    !path.startsWith('/api/public/')
  )
    headers['x-csrf-token'] = await csrf();
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    if (response.status === 401 && location.pathname.startsWith('/dashboard'))
      location.href = `/login?next=${encodeURIComponent(location.pathname)}`;
    if (data.error?.code === 'two_factor_enrollment_required' && location.pathname !== '/dashboard/security')
      location.href = '/dashboard/security';
    const error = new ApiError(data.error?.message || `Request failed (${response.status})`);
    error.status = response.status;
    error.body = data;
    throw error;
  }
  return data as T;
}

/** The message of whatever a failed call threw. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function showError(target: HTMLElement, error: unknown) {
  target.textContent = error ? messageOf(error) : '';
  target.hidden = !error;
}

export const date = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
export const day = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleDateString() : '—');

/** A length of time as people write it: "45 s", "58 min", "2 h 5 min", "3 days". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86_400) {
    const hours = Math.floor(s / 3600);
    const minutes = Math.round((s % 3600) / 60);
    return minutes ? `${hours} h ${minutes} min` : `${hours} h`;
  }
  const days = Math.round(s / 86_400);
  return days === 1 ? '1 day' : `${days} days`;
}

/**
 * Copies `source`'s text to the clipboard and says so in `status`; where the clipboard cannot be used (no permission,
 * an insecure origin), selects the text instead and says to press Ctrl+C.
 */
export async function copyText(source: HTMLElement, status: HTMLElement) {
  try {
    await navigator.clipboard.writeText(source.textContent ?? '');
    status.textContent = 'Copied.';
  } catch {
    const range = document.createRange();
    range.selectNodeContents(source);
    getSelection()?.removeAllRanges();
    getSelection()?.addRange(range);
    status.textContent = 'Selected: press Ctrl+C to copy.';
  }
}

/** A form field: inputs, selects and text areas. */
type Field = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** The field a validation issue names (`param`, e.g. `target.url`), found by its name or its last segment. */
function fieldFor(form: HTMLFormElement, param: string | undefined): Field | null {
  if (!param) return null;
  const last = param.split('.').at(-1) ?? param;
  return (
    form.querySelector<Field>(`[name="${CSS.escape(param)}"]`) ??
    form.querySelector<Field>(`[name="${CSS.escape(last)}"]`)
  );
}

/** The label a person reads for a field, without its hint. */
function labelOf(field: Field): string {
  const label = field.labels?.[0];
  if (!label) return field.name;
  const copy = label.cloneNode(true) as HTMLLabelElement;
  for (const hint of copy.querySelectorAll('.hint')) hint.remove();
  return (copy.textContent ?? '').trim();
}

interface Issue {
  param?: string;
  message: string;
}

/** Marks every field the API named as invalid and lists each problem in the form's words; focuses the first. */
function showFormErrors(form: HTMLFormElement, errorBox: HTMLElement, error: unknown) {
  const body = error instanceof ApiError ? error.body?.error : undefined;
  const issues: Issue[] = body?.details?.errors ?? (body?.param ? [{ param: body.param, message: body.message }] : []);
  const marked = issues
    .map((issue) => ({ ...issue, field: fieldFor(form, issue.param) }))
    .filter((issue): issue is Issue & { field: Field } => Boolean(issue.field));
  if (marked.length === 0) return showError(errorBox, error);
  const messages = marked.map(({ field, message }) => {
    field.setAttribute('aria-invalid', 'true');
    if (errorBox.id) field.setAttribute('aria-describedby', errorBox.id);
    return `${labelOf(field)}: ${message.replace(/^The (field|query parameter) '[^']+' /, '')}`;
  });
  errorBox.replaceChildren(
    messages.length === 1
      ? messages[0]
      : el(
          'ul',
          {},
          messages.map((message) => el('li', {}, message)),
        ),
  );
  errorBox.hidden = false;
  marked[0].field.focus();
}

export function bindForm(form: HTMLFormElement, errorBox: HTMLElement, submit: (data: FormData) => Promise<void>) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    showError(errorBox, null);
    for (const field of form.querySelectorAll('[aria-invalid]')) field.removeAttribute('aria-invalid');
    const button = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
    button.disabled = true;
    try {
      await submit(new FormData(form));
    } catch (error) {
      showFormErrors(form, errorBox, error);
    } finally {
      button.disabled = false;
    }
  });
}

/** A form's text value (FormData holds strings for text fields). */
export const text = (data: FormData, name: string): string => String(data.get(name) ?? '');

/** A form's control by name (`form.elements[name]`): its value or checked state is what the form holds. */
export const control = (form: HTMLFormElement, name: string) => form.elements.namedItem(name) as HTMLInputElement;
