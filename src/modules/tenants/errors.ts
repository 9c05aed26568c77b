import { type CodesOf, errorCode, notFound, planLimitReached } from '../../lib/errors.js';

export const TenantCodes = {
  clientsNotAllowed: errorCode(403, 'clients_not_allowed', {
    message: 'Only agency and partner tenants can create client tenants.',
  }),
  planChangeNotAllowed: errorCode(403, 'plan_change_not_allowed', {
    message: 'Plans and limits of a tenant can only be changed by its parent agency or partner.',
  }),
  cannotArchiveSelf: errorCode(403, 'cannot_archive_self', {
    message: 'A tenant cannot archive itself; its parent agency or support can.',
  }),
  invalidPlan: errorCode(400, 'invalid_plan', {
    message: "Unknown plan 'gold'; use one of free, pro, agency, partner.",
    param: 'plan',
  }),
  invalidClientPlan: errorCode(400, 'invalid_client_plan', {
    message: 'Client tenants can have the plans free, pro.',
    param: 'plan',
  }),
  parentCannotOwnClients: errorCode(400, 'parent_cannot_own_clients', {
    message: 'The parent tenant must be an agency or partner tenant that is not itself a client.',
    param: 'parent_id',
  }),
  unknownFeature: errorCode(400, 'unknown_feature', {
    message: "Unknown feature 'max_widgets'; known: max_containers, max_monitors.",
    param: 'feature_overrides',
  }),
  featureNotOverridable: errorCode(400, 'feature_not_overridable', {
    message: 'can_own_clients follows the plan.',
    param: 'feature_overrides',
  }),
  /** A 400 here: the archived tenant is the object changed. A credential of an archived tenant is a 401 (http/errors). */
  tenantArchived: errorCode(400, 'tenant_archived', {
    message: 'An archived tenant cannot be changed.',
    param: 'id',
  }),
} as const;

export type TenantErrorCode = CodesOf<typeof TenantCodes>;

export const TenantErrors = {
  notFound: (id: string) => notFound('tenant', id),
  clientsNotAllowed: () =>
    TenantCodes.clientsNotAllowed.error('Only agency and partner tenants can create client tenants.'),
  clientLimitReached: (limit: number) => planLimitReached('client tenants', limit, 'archive one or upgrade'),
  unknownPlan: (plan: string, known: readonly string[]) =>
    TenantCodes.invalidPlan.error(`Unknown plan '${plan}'; use one of ${known.join(', ')}.`, { param: 'plan' }),
  parentCannotOwnClients: () =>
    TenantCodes.parentCannotOwnClients.error(
      'The parent tenant must be an agency or partner tenant that is not itself a client.',
      { param: 'parent_id' },
    ),
  notAClientPlan: (clientPlans: readonly string[]) =>
    TenantCodes.invalidClientPlan.error(`Client tenants can have the plans ${clientPlans.join(', ')}.`, {
      param: 'plan',
    }),
  planChangeNotAllowed: () =>
    TenantCodes.planChangeNotAllowed.error(
      'Plans and limits of a tenant can only be changed by its parent agency or partner.',
    ),
  unknownFeature: (feature: string, known: string[]) =>
    TenantCodes.unknownFeature.error(`Unknown feature '${feature}'; known: ${known.join(', ')}.`, {
      param: 'feature_overrides',
    }),
  featureNotOverridable: () =>
    TenantCodes.featureNotOverridable.error('can_own_clients follows the plan.', { param: 'feature_overrides' }),
  archivedUnchangeable: () =>
    TenantCodes.tenantArchived.error('An archived tenant cannot be changed.', { param: 'id' }),
  cannotArchiveSelf: () =>
    TenantCodes.cannotArchiveSelf.error('A tenant cannot archive itself; its parent agency or support can.'),
};
