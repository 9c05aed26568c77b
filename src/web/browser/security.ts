// Security: two-factor sign-in (enrol with a QR code, recovery codes shown once, turn off) and signed-in sessions.
import type { Reply } from './api-types.js';
import { $, api, bindForm, date, el, text } from './ui.js';

type TwoFactorStatus = Reply<'/api/auth/two-factor/'>;

function showState(status: TwoFactorStatus) {
  $('#two-factor-state').textContent = status.enabled
    ? `On since ${date(status.enabled_at)} · ${status.recovery_codes_left} recovery codes left.`
    : 'Off: signing in needs only your password.';
  $('#two-factor-required').hidden = status.enabled || !status.required_by_tenant;
  $('#two-factor-start').hidden = status.enabled;
  $('#two-factor-disable').hidden = !status.enabled;
  if (status.enabled) $('#two-factor-confirm').hidden = true;
}

async function loadSessions() {
  const { results } = await api<Reply<'/api/auth/sessions/'>>('GET', '/api/auth/sessions/');
  $('#sessions-table tbody').replaceChildren(
    ...results.map((session) =>
      el(
        'tr',
        {},
        el(
          'td',
          {},
          session.user_agent ?? 'unknown',
          session.current ? el('span', { class: 'pill' }, 'this one') : null,
        ),
        el('td', {}, session.ip ?? '—'),
        el('td', {}, date(session.created_at)),
        el('td', {}, session.two_factor ? 'yes' : 'no'),
        el(
          'td',
          {},
          el(
            'button',
            {
              type: 'button',
              class: 'link',
              'aria-label': `Sign out the session from ${session.user_agent ?? 'an unknown browser'}`,
              onclick: async () => {
                await api('DELETE', `/api/auth/sessions/${session.id}/`);
                if (session.current) location.href = '/login';
                else await loadSessions();
              },
            },
            'Sign out',
          ),
        ),
      ),
    ),
  );
}

async function loadSecurity() {
  showState(await api<TwoFactorStatus>('GET', '/api/auth/two-factor/'));
  await loadSessions();
}

if ($('#two-factor-state')) {
  loadSecurity().catch((error) => {
    $('#two-factor-state').textContent = error.message;
  });

  $('#two-factor-start').addEventListener('click', async () => {
    const enrollment = await api<Reply<'/api/auth/two-factor/enrollment/', 'post'>>(
      'POST',
      '/api/auth/two-factor/enrollment/',
    );
    $<HTMLImageElement>('#two-factor-qr').src = `data:image/svg+xml;base64,${btoa(enrollment.qr_svg)}`;
    $('#two-factor-secret').textContent = enrollment.secret;
    $('#two-factor-confirm').hidden = false;
    $('#two-factor-start').hidden = true;
    $('#confirm-code').focus();
  });

  bindForm($<HTMLFormElement>('#two-factor-confirm'), $('#two-factor-error'), async (data) => {
    const { recovery_codes } = await api<Reply<'/api/auth/two-factor/confirm/', 'post'>>(
      'POST',
      '/api/auth/two-factor/confirm/',
      { code: text(data, 'code').trim() },
    );
    $('#recovery-list').replaceChildren(...recovery_codes.map((code) => el('li', {}, el('code', {}, code))));
    $('#recovery-codes').hidden = false;
    $<HTMLFormElement>('#two-factor-confirm').reset();
    await loadSecurity();
  });

  bindForm($<HTMLFormElement>('#two-factor-disable'), $('#disable-error'), async (data) => {
    showState(
      await api<Reply<'/api/auth/two-factor/', 'delete'>>('DELETE', '/api/auth/two-factor/', {
        code: text(data, 'code').trim(),
      }),
    );
    $<HTMLFormElement>('#two-factor-disable').reset();
    $('#recovery-codes').hidden = true;
  });
}
