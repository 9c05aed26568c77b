// Team: members with their roles, invitations (the link is shown once), and the invitation acceptance page.
import type { Reply } from './api-types.js';
import { $, api, bindForm, date, el, messageOf, showError, text } from './ui.js';

type Member = Reply<'/api/members/'>['results'][number];
type Invitation = Reply<'/api/invitations/'>['results'][number];

const ROLES = ['member', 'admin', 'owner'];

function roleSelect(member: Member) {
  return el(
    'select',
    {
      'aria-label': `Role of ${member.name}`,
      onchange: async (event: Event) => {
        showError($('#members-error'), null);
        try {
          await api('PATCH', `/api/members/${member.id}/`, { role: (event.target as HTMLSelectElement).value });
        } catch (error) {
          showError($('#members-error'), error);
        }
        await loadMembers();
      },
    },
    ROLES.map((role) => el('option', { value: role, selected: role === member.role }, role)),
  );
}

async function removeMember(member: Member) {
  if (!window.confirm(`Remove ${member.name} (${member.email}) from this tenant? Their sessions end at once.`)) return;
  showError($('#members-error'), null);
  try {
    await api('DELETE', `/api/members/${member.id}/`);
  } catch (error) {
    showError($('#members-error'), error);
  }
  await loadMembers();
}

async function loadMembers() {
  const { results } = await api<Reply<'/api/members/'>>('GET', '/api/members/?page_size=100');
  $('#members-table tbody').replaceChildren(
    ...results.map((member) =>
      el(
        'tr',
        { 'data-member-id': member.id },
        el('td', {}, member.name),
        el('td', {}, member.email),
        el('td', {}, roleSelect(member)),
        el('td', {}, member.two_factor ? 'on' : 'off'),
        el('td', {}, date(member.created_at)),
        el(
          'td',
          {},
          el(
            'button',
            {
              type: 'button',
              class: 'danger',
              'aria-label': `Remove ${member.name}`,
              onclick: () => removeMember(member),
            },
            'Remove',
          ),
        ),
      ),
    ),
  );
}

async function revokeInvitation(invitation: Invitation) {
  if (!window.confirm(`Revoke the invitation to ${invitation.email}? Its link stops working at once.`)) return;
  showError($('#invitations-error'), null);
  try {
    await api('DELETE', `/api/invitations/${invitation.id}/`);
  } catch (error) {
    showError($('#invitations-error'), error);
  }
  await loadInvitations();
}

async function loadInvitations() {
  const { results } = await api<Reply<'/api/invitations/'>>('GET', '/api/invitations/?page_size=100');
  const pending = results.filter((invitation) => invitation.status === 'pending');
  const body = $('#invitations-table tbody');
  if (pending.length === 0)
    return body.replaceChildren(el('tr', {}, el('td', { colspan: 5 }, 'No pending invitations.')));
  body.replaceChildren(
    ...pending.map((invitation) =>
      el(
        'tr',
        { 'data-invitation-id': invitation.id },
        el('td', {}, invitation.email),
        el('td', {}, invitation.role),
        el('td', {}, invitation.invited_by ?? '—'),
        el('td', {}, date(invitation.expires_at)),
        el(
          'td',
          {},
          el(
            'button',
            {
              type: 'button',
              class: 'danger',
              'aria-label': `Revoke the invitation to ${invitation.email}`,
              onclick: () => revokeInvitation(invitation),
            },
            'Revoke',
          ),
        ),
      ),
    ),
  );
}

function showInvitationLink(created: Reply<'/api/invitations/', 'post'>) {
  $('#invite-link-status').textContent = created.email_sent
    ? `We emailed ${created.email} a link to join as ${created.role}. You can also share it yourself; it is shown only now and works once, for 7 days.`
    : `No email was sent (email is not configured). Share this link with ${created.email} yourself; it is shown only now and works once, for 7 days.`;
  $('#invite-link-url').textContent = created.accept_url;
  $('#copy-invite-status').textContent = '';
  $('#invite-link').hidden = false;
  $('#copy-invite').focus();
}

if ($('#members-table')) {
  loadMembers().catch((error) => showError($('#members-error'), error));
  loadInvitations().catch((error) => showError($('#invitations-error'), error));
  bindForm($<HTMLFormElement>('#invite-form'), $('#invite-error'), async (data) => {
    const created = await api<Reply<'/api/invitations/', 'post'>>('POST', '/api/invitations/', {
      email: text(data, 'email').trim(),
      role: data.get('role'),
    });
    $<HTMLFormElement>('#invite-form').reset();
    showInvitationLink(created);
    await loadInvitations();
  });
  $('#copy-invite').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText($('#invite-link-url').textContent ?? '');
      $('#copy-invite-status').textContent = 'Copied.';
    } catch {
      const range = document.createRange();
      range.selectNodeContents($('#invite-link-url'));
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      $('#copy-invite-status').textContent = 'Selected: press Ctrl+C to copy.';
    }
  });
  $('#dismiss-invite').addEventListener('click', () => {
    $('#invite-link-url').textContent = '';
    $('#invite-link').hidden = true;
  });
}

// The acceptance page: /invite/<token>
async function openInvitation(token: string) {
  const state = $('#invite-state');
  let invitation: Reply<'/api/public/invitations/lookup/', 'post'>;
  try {
    invitation = await api('POST', '/api/public/invitations/lookup/', { token });
  } catch (error) {
    state.replaceChildren(
      el('p', { class: 'error' }, messageOf(error)),
      el('p', {}, el('a', { href: '/login' }, 'Sign in')),
    );
    return;
  }
  const role = invitation.role === 'admin' ? 'an admin' : `a ${invitation.role}`;
  state.replaceChildren(
    el('p', {}, 'You are invited to join ', el('strong', {}, invitation.tenant_name), ` as ${role}.`),
    el(
      'p',
      { class: 'hint' },
      invitation.account_exists
        ? 'You already have a Tagport account: confirm with its password.'
        : 'Create your account: choose your name and a password.',
    ),
  );
  $<HTMLInputElement>('#accept-email').value = invitation.email;
  $('#new-account-fields').hidden = invitation.account_exists;
  $<HTMLInputElement>('#accept-name').required = !invitation.account_exists;
  if (invitation.account_exists) {
    $('#accept-password-label').textContent = 'Your Tagport password';
    $('#accept-password').setAttribute('autocomplete', 'current-password');
  }
  $('#accept-form').hidden = false;
  (invitation.account_exists ? $('#accept-password') : $('#accept-name')).focus();
  bindForm($<HTMLFormElement>('#accept-form'), $('#accept-error'), async (data) => {
    const password = data.get('password');
    const body: Record<string, FormDataEntryValue | null> = { token, password };
    if (!invitation.account_exists) body.name = text(data, 'name').trim();
    const joined = await api<Reply<'/api/public/invitations/accept/', 'post'>>(
      'POST',
      '/api/public/invitations/accept/',
      body,
    );
    try {
      await api('POST', '/api/auth/login', { email: joined.email, password, tenant_id: joined.tenant_id });
      location.href = '/dashboard';
    } catch {
      location.href = '/login?next=/dashboard'; // e.g. the account signs in with a second factor
    }
  });
}

if ($('#accept-form')) openInvitation(decodeURIComponent(location.pathname.split('/').at(-1) ?? ''));
