import { describe, expect, it } from 'vitest';
import { channels } from '../../../../src/modules/notifications/channels/index.js';
import { CHANNEL_TYPES, CreateChannelBody } from '../../../../src/modules/notifications/schemas.js';

// The record is typed Record<ChannelType, Channel>, so a type added to CHANNEL_TYPES without a channel does not
// compile; this keeps it so at run time too, should the record ever be cast around the compiler.
describe('notification channels', () => {
  const apiTypes = (CreateChannelBody.properties.type as unknown as { enum: string[] }).enum;

  it('the API accepts exactly the channel types of the schema', () => {
    expect(apiTypes).toEqual([...CHANNEL_TYPES]);
  });

  it.each(apiTypes)('has a channel that sends %s notifications', (type) => {
    expect(Object.hasOwn(channels, type)).toBe(true);
    expect(typeof channels[type as keyof typeof channels]?.send).toBe('function');
  });

  it('has no channel for a type the schema does not know', () => {
    expect(Object.keys(channels).sort()).toEqual([...CHANNEL_TYPES].sort());
  });
});
