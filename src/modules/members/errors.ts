import { type CodesOf, errorCode, notFound } from '../../lib/errors.js';

export const MemberCodes = {
  lastOwner: errorCode(409, 'last_owner', {
    message: 'This is the last owner of the tenant: make another member owner first, then change or remove this one.',
  }),
  alreadyMember: errorCode(409, 'already_member', {
    message: 'sam@example.com is already a member of this tenant.',
    param: 'email',
  }),
  invitationExpired: errorCode(409, 'invitation_expired', {
    message: 'This invitation has expired; ask for a new one.',
  }),
  invitationRevoked: errorCode(409, 'invitation_revoked', {
    message: 'This invitation was withdrawn; ask for a new one.',
  }),
  invitationUsed: errorCode(409, 'invitation_used', {
    message: 'This invitation has already been accepted; sign in instead.',
  }),
  invitationNotPending: errorCode(409, 'invitation_not_pending', {
    message: 'The invitation is accepted, so it cannot be revoked.',
  }),
  nameRequired: errorCode(400, 'name_required', { message: 'Enter your name to create your account.', param: 'name' }),
  incorrectPassword: errorCode(400, 'incorrect_password', {
    message: 'The password of the existing account is wrong.',
    param: 'password',
  }),
} as const;

export type MemberErrorCode = CodesOf<typeof MemberCodes>;

export const MemberErrors = {
  memberNotFound: (id: string) => notFound('member', id),
  invitationNotFound: (id?: string) => notFound('invitation', id),
  lastOwner: () =>
    MemberCodes.lastOwner.error(
      'This is the last owner of the tenant: make another member owner first, then change or remove this one.',
    ),
  alreadyMember: (email: string) =>
    MemberCodes.alreadyMember.error(`${email} is already a member of this tenant.`, { param: 'email' }),
  invitationExpired: () => MemberCodes.invitationExpired.error('This invitation has expired; ask for a new one.'),
  invitationRevoked: () => MemberCodes.invitationRevoked.error('This invitation was withdrawn; ask for a new one.'),
  invitationUsed: () => MemberCodes.invitationUsed.error('This invitation has already been accepted; sign in instead.'),
  invitationNotPending: (status: string) =>
    MemberCodes.invitationNotPending.error(`The invitation is ${status}, so it cannot be revoked.`),
  nameRequired: () => MemberCodes.nameRequired.error('Enter your name to create your account.', { param: 'name' }),
  incorrectPassword: () =>
    MemberCodes.incorrectPassword.error('The password is not the one of this account.', { param: 'password' }),
};
