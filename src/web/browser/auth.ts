import { $, ApiError, api, bindForm, text } from './ui.js';

// Sign in, set-up, sign out
const loginForm = $<HTMLFormElement>('#login-form');
if (loginForm) {
  bindForm(loginForm, $('#login-error'), async (data) => {
    const code = text(data, 'code').trim();
    try {
      await api('POST', '/api/auth/login', {
        email: data.get('email'),
        password: data.get('password'),
        ...(code ? { code } : {}),
      });
    } catch (error) {
      if (!(error instanceof ApiError) || error.body?.error?.code !== 'two_factor_required') throw error;
      $('#code-field').hidden = false;
      $('#code').focus();
      return;
    }
    const next = new URLSearchParams(location.search).get('next');
    location.href = next?.startsWith('/') && !next.startsWith('//') ? next : '/dashboard';
  });
}
const setupForm = $<HTMLFormElement>('#setup-form');
if (setupForm) {
  bindForm(setupForm, $('#setup-error'), async (data) => {
    const account = Object.fromEntries(data.entries()) as Record<string, string>;
    await api('POST', '/api/setup/', account);
    await api('POST', '/api/auth/login', { email: account.email, password: account.password });
    location.href = '/dashboard';
  });
}
const signOut = $('#sign-out');
if (signOut)
  signOut.addEventListener('click', async () => {
    await api('POST', '/api/auth/logout').catch(() => {});
    location.href = '/login';
  });
