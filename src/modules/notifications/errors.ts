import { notFound, outboundUrlRefused } from '../../lib/errors.js';
import type { OutboundRefusedError } from '../../lib/outbound.js';
import { AuthErrors } from '../auth/errors.js';

/** Notification channels answer only shared codes (resource_missing, invalid_email, https_required, url_not_allowed). */
export const NotificationErrors = {
  channelNotFound: (id: string) => notFound('notification channel', id),
  invalidEmail: (value: string) => AuthErrors.invalidEmail(value.slice(0, 100), 'target'),
  urlRefused: (refusal: OutboundRefusedError) => outboundUrlRefused(refusal, 'Channel target', 'target'),
};
