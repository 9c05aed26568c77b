import { Type, type Static } from 'typebox';
import { idPattern } from '../../lib/ids.js';
import { Certificate } from '../certificates/schemas.js';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../http/schemas.js';

export const DOMAIN_STATUSES = ['pending_verification', 'active', 'failed'] as const;
export const FAILURE_REASONS = [
  'wrong_target',
  'missing_txt',
  'nxdomain',
  'timeout',
  'dns_error',
  'hostname_in_use',
] as const;

export const DomainIdParams = Type.Object({
  id: Type.String({ pattern: idPattern('domain'), description: 'Domain id (`dom_…`).' }),
});

const DnsRecord = Type.Object(
  {
    type: StringEnum(['CNAME', 'A', 'TXT'] as const),
    name: Type.String(),
    value: Type.String(),
    purpose: Type.String({ description: 'routing (CNAME or A: one of them) or ownership (TXT: always).' }),
  },
  { additionalProperties: false },
);

export const Domain = Type.Object(
  {
    id: Type.String(),
    container_id: Type.String(),
    hostname: Type.String({ description: 'Normalised: lower case, IDN as punycode, no trailing dot.' }),
    status: StringEnum(DOMAIN_STATUSES, {
      description:
        'pending_verification → active | failed; failed and pending domains are re-checked on a schedule. A claim never verified is released after the pending period (7 days by default), or as soon as another account proves ownership of the hostname in DNS (`domain.released` event).',
    }),
    failure_reason: Nullable(StringEnum(FAILURE_REASONS), {
      description:
        'Why verification failed; `hostname_in_use`: another account still proves ownership of the hostname.',
    }),
    failure_detail: Nullable(Type.String()),
    dns_records: Type.Array(DnsRecord, { description: 'Records to create at your DNS provider.' }),
    last_checked_at: NullableTimestamp('When DNS was last checked.'),
    verified_at: NullableTimestamp('When the domain became active.'),
    created_at: Timestamp('When the domain was added.'),
    certificate: Certificate,
  },
  { $id: 'Domain', additionalProperties: false, description: 'A custom hostname served by a container.' },
);

export const CreateDomainBody = Type.Object(
  {
    hostname: Type.String({
      minLength: 1,
      maxLength: 260,
      description:
        'A bare hostname, e.g. `data.shop.example` or an IDN like `daten.müller.example`; no scheme, port, path or query.',
    }),
    container_id: Type.String({ pattern: idPattern('container') }),
  },
  {
    additionalProperties: false,
    examples: [{ hostname: 'data.shop.example', container_id: 'ctr_01jdv3k2m8q4r7s9t0v1w2x3y4' }],
  },
);

export type DomainDto = Static<typeof Domain>;
export type FailureReason = (typeof FAILURE_REASONS)[number];
