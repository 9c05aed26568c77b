import { describe, expect, it } from 'vitest';
import { MetaBatchingSender } from '../../../../../src/gateway/runtime/meta/batching-sender.js';
import type { MetaServerEvent } from '../../../../../src/gateway/runtime/meta/events.js';
import type { MetaPixelTarget, MetaSendResult } from '../../../../../src/gateway/runtime/meta/sender.js';

const target = (pixelId: string, testEventCode: string | null = null): MetaPixelTarget => ({
  pixelId,
  accessToken: 'EAAtoken',
  testEventCode,
});
const event = (id: string) => ({ event_id: id, event_name: 'Purchase' }) as MetaServerEvent;
const delivered = (count: number): MetaSendResult => ({
  verdict: 'delivered',
  httpStatus: 200,
  eventsReceived: count,
  fbtraceId: null,
});

/** Records each request it is asked to make, and answers delivered (or what `answer` says). */
function recordingSender(answer: (events: MetaServerEvent[]) => MetaSendResult | Error = (e) => delivered(e.length)) {
  const requests: Array<{ pixelId: string; ids: string[] }> = [];
  return {
    requests,
    async send(to: MetaPixelTarget, events: MetaServerEvent[]) {
      requests.push({ pixelId: to.pixelId, ids: events.map((e) => e.event_id) });
      const result = answer(events);
      if (result instanceof Error) throw result;
      return result;
    },
  };
}

describe('MetaBatchingSender', () => {
  it('groups events per pixel and test code within the window, and answers each caller', async () => {
    const inner = recordingSender();
    const sender = new MetaBatchingSender(inner, { windowMs: 20, maxEvents: 100 });
    const results = await Promise.all([
      sender.send(target('1'), [event('a')]),
      sender.send(target('2'), [event('b')]),
      sender.send(target('1'), [event('c')]),
      sender.send(target('1', 'TEST1'), [event('d')]),
    ]);
    expect(inner.requests).toEqual([
      { pixelId: '1', ids: ['a', 'c'] },
      { pixelId: '2', ids: ['b'] },
      { pixelId: '1', ids: ['d'] },
    ]);
    expect(results.map((result) => result.verdict)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
  });

  it('sends a full batch at once, before its window ends', async () => {
    const inner = recordingSender();
    const sender = new MetaBatchingSender(inner, { windowMs: 60_000, maxEvents: 2 });
    await Promise.all([sender.send(target('1'), [event('a')]), sender.send(target('1'), [event('b')])]);
    expect(inner.requests).toEqual([{ pixelId: '1', ids: ['a', 'b'] }]);
  });

  it('turns a sender that throws into a retry for every caller', async () => {
    const sender = new MetaBatchingSender(
      recordingSender(() => new Error('socket hang up')),
      {
        windowMs: 5,
        maxEvents: 100,
      },
    );
    const results = await Promise.all([sender.send(target('1'), [event('a')]), sender.send(target('1'), [event('b')])]);
    expect(results.map((result) => result.verdict)).toEqual(['retry', 'retry']);
    expect(results[0].verdict === 'retry' && results[0].error.message).toContain('socket hang up');
  });

  it('sends each event alone with a window of 0', async () => {
    const inner = recordingSender();
    const sender = new MetaBatchingSender(inner, { windowMs: 0, maxEvents: 100 });
    await Promise.all([sender.send(target('1'), [event('a')]), sender.send(target('1'), [event('b')])]);
    expect(inner.requests).toHaveLength(2);
  });
});
