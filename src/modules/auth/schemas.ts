import { Type } from 'typebox';
import { TenantId } from '../tenants/schemas.js';
import { StringEnum } from '../../http/schemas.js';

export const LoginBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    tenant_id: Type.Optional(TenantId),
  },
  { additionalProperties: false, examples: [{ email: 'owner@example.com', password: 'correct horse battery staple' }] },
);

export const Session = Type.Object(
  {
    user: Type.Object({ id: Type.String(), email: Type.String(), name: Type.String() }, { additionalProperties: false }),
    tenant_id: TenantId,
    role: StringEnum(['owner', 'admin', 'member'] as const),
    memberships: Type.Array(
      Type.Object({ tenant_id: TenantId, tenant_name: Type.String(), role: Type.String() }, { additionalProperties: false }),
    ),
    csrf_token: Type.String({ description: 'Send in the X-CSRF-Token header with every POST, PATCH and DELETE made with the session cookie.' }),
  },
  { additionalProperties: false, description: 'The signed-in web session.' },
);
