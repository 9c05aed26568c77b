import { notFound, outboundUrlRefused } from '../../lib/errors.js';
import type { OutboundRefusedError } from '../../lib/outbound.js';
import { AuthCodes } from '../auth/errors.js';

/** Notification channels answer only shared codes (resource_missing, invalid_email, https_required, url_not_allowed). */
export type NotificationErrorCode = never;

export const NotificationErrors = {
  channelNotFound: (id: string) => notFound('notification channel', id),
  invalidEmail: (value: string) =>
    AuthCodes.invalidEmail.error(`'${value.slice(0, 100)}' is not a valid email address.`, { param: 'target' }),
  urlRefused: (refusal: OutboundRefusedError) => outboundUrlRefused(refusal, 'Channel target', 'target'),
};
