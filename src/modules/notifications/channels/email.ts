import { emailOf } from '../messages.js';
import type { Channel } from './channel.js';

/** An email through the configured SMTP server; without one the delivery fails at once. */
export const email: Channel = {
  async send({ mailer }, { config, message }) {
    const outcome = await mailer.send(emailOf(config.target, message));
    if (outcome.sent) return { statusCode: null, error: null };
    if (outcome.reason === 'not_configured')
      return { statusCode: null, error: 'no SMTP server is configured (SMTP_URL)', final: true };
    return { statusCode: null, error: 'the mail server refused the message or could not be reached' };
  },
};
