import { defineErrors, notFound } from '../../lib/errors.js';

export const MemberErrors = {
  memberNotFound: (id: string) => notFound('member', id),
  invitationNotFound: (id?: string) => notFound('invitation', id),
  ...defineErrors({
    lastOwner: {
      status: 409,
      code: 'last_owner',
      message: 'This is the last owner of the tenant: make another member owner first, then change or remove this one.',
    },
    alreadyMember: {
      status: 409,
      code: 'already_member',
      message: (email: string) => `${email} is already a member of this tenant.`,
      extra: { param: 'email' },
      example: ['sam@example.com'],
    },
    invitationExpired: {
      status: 409,
      code: 'invitation_expired',
      message: 'This invitation has expired; ask for a new one.',
    },
    invitationRevoked: {
      status: 409,
      code: 'invitation_revoked',
      message: 'This invitation was withdrawn; ask for a new one.',
    },
    invitationUsed: {
      status: 409,
      code: 'invitation_used',
      message: 'This invitation has already been accepted; sign in instead.',
    },
    invitationNotPending: {
      status: 409,
      code: 'invitation_not_pending',
      message: (status: string) => `The invitation is ${status}, so it cannot be revoked.`,
      example: ['accepted'],
    },
    nameRequired: {
      status: 400,
      code: 'name_required',
      message: 'Enter your name to create your account.',
      extra: { param: 'name' },
    },
    incorrectPassword: {
      status: 400,
      code: 'incorrect_password',
      message: 'The password is not the one of this account.',
      extra: { param: 'password' },
    },
  }),
};
