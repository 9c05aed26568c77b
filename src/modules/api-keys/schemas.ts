import { Type, type Static } from 'typebox';
import { idPattern } from '../../lib/ids.js';
import { NullableTimestamp, StringEnum, Timestamp } from '../../http/schemas.js';
import { TenantId } from '../tenants/schemas.js';

export const ApiKeyIdParams = Type.Object({
  id: Type.String({
    pattern: idPattern('apiKey'),
    description: 'API key id (`key_…`).',
    examples: ['key_01jdv3k2m8q4r7s9t0v1w2x3y4'],
  }),
});

const ROLES = ['owner', 'admin', 'member'] as const;

const KeyRole = StringEnum(ROLES, {
  description:
    'The role the key acts with: `owner`, `admin` (everything but archiving tenants and changing plans) or `member` (read, scan, request reports).',
});

export const DeprecatedCall = Type.Object(
  {
    operation_id: Type.String({ description: 'The deprecated operation (its `operationId` in the OpenAPI document).' }),
    calls: Type.Integer({ description: 'Calls with this key in the last 30 days.' }),
    last_called_at: Timestamp('The last call.'),
    sunset: Type.String({ format: 'date', description: 'From when the operation may stop working (UTC).' }),
    changelog: Type.String({ description: 'The changelog entry announcing the deprecation.' }),
  },
  { $id: 'DeprecatedCall', additionalProperties: false },
);
export type DeprecatedCallDto = Static<typeof DeprecatedCall>;

const apiKeyProperties = {
  id: Type.String({ description: 'API key id (`key_…`).' }),
  tenant_id: TenantId,
  name: Type.String(),
  token_start: Type.String({
    description: 'First characters of the token, for recognising it.',
    examples: ['tgp_A1b2'],
  }),
  token_last4: Type.String({ description: 'Last four characters of the token.', examples: ['x9Yz'] }),
  role: KeyRole,
  status: StringEnum(['active', 'revoked', 'expired'] as const),
  created_at: Timestamp('When the key was created.'),
  expires_at: NullableTimestamp('When the key stops working, or null for never.'),
  last_used_at: NullableTimestamp('Last time the key authenticated a request (updated every few seconds).'),
  revoked_at: NullableTimestamp('When the key was revoked, or null.'),
  deprecated_calls: Type.Array(DeprecatedCall, {
    description:
      'The deprecated operations this key called in the last 30 days (counted every few seconds), most recent first: move these calls to their replacement before the sunset. Empty when there are none.',
  }),
};

export const ApiKey = Type.Object(apiKeyProperties, {
  $id: 'ApiKey',
  additionalProperties: false,
  description: 'An API key. The secret token is never returned after creation; only its start and last 4 characters.',
});

export const CreatedApiKey = Type.Object(
  {
    ...apiKeyProperties,
    token: Type.String({
      description:
        'The secret token, `tgp_` + 30 base62 characters + a 6-character checksum. Shown only in this response: store it now.',
      examples: ['tgp_1A2b3C4d5E6f7G8h9I0jKlMnOpQrSt0Ab1Cd'],
    }),
  },
  {
    $id: 'CreatedApiKey',
    additionalProperties: false,
    description: 'The new API key, with its token shown this one time.',
  },
);

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'A name to recognise the key by.' }),
    expires_at: Type.Optional(
      Type.String({ format: 'date-time', description: 'Optional expiry; must be in the future.' }),
    ),
    role: Type.Optional(
      StringEnum(ROLES, {
        default: 'admin',
        description:
          'The role the key acts with; `admin` by default. It cannot be higher than the role of the caller creating it.',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ name: 'CI deploys', expires_at: '2027-01-01T00:00:00Z' }] },
);

export type ApiKeyDto = Static<typeof ApiKey>;
export type CreateApiKeyInput = Static<typeof CreateApiKeyBody>;
