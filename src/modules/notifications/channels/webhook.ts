import { postJson } from '../../../lib/delivery-attempts.js';
import { signedHeaders } from '../../webhooks/service.js';
import { webhookPayloadOf } from '../messages.js';
import type { Channel } from './channel.js';

/** Signed JSON events, as webhooks send them (`Tagport-Signature`). */
export const webhook: Channel = {
  send({ outbound, timeoutMs }, { config, message, delivery }) {
    const body = JSON.stringify(webhookPayloadOf(delivery, message));
    const headers = signedHeaders(config.secret ?? '', body, delivery);
    return postJson(outbound, config.target, { body, headers, timeoutMs, hideTarget: true });
  },
};
