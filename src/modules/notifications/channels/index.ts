import type { ChannelType } from '../schemas.js';
import type { Channel } from './channel.js';
import { email } from './email.js';
import { slack } from './slack.js';
import { webhook } from './webhook.js';

export type { Channel, ChannelContext, ChannelSend } from './channel.js';

/** How each channel type sends; a type of `CHANNEL_TYPES` without an entry here does not compile. */
export const channels: Record<ChannelType, Channel> = { email, slack, webhook };
