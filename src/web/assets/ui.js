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

export function bindForm(form, errorBox, submit) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    showError(errorBox, null);
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      await submit(new FormData(form));
    } catch (error) {
      showError(errorBox, error);
    } finally {
      button.disabled = false;
    }
  });
}
