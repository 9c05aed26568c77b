import { Type, type Static } from 'typebox';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../http/schemas.js';
import { idPattern } from '../../lib/ids.js';
import { Email } from '../auth/schemas.js';

export const ROLES = ['owner', 'admin', 'member'] as const;
export const INVITATION_STATUSES = ['pending', 'accepted', 'revoked', 'expired'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

const Role = StringEnum(ROLES, {
  description: 'member reads and runs scans, admin also changes configuration, owner also billing and members.',
});

export const MemberIdParams = Type.Object({
  id: Type.String({ pattern: idPattern('membership'), description: 'Membership id (`mem_…`).' }),
});

export const InvitationIdParams = Type.Object({
  id: Type.String({ pattern: idPattern('invitation'), description: 'Invitation id (`inv_…`).' }),
});

export const Member = Type.Object(
  {
    id: Type.String({ description: 'Membership id (`mem_…`).' }),
    user_id: Type.String({ description: 'The person (`usr_…`), the same in every tenant they belong to.' }),
    email: Type.String(),
    name: Type.String(),
    role: Role,
    two_factor: Type.Boolean({ description: 'The person signs in with a second factor.' }),
    created_at: Timestamp('When the person joined the tenant.'),
  },
  { additionalProperties: false, description: 'A person with a role in the tenant.' },
);

export const UpdateMemberBody = Type.Object(
  { role: Role },
  {
    additionalProperties: false,
    description: 'Only owners grant or take away the owner role; the last owner keeps it.',
    examples: [{ role: 'admin' }],
  },
);

const invitationProperties = {
  id: Type.String({ description: 'Invitation id (`inv_…`).' }),
  email: Type.String({ description: 'Who was invited.' }),
  role: Role,
  status: StringEnum(INVITATION_STATUSES, {
    description: 'pending until accepted, revoked or past `expires_at`; an invitation works once.',
  }),
  invited_by: Nullable(Type.String(), { description: 'The name of the person who invited, when a person did.' }),
  created_at: Timestamp('When the invitation was made.'),
  expires_at: Timestamp('When the link stops working (7 days after it was made).'),
  accepted_at: NullableTimestamp('When it was accepted.'),
  revoked_at: NullableTimestamp('When it was revoked.'),
};

export const Invitation = Type.Object(invitationProperties, {
  additionalProperties: false,
  description: 'An invitation to join the tenant.',
});

export const CreatedInvitation = Type.Object(
  {
    ...invitationProperties,
    accept_url: Type.String({
      format: 'uri',
      description:
        'The link that accepts the invitation, shown only in this answer (only a hash of its token is stored): share it yourself when `email_sent` is false.',
    }),
    email_sent: Type.Boolean({
      description:
        'The invitation email went out; false when SMTP (`SMTP_URL`) or `PUBLIC_BASE_URL` is not configured, or sending failed.',
    }),
  },
  { additionalProperties: false },
);

export const CreateInvitationBody = Type.Object(
  {
    email: Email,
    role: Role,
  },
  {
    additionalProperties: false,
    description: 'An earlier pending invitation to the same address is revoked by this one.',
    examples: [{ email: 'alex@example.com', role: 'member' }],
  },
);

const Token = Type.String({
  minLength: 20,
  maxLength: 100,
  pattern: '^[A-Za-z0-9_-]+$',
  description: 'The token from the invitation link (`/invite/<token>`).',
});

export const LookupInvitationBody = Type.Object(
  { token: Token },
  { additionalProperties: false, examples: [{ token: 'tgi_3q2-7wEXAMPLEexampleEXAMPLEexample0000' }] },
);

export const InvitationPreview = Type.Object(
  {
    tenant_name: Type.String({ description: 'The tenant the invitation is for.' }),
    email: Type.String(),
    role: Role,
    expires_at: Timestamp('When the link stops working.'),
    account_exists: Type.Boolean({
      description: 'A Tagport account with this email exists: accepting needs its password, not a new one.',
    }),
  },
  { additionalProperties: false, description: 'What an invitation link offers, for the acceptance page.' },
);

export const AcceptInvitationBody = Type.Object(
  {
    token: Token,
    name: Type.Optional(
      Type.String({ maxLength: 200, description: 'Your name; needed when the email has no account yet.' }),
    ),
    password: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'A new password (at least 12 characters), or the password of the existing account.',
    }),
  },
  {
    additionalProperties: false,
    examples: [
      { token: 'tgi_3q2-7wEXAMPLEexampleEXAMPLEexample0000', name: 'Alex Example', password: 'a long enough password' },
    ],
  },
);

export const AcceptedInvitation = Type.Object(
  {
    tenant_id: Type.String(),
    tenant_name: Type.String(),
    user_id: Type.String(),
    email: Type.String({ description: 'Sign in with this email.' }),
    role: Role,
    account_created: Type.Boolean({ description: 'A new account was made for the email.' }),
  },
  { additionalProperties: false, description: 'The membership the invitation gave.' },
);

export type MemberDto = Static<typeof Member>;
export type InvitationDto = Static<typeof Invitation>;
export type CreatedInvitationDto = Static<typeof CreatedInvitation>;
export type InvitationPreviewDto = Static<typeof InvitationPreview>;
export type AcceptedInvitationDto = Static<typeof AcceptedInvitation>;
