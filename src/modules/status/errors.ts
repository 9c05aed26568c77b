import { defineErrors, notFound } from '../../lib/errors.js';

export const StatusErrors = {
  incidentNotFound: (id: string) => notFound('status incident', id),
  maintenanceNotFound: (id: string) => notFound('maintenance window', id),
  ...defineErrors({
    notPlatformOperator: {
      status: 403,
      code: 'not_platform_operator',
      message:
        'Only admins and owners of a platform operator tenant post status incidents and maintenance (`tagport status operator-add --tenant TENANT_ID`).',
    },
    incidentResolved: {
      status: 409,
      code: 'incident_resolved',
      message: 'This incident is resolved; open a new incident instead.',
    },
    invalidMaintenanceWindow: {
      status: 400,
      code: 'invalid_maintenance_window',
      message: 'ends_at must be after starts_at.',
      extra: { param: 'ends_at' },
    },
    subscriptionTargetRequired: {
      status: 400,
      code: 'subscription_target_required',
      message: 'Send exactly one of email or webhook_url.',
    },
    invalidSubscriptionToken: {
      status: 404,
      code: 'invalid_subscription_token',
      message: 'This link is not valid any more: the subscription was confirmed, removed or never existed.',
      extra: { param: 'token' },
    },
    emailUnavailable: {
      status: 503,
      code: 'email_subscriptions_unavailable',
      message: 'Email subscriptions are not available on this instance; use the feed or a webhook.',
    },
    emailNeedsPublicBaseUrl: {
      status: 503,
      code: 'email_subscriptions_unavailable',
      message:
        'Email subscriptions need PUBLIC_BASE_URL: the links in the confirmation email are built from it. Use the feed or a webhook until the operator sets it.',
    },
    webhookSubscriptionLimit: {
      status: 429,
      code: 'webhook_subscription_limit',
      message: (hostname: string, cap: number) =>
        `${hostname} has ${cap} status webhook subscriptions already; unsubscribe one first.`,
      extra: { param: 'webhook_url' },
      example: ['hooks.example.com', 3],
    },
  }),
};
