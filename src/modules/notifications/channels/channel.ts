import type { NotificationDeliveryRow } from '../../../db/schema.js';
import type { Attempt } from '../../../lib/delivery-attempts.js';
import type { Mailer } from '../../../lib/mail.js';
import type { OutboundClient } from '../../../lib/outbound.js';
import type { NotificationMessage } from '../messages.js';
import type { ChannelConfig } from '../service.js';

/** What a channel sends with. */
export interface ChannelContext {
  outbound: OutboundClient;
  mailer: Mailer;
  timeoutMs: number;
}

/** One attempt of a delivery to a channel of its type. */
export interface ChannelSend {
  config: ChannelConfig;
  message: NotificationMessage;
  delivery: NotificationDeliveryRow;
}

/** How one channel type sends a notification. */
export interface Channel {
  send(context: ChannelContext, send: ChannelSend): Promise<Attempt>;
}
