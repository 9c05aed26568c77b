import { Type, type Static } from 'typebox';
import { Nullable, NullableTimestamp, Timestamp } from '../../http/schemas.js';

export const TwoFactorStatus = Type.Object(
  {
    enabled: Type.Boolean({ description: 'The account signs in with a second factor.' }),
    enabled_at: NullableTimestamp('When two-factor sign-in was turned on.'),
    recovery_codes_left: Type.Integer({ minimum: 0, description: 'Unused one-time recovery codes.' }),
    required_by_tenant: Type.Boolean({ description: 'A tenant the user belongs to requires it.' }),
  },
  { additionalProperties: false, description: "The signed-in user's two-factor sign-in." },
);

export const TwoFactorEnrollment = Type.Object(
  {
    secret: Type.String({ description: 'The TOTP secret in base32, for typing into an app that cannot scan.' }),
    otpauth_uri: Type.String({ description: 'The `otpauth://totp/…` URI the QR code holds.' }),
    qr_svg: Type.String({ description: 'The QR code of `otpauth_uri` as an SVG document.' }),
  },
  {
    additionalProperties: false,
    description: 'A new secret to add to an authenticator app (RFC 6238: SHA-1, 6 digits, 30 s); shown once.',
  },
);

const Code = Type.String({
  minLength: 6,
  maxLength: 32,
  pattern: '^[0-9A-Za-z -]+$',
  description: 'The 6-digit code from the authenticator app.',
  examples: ['492039'],
});

export const CodeBody = Type.Object({ code: Code }, { additionalProperties: false });

export const RecoveryCodes = Type.Object(
  {
    recovery_codes: Type.Array(Type.String(), {
      description: 'One-time codes that sign in without the app; shown once, only their hashes are stored.',
    }),
  },
  { additionalProperties: false },
);

export const SessionInfo = Type.Object(
  {
    id: Type.String(),
    created_at: Timestamp('When the session was opened.'),
    expires_at: Timestamp('When it ends unless revoked.'),
    user_agent: Nullable(Type.String(), { description: 'The browser that opened it.' }),
    ip: Nullable(Type.String(), { description: 'The address it was opened from.' }),
    two_factor: Type.Boolean({ description: 'Opened with a second factor.' }),
    current: Type.Boolean({ description: 'The session of this request.' }),
  },
  { additionalProperties: false, description: 'A signed-in web session of the user.' },
);

export const SessionList = Type.Object(
  { results: Type.Array(SessionInfo, { description: 'Open sessions, newest first.' }) },
  { additionalProperties: false },
);

export const SessionIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export type TwoFactorStatusDto = Static<typeof TwoFactorStatus>;
export type TwoFactorEnrollmentDto = Static<typeof TwoFactorEnrollment>;
export type SessionInfoDto = Static<typeof SessionInfo>;
