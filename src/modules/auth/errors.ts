import { type CodesOf, errorCode, CommonCodes, notFound, unauthenticated } from '../../lib/errors.js';

export const AuthCodes = {
  weakPassword: errorCode(400, 'weak_password', {
    message: 'Passwords need at least 12 characters.',
    param: 'password',
  }),
  invalidEmail: errorCode(400, 'invalid_email', {
    message: "'ana@' is not a valid email address.",
    param: 'email',
  }),
  invalidLogin: errorCode(401, 'invalid_login', { message: 'Email or password is wrong.' }),
  noActiveTenant: errorCode(401, 'no_active_tenant', { message: 'This user belongs to no active tenant.' }),
  sessionRequired: errorCode(401, 'session_required', {
    message: 'This endpoint needs the web session cookie, not an API key.',
  }),
  setupTokenRequired: errorCode(403, 'setup_token_required', {
    message: 'This database already has tenants, so set-up needs a one-time token: run `tagport setup-token`.',
  }),
  invalidSetupToken: errorCode(403, 'invalid_setup_token', {
    message: 'The set-up token is wrong, expired or already used; create a new one with `tagport setup-token`.',
  }),
  emailTaken: errorCode(409, 'email_taken', {
    message: 'A user with the email ana@example.com already exists; nothing was changed.',
  }),
  alreadySetUp: errorCode(409, 'already_set_up', { message: 'Tagport is already set up; sign in instead.' }),
  tooManyLoginAttempts: errorCode(429, 'too_many_login_attempts', {
    message: 'Too many failed sign-ins; try again in 240 s.',
  }),
} as const;

export type AuthErrorCode = CodesOf<typeof AuthCodes>;

export const AuthErrors = {
  weakPassword: () => AuthCodes.weakPassword.error('Passwords need at least 12 characters.', { param: 'password' }),
  invalidEmail: (email: string) =>
    AuthCodes.invalidEmail.error(`'${email}' is not a valid email address.`, { param: 'email' }),
  emailTaken: (email: string) =>
    AuthCodes.emailTaken.error(`A user with the email ${email} already exists; nothing was changed.`),
  alreadySetUp: () => AuthCodes.alreadySetUp.error('Tagport is already set up; sign in instead.'),
  setupTokenRequired: () =>
    AuthCodes.setupTokenRequired.error(
      'This database already has tenants, so set-up needs a one-time token: run `tagport setup-token`, or open the set-up URL the server logs at start.',
    ),
  invalidSetupToken: () =>
    AuthCodes.invalidSetupToken.error(
      'The set-up token is wrong, expired or already used; create a new one with `tagport setup-token`.',
    ),
  invalidLogin: () => unauthenticated(AuthCodes.invalidLogin, 'Email or password is wrong.'),
  noActiveTenant: () => unauthenticated(AuthCodes.noActiveTenant, 'This user belongs to no active tenant.'),
  tenantNotFound: (id: string) => notFound('tenant', id),
  sessionUserGone: () => unauthenticated(CommonCodes.missingCredentials, 'The session user no longer exists.'),
  sessionNotOpened: () => unauthenticated(CommonCodes.missingCredentials, 'The session could not be opened.'),
  sessionRequired: () =>
    unauthenticated(AuthCodes.sessionRequired, 'This endpoint needs the web session cookie, not an API key.'),
  tooManyLoginAttempts: (seconds: number) =>
    AuthCodes.tooManyLoginAttempts.error(`Too many failed sign-ins; try again in ${seconds} s.`, {
      headers: { 'retry-after': String(seconds) },
    }),
};
