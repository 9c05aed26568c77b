import { challenge, defineErrors, notFound } from '../../lib/errors.js';

export const SecurityErrors = {
  sessionNotFound: (id: string) => notFound('session', id),
  ...defineErrors({
    twoFactorRequired: {
      status: 401,
      code: 'two_factor_required',
      message:
        'This account signs in with a second factor: send the 6-digit code from the authenticator app (or a recovery code) in `code`.',
      extra: challenge,
    },
    invalidTwoFactorCode: {
      status: 401,
      code: 'invalid_two_factor_code',
      message: 'The code is wrong, expired or already used.',
      extra: challenge,
    },
    incorrectCode: {
      status: 400,
      code: 'incorrect_code',
      message: 'The code is wrong or expired: enter the current code from the app.',
      extra: { param: 'code' },
    },
    enrollmentRequired: {
      status: 403,
      code: 'two_factor_enrollment_required',
      message:
        'This tenant requires two-factor sign-in: set it up under Security (POST /api/auth/two-factor/enrollment/) before anything else.',
    },
    alreadyEnabled: {
      status: 409,
      code: 'two_factor_already_enabled',
      message: 'Two-factor sign-in is already on; turn it off first to enrol a new device.',
    },
    enrollmentNotStarted: {
      status: 409,
      code: 'two_factor_enrollment_not_started',
      message: 'Start the enrolment first (POST /api/auth/two-factor/enrollment/).',
    },
    notEnabled: {
      status: 409,
      code: 'two_factor_not_enabled',
      message: 'Two-factor sign-in is not on for this account.',
    },
    requiredByTenant: {
      status: 409,
      code: 'two_factor_required_by_tenant',
      message: 'A tenant you belong to requires two-factor sign-in, so it cannot be turned off.',
    },
  }),
};
