import { type CodesOf, errorCode, notFound } from '../../lib/errors.js';

export const StatusCodes = {
  notPlatformOperator: errorCode(403, 'not_platform_operator', {
    message: 'Only admins and owners of a platform operator tenant post status incidents and maintenance.',
  }),
  incidentResolved: errorCode(409, 'incident_resolved', {
    message: 'This incident is resolved; open a new incident instead.',
  }),
  invalidMaintenanceWindow: errorCode(400, 'invalid_maintenance_window', {
    message: 'ends_at must be after starts_at.',
    param: 'ends_at',
  }),
  subscriptionTargetRequired: errorCode(400, 'subscription_target_required', {
    message: 'Send exactly one of email or webhook_url.',
  }),
  invalidSubscriptionToken: errorCode(404, 'invalid_subscription_token', {
    message: 'This link is not valid any more: the subscription was confirmed, removed or never existed.',
    param: 'token',
  }),
  emailUnavailable: errorCode(503, 'email_subscriptions_unavailable', {
    message: 'Email subscriptions are not available on this instance; use the feed or a webhook.',
  }),
  webhookSubscriptionLimit: errorCode(429, 'webhook_subscription_limit', {
    message: 'hooks.example.com has 3 status webhook subscriptions already; unsubscribe one first.',
    param: 'webhook_url',
  }),
} as const;

export type StatusErrorCode = CodesOf<typeof StatusCodes>;

export const StatusErrors = {
  incidentNotFound: (id: string) => notFound('status incident', id),
  maintenanceNotFound: (id: string) => notFound('maintenance window', id),
  notPlatformOperator: () =>
    StatusCodes.notPlatformOperator.error(
      'Only admins and owners of a platform operator tenant post status incidents and maintenance (`tagport status operator-add --tenant TENANT_ID`).',
    ),
  incidentResolved: () => StatusCodes.incidentResolved.error('This incident is resolved; open a new incident instead.'),
  invalidMaintenanceWindow: () =>
    StatusCodes.invalidMaintenanceWindow.error('ends_at must be after starts_at.', { param: 'ends_at' }),
  subscriptionTargetRequired: () =>
    StatusCodes.subscriptionTargetRequired.error('Send exactly one of email or webhook_url.'),
  invalidSubscriptionToken: () =>
    StatusCodes.invalidSubscriptionToken.error(
      'This link is not valid any more: the subscription was confirmed, removed or never existed.',
      { param: 'token' },
    ),
  emailUnavailable: () =>
    StatusCodes.emailUnavailable.error(
      'Email subscriptions are not available on this instance; use the feed or a webhook.',
    ),
  emailNeedsPublicBaseUrl: () =>
    StatusCodes.emailUnavailable.error(
      'Email subscriptions need PUBLIC_BASE_URL: the links in the confirmation email are built from it. Use the feed or a webhook until the operator sets it.',
    ),
  webhookSubscriptionLimit: (hostname: string, cap: number) =>
    StatusCodes.webhookSubscriptionLimit.error(
      `${hostname} has ${cap} status webhook subscriptions already; unsubscribe one first.`,
      { param: 'webhook_url' },
    ),
};
