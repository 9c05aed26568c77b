import { Type, type Static } from 'typebox';
import { Nullable, NullableTimestamp, StringEnum } from '../../http/schemas.js';

export const CERTIFICATE_STATUSES = ['not_requested', 'pending', 'issued', 'renewing', 'failed'] as const;
export type CertificateStatus = (typeof CERTIFICATE_STATUSES)[number];
/** Where a certificate's renewal time came from: the CA's suggested window (ARI, RFC 9773), or our own rule. */
export const RENEWAL_SOURCES = ['ari', 'local'] as const;
export type RenewalSource = (typeof RENEWAL_SOURCES)[number];

export const Certificate = Type.Object(
  {
    status: StringEnum(CERTIFICATE_STATUSES, {
      description:
        '`not_requested`: the domain is not active yet, or this Tagport has no ACME directory configured. `pending`: being ordered. `issued`: served over https. `renewing`: still served while a new one is ordered (by two thirds of its lifetime). `failed`: could not be issued; `last_error` says why, and it is retried with backoff.',
    }),
    issuer: Nullable(Type.String(), { description: "The issuing CA's common name." }),
    not_before: NullableTimestamp('Start of validity.'),
    not_after: NullableTimestamp('End of validity.'),
    last_error: Nullable(Type.String(), { description: 'Why the last order failed; null once issued.' }),
  },
  { additionalProperties: false, description: 'The TLS certificate of a custom domain (ACME, HTTP-01).' },
);

export type CertificateDto = Static<typeof Certificate>;
