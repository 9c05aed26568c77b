import { Type } from 'typebox';
import { PLAN_IDS, TenantId } from '../tenants/schemas.js';
import { StringEnum } from '../../http/schemas.js';
import { schemaCheck } from '../../lib/schema-check.js';

/** The one rule for email addresses: the API validates bodies with it and the CLI checks its arguments with it. */
export const Email = Type.String({ format: 'email', maxLength: 254 });

export const LoginBody = Type.Object(
  {
    email: Email,
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    tenant_id: Type.Optional(TenantId),
    code: Type.Optional(
      Type.String({
        minLength: 6,
        maxLength: 32,
        pattern: '^[0-9A-Za-z -]+$',
        description:
          'For accounts with two-factor sign-in: the 6-digit code from the authenticator app, or a recovery code. Without it such an account gets 401 `two_factor_required`.',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ email: 'owner@example.com', password: 'correct horse battery staple' }] },
);

export const Session = Type.Object(
  {
    user: Type.Object(
      { id: Type.String(), email: Type.String(), name: Type.String() },
      { additionalProperties: false },
    ),
    tenant_id: TenantId,
    role: StringEnum(['owner', 'admin', 'member'] as const),
    memberships: Type.Array(
      Type.Object(
        { tenant_id: TenantId, tenant_name: Type.String(), role: Type.String() },
        { additionalProperties: false },
      ),
    ),
    two_factor: Type.Object(
      {
        enabled: Type.Boolean({ description: 'The user signs in with a second factor.' }),
        enrollment_required: Type.Boolean({
          description: 'The tenant requires a second factor the user has not set up: only enrolment works until then.',
        }),
      },
      { additionalProperties: false },
    ),
    csrf_token: Type.String({
      description: 'Send in the X-CSRF-Token header with every POST, PATCH and DELETE made with the session cookie.',
    }),
  },
  { $id: 'Session', additionalProperties: false, description: 'The signed-in web session.' },
);

export const SETUP_TOKEN_PREFIX = 'tgs_';

export const SetupBody = Type.Object(
  {
    organisation: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
    plan: Type.Optional(StringEnum(PLAN_IDS, { default: 'agency' })),
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
    email: Email,
    password: Type.String({ minLength: 12, maxLength: 1024 }),
    setup_token: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Required when the database already has tenants (for example created with the CLI) but no users: a one-time token ' +
          'printed by `tagport setup-token` or in the set-up URL the server logs at start. It expires after an hour and works once.',
        examples: ['tgs_3q2-7wEXAMPLEg8kQpZ1vYHc0bN4sTfRm'],
      }),
    ),
  },
  { additionalProperties: false },
);

export const SetupResult = Type.Object(
  { tenant_id: Type.String(), user_id: Type.String() },
  { $id: 'SetupResult', additionalProperties: false },
);

/** True for the addresses the API accepts in `email` fields. */
export const isEmail = schemaCheck(Email);
