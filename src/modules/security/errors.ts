import { type CodesOf, errorCode, notFound, unauthenticated } from '../../lib/errors.js';

export const SecurityCodes = {
  twoFactorRequired: errorCode(401, 'two_factor_required', {
    message:
      'This account signs in with a second factor: send the 6-digit code from the authenticator app (or a recovery code) in `code`.',
  }),
  invalidTwoFactorCode: errorCode(401, 'invalid_two_factor_code', {
    message: 'The code is wrong, expired or already used.',
  }),
  incorrectCode: errorCode(400, 'incorrect_code', {
    message: 'The code is wrong or expired: enter the current code from the app.',
    param: 'code',
  }),
  enrollmentRequired: errorCode(403, 'two_factor_enrollment_required', {
    message:
      'This tenant requires two-factor sign-in: set it up under Security (POST /api/auth/two-factor/enrollment/) before anything else.',
  }),
  alreadyEnabled: errorCode(409, 'two_factor_already_enabled', {
    message: 'Two-factor sign-in is already on; turn it off first to enrol a new device.',
  }),
  enrollmentNotStarted: errorCode(409, 'two_factor_enrollment_not_started', {
    message: 'Start the enrolment first (POST /api/auth/two-factor/enrollment/).',
  }),
  notEnabled: errorCode(409, 'two_factor_not_enabled', {
    message: 'Two-factor sign-in is not on for this account.',
  }),
  requiredByTenant: errorCode(409, 'two_factor_required_by_tenant', {
    message: 'A tenant you belong to requires two-factor sign-in, so it cannot be turned off.',
  }),
} as const;

export type SecurityErrorCode = CodesOf<typeof SecurityCodes>;

export const SecurityErrors = {
  twoFactorRequired: () =>
    unauthenticated(
      SecurityCodes.twoFactorRequired,
      'This account signs in with a second factor: send the 6-digit code from the authenticator app (or a recovery code) in `code`.',
    ),
  invalidTwoFactorCode: () =>
    unauthenticated(SecurityCodes.invalidTwoFactorCode, 'The code is wrong, expired or already used.'),
  incorrectCode: () =>
    SecurityCodes.incorrectCode.error('The code is wrong or expired: enter the current code from the app.', {
      param: 'code',
    }),
  enrollmentRequired: () =>
    SecurityCodes.enrollmentRequired.error(
      'This tenant requires two-factor sign-in: set it up under Security (POST /api/auth/two-factor/enrollment/) before anything else.',
    ),
  alreadyEnabled: () =>
    SecurityCodes.alreadyEnabled.error('Two-factor sign-in is already on; turn it off first to enrol a new device.'),
  enrollmentNotStarted: () =>
    SecurityCodes.enrollmentNotStarted.error('Start the enrolment first (POST /api/auth/two-factor/enrollment/).'),
  notEnabled: () => SecurityCodes.notEnabled.error('Two-factor sign-in is not on for this account.'),
  requiredByTenant: () =>
    SecurityCodes.requiredByTenant.error(
      'A tenant you belong to requires two-factor sign-in, so it cannot be turned off.',
    ),
  sessionNotFound: (id: string) => notFound('session', id),
};
