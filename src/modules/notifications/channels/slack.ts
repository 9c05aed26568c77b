import { postJson } from '../../../lib/delivery-attempts.js';
import { slackPayloadOf } from '../messages.js';
import type { Channel } from './channel.js';

/** A Slack-compatible incoming webhook; its URL is a secret and never appears in an error. */
export const slack: Channel = {
  send({ outbound, timeoutMs }, { config, message }) {
    const body = JSON.stringify(slackPayloadOf(message));
    return postJson(outbound, config.target, { body, timeoutMs, hideTarget: true });
  },
};
