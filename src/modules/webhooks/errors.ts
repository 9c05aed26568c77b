import { notFound, outboundUrlRefused } from '../../lib/errors.js';
import type { OutboundRefusedError } from '../../lib/outbound.js';

/** Webhooks answer only shared codes (resource_missing, https_required, url_not_allowed). */
export const WebhookErrors = {
  notFound: (id: string) => notFound('webhook', id),
  urlRefused: (refusal: OutboundRefusedError) => outboundUrlRefused(refusal, 'Webhook url', 'url'),
};
