import { defineErrors, notFound, planLimitReached } from '../../lib/errors.js';

export const TenantErrors = {
  notFound: (id: string) => notFound('tenant', id),
  clientLimitReached: (limit: number) => planLimitReached('client tenants', limit, 'archive one or upgrade'),
  ...defineErrors({
    clientsNotAllowed: {
      status: 403,
      code: 'clients_not_allowed',
      message: 'Only agency and partner tenants can create client tenants.',
    },
    planChangeNotAllowed: {
      status: 403,
      code: 'plan_change_not_allowed',
      message: 'Plans and limits of a tenant can only be changed by its parent agency or partner.',
    },
    cannotArchiveSelf: {
      status: 403,
      code: 'cannot_archive_self',
      message: 'A tenant cannot archive itself; its parent agency or support can.',
    },
    unknownPlan: {
      status: 400,
      code: 'invalid_plan',
      message: (plan: string, known: readonly string[]) => `Unknown plan '${plan}'; use one of ${known.join(', ')}.`,
      extra: { param: 'plan' },
      example: ['gold', ['free', 'pro', 'agency', 'partner']],
    },
    notAClientPlan: {
      status: 400,
      code: 'invalid_client_plan',
      message: (clientPlans: readonly string[]) => `Client tenants can have the plans ${clientPlans.join(', ')}.`,
      extra: { param: 'plan' },
      example: [['free', 'pro']],
    },
    parentCannotOwnClients: {
      status: 400,
      code: 'parent_cannot_own_clients',
      message: 'The parent tenant must be an agency or partner tenant that is not itself a client.',
      extra: { param: 'parent_id' },
    },
    unknownFeature: {
      status: 400,
      code: 'unknown_feature',
      message: (feature: string, known: string[]) => `Unknown feature '${feature}'; known: ${known.join(', ')}.`,
      extra: { param: 'feature_overrides' },
      example: ['max_widgets', ['max_containers', 'max_monitors']],
    },
    featureNotOverridable: {
      status: 400,
      code: 'feature_not_overridable',
      message: 'can_own_clients follows the plan.',
      extra: { param: 'feature_overrides' },
    },
    /** A 400 here: the archived tenant is the object changed. A credential of an archived tenant is a 401. */
    archivedUnchangeable: {
      status: 400,
      code: 'tenant_archived',
      message: 'An archived tenant cannot be changed.',
      extra: { param: 'id' },
    },
  }),
};
