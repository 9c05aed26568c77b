import type { Reply, Schemas } from './api-types.js';
import { $, api, bindForm, copyText, date, day, el, showError } from './ui.js';

type ApiKey = Schemas['ApiKey'];

// API keys
const keysTable = $('#keys-table');

/** The warning for keys that called deprecated operations in the last 30 days (spec §9). */
function deprecatedCalls(keys: ApiKey[]) {
  const calling = keys.filter((key) => key.deprecated_calls.length > 0);
  $('#deprecated-calls').hidden = calling.length === 0;
  $('#deprecated-calls-list').replaceChildren(
    ...calling.flatMap((key) =>
      key.deprecated_calls.map((call) =>
        el(
          'li',
          { 'data-key-id': key.id },
          el('strong', {}, key.name),
          ' called ',
          el('code', {}, call.operation_id),
          ` ${call.calls === 1 ? 'once' : `${call.calls} times`} (last ${date(call.last_called_at)}); it may stop working from ${call.sunset}. `,
          el('a', { href: call.changelog }, 'What to use instead'),
        ),
      ),
    ),
  );
}

const RANK = { member: 0, admin: 1, owner: 2 } as const;
type Role = keyof typeof RANK;

/** The signed-in person's role, read once: it decides which keys they may revoke and which roles they may give. */
let ownRole: Promise<Role> | null = null;
const viewerRole = () => {
  ownRole ??= api<Reply<'/api/auth/session'>>('GET', '/api/auth/session').then((session) => session.role);
  return ownRole;
};

/** Revoke for an active key of the viewer's role or below; a key above it shows who can revoke it instead. */
function revokeCell(key: ApiKey, role: Role) {
  if (key.status !== 'active') return null;
  if (RANK[key.role] > RANK[role]) return el('span', { class: 'hint' }, `an ${key.role} can revoke it`);
  return el(
    'button',
    { type: 'button', class: 'danger', 'aria-label': `Revoke ${key.name}`, onclick: () => revokeKey(key) },
    'Revoke',
  );
}

async function loadKeys() {
  const [keys, role] = await Promise.all([
    api<Reply<'/api/api-keys/'>>('GET', '/api/api-keys/?page_size=100'),
    viewerRole(),
  ]);
  deprecatedCalls(keys.results);
  const body = keysTable.querySelector('tbody')!;
  if (keys.results.length === 0) return body.replaceChildren(el('tr', {}, el('td', { colspan: 8 }, 'No keys yet.')));
  body.replaceChildren(
    ...keys.results.map((key) =>
      el(
        'tr',
        { 'data-key-id': key.id },
        el('td', {}, key.name),
        el('td', {}, el('code', {}, `${key.token_start}…${key.token_last4}`)),
        el('td', {}, key.role),
        el('td', {}, date(key.created_at)),
        el('td', {}, key.last_used_at ? date(key.last_used_at) : 'never'),
        el('td', {}, key.expires_at ? day(key.expires_at) : 'never'),
        el('td', { class: `status-${key.status}` }, key.status),
        el('td', {}, revokeCell(key, role)),
      ),
    ),
  );
}
async function revokeKey(key: ApiKey) {
  if (!window.confirm(`Revoke the key "${key.name}"? Requests using it will fail at once.`)) return;
  try {
    await api('DELETE', `/api/api-keys/${key.id}/`);
    await loadKeys();
  } catch (error) {
    showError($('#key-error'), error);
  }
}
/** Nobody creates a key above their own role: the roles above it are offered disabled, with the reason. */
async function limitRoles() {
  const role = await viewerRole();
  $('#key-own-role').textContent = `: you are ${role}`;
  for (const option of $<HTMLSelectElement>('#key-role').options) {
    const above = RANK[option.value as Role] > RANK[role];
    option.disabled = above;
    option.textContent = above ? `${option.value} (needs the ${option.value} role)` : option.value;
  }
}

if (keysTable) {
  loadKeys().catch((error) => showError($('#key-error'), error));
  limitRoles().catch((error) => showError($('#key-error'), error));
  bindForm($<HTMLFormElement>('#key-form'), $('#key-error'), async (data) => {
    const body: Record<string, FormDataEntryValue | null> = { name: data.get('name'), role: data.get('role') };
    if (data.get('expires_at')) body.expires_at = new Date(`${data.get('expires_at')}T23:59:59Z`).toISOString();
    const key = await api<Reply<'/api/api-keys/', 'post'>>('POST', '/api/api-keys/', body);
    $<HTMLFormElement>('#key-form').reset();
    $('#new-key-token').textContent = key.token;
    $('#copy-status').textContent = '';
    $('#new-key').hidden = false;
    $('#copy-token').focus();
    await loadKeys();
  });
  $('#copy-token').addEventListener('click', () => copyText($('#new-key-token'), $('#copy-status')));
  $('#dismiss-token').addEventListener('click', () => {
    $('#new-key-token').textContent = '';
    $('#new-key').hidden = true;
  });
}
