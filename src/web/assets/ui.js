// Shared helpers for the web UI: DOM building, the JSON API client (session cookie + CSRF token), forms.
export const $ = (selector) => document.querySelector(selector);

/** Builds DOM nodes; text is always set as text, never parsed as HTML. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat())
    if (child !== null && child !== undefined && child !== false)
      node.append(child instanceof Node ? child : String(child));
  return node;
}

let csrfToken = null;
async function csrf() {
  if (!csrfToken) csrfToken = (await api('GET', '/api/auth/session')).csrf_token;
  return csrfToken;
}

export async function api(method, path, body) {
  const headers = { accept: 'application/json' };
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
    const error = new Error(data.error?.message || `Request failed (${response.status})`);
    error.status = response.status;
    error.body = data;
    throw error;
  }
  return data;
}

export function showError(target, error) {
  target.textContent = error ? error.message : '';
  target.hidden = !error;
}

export const date = (iso) => (iso ? new Date(iso).toLocaleString() : '—');
export const day = (iso) => (iso ? new Date(iso).toLocaleDateString() : '—');

/** The field a validation issue names (`param`, e.g. `target.url`), found by its name or its last segment. */
function fieldFor(form, param) {
  if (!param) return null;
  const last = param.split('.').at(-1);
  return form.querySelector(`[name="${CSS.escape(param)}"]`) ?? form.querySelector(`[name="${CSS.escape(last)}"]`);
}

/** The label a person reads for a field, without its hint. */
function labelOf(field) {
  const label = field.labels?.[0];
  if (!label) return field.name;
  const copy = label.cloneNode(true);
  for (const hint of copy.querySelectorAll('.hint')) hint.remove();
  return copy.textContent.trim();
}

/** Marks every field the API named as invalid and lists each problem in the form's words; focuses the first. */
function showFormErrors(form, errorBox, error) {
  const body = error.body?.error;
  const issues = body?.details?.errors ?? (body?.param ? [{ param: body.param, message: body.message }] : []);
  const marked = issues
    .map((issue) => ({ ...issue, field: fieldFor(form, issue.param) }))
    .filter((issue) => issue.field);
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

export function bindForm(form, errorBox, submit) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    showError(errorBox, null);
    for (const field of form.querySelectorAll('[aria-invalid]')) field.removeAttribute('aria-invalid');
    const button = form.querySelector('button[type="submit"]');
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
