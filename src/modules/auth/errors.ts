import { CommonCodes, challenge, defineErrors, notFound, unauthenticated } from '../../lib/errors.js';

export const AuthErrors = {
  tenantNotFound: (id: string) => notFound('tenant', id),
  sessionUserGone: () => unauthenticated(CommonCodes.missingCredentials, 'The session user no longer exists.'),
  sessionNotOpened: () => unauthenticated(CommonCodes.missingCredentials, 'The session could not be opened.'),
  ...defineErrors({
    weakPassword: {
      status: 400,
      code: 'weak_password',
      message: 'Passwords need at least 12 characters.',
      extra: { param: 'password' },
    },
    /** `param`: the field the address was sent in (`email`, or a notification channel's `target`). */
    invalidEmail: {
      status: 400,
      code: 'invalid_email',
      message: (email: string, _param?: string) => `'${email}' is not a valid email address.`,
      extra: (_email: string, param = 'email') => ({ param }),
      example: ['ana@'],
    },
    invalidLogin: { status: 401, code: 'invalid_login', message: 'Email or password is wrong.', extra: challenge },
    noActiveTenant: {
      status: 401,
      code: 'no_active_tenant',
      message: 'This user belongs to no active tenant.',
      extra: challenge,
    },
    sessionRequired: {
      status: 401,
      code: 'session_required',
      message: 'This endpoint needs the web session cookie, not an API key.',
      extra: challenge,
    },
    setupTokenRequired: {
      status: 403,
      code: 'setup_token_required',
      message:
        'This database already has tenants, so set-up needs a one-time token: run `tagport setup-token`, or open the set-up URL the server logs at start.',
    },
    invalidSetupToken: {
      status: 403,
      code: 'invalid_setup_token',
      message: 'The set-up token is wrong, expired or already used; create a new one with `tagport setup-token`.',
    },
    emailTaken: {
      status: 409,
      code: 'email_taken',
      message: (email: string) => `A user with the email ${email} already exists; nothing was changed.`,
      example: ['ana@example.com'],
    },
    alreadySetUp: { status: 409, code: 'already_set_up', message: 'Tagport is already set up; sign in instead.' },
    tooManyLoginAttempts: {
      status: 429,
      code: 'too_many_login_attempts',
      message: (seconds: number) => `Too many failed sign-ins; try again in ${seconds} s.`,
      extra: (seconds: number) => ({ headers: { 'retry-after': String(seconds) } }),
      example: [240],
    },
  }),
};
