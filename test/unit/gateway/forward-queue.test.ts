import { describe, expect, it } from 'vitest';
import {
  type ForwardJob,
  ForwardQueue,
  type SendResult,
  type Settled,
} from '../../../src/gateway/runtime/forward-queue.js';

function queue(overrides: Partial<ConstructorParameters<typeof ForwardQueue>[0]> = {}) {
  const settled: Settled[] = [];
  const q = new ForwardQueue({
    maxSize: 10,
    concurrency: 2,
    timeoutMs: 1000,
    maxAttempts: 3,
    retryBaseMs: 1,
    onSettled: (s) => settled.push(s),
    onError: (error) => {
      throw error;
    },
    ...overrides,
  });
  return { q, settled };
}

const job = (results: SendResult[], calls: number[] = []): ForwardJob => ({
  vendor: 'ga4',
  containerId: 'ctr_1',
  send: async () => {
    calls.push(1);
    return results.shift() ?? { outcome: 'delivered' as const };
  },
});

describe('ForwardQueue', () => {
  it('delivers, retries a retry until delivered, and gives up on a rejection at once', async () => {
    const { q, settled } = queue();
    const retried: number[] = [];
    const rejected: number[] = [];
    q.enqueue(job([{ outcome: 'retry', reason: '503' }], retried));
    q.enqueue(job([{ outcome: 'rejected', reason: '400' }], rejected));
    await q.idle();
    expect(retried).toHaveLength(2);
    expect(rejected).toHaveLength(1);
    expect(settled.map((s) => [s.delivered, s.attempts, s.reason])).toEqual(
      expect.arrayContaining([
        [true, 2, null],
        [false, 1, '400'],
      ]),
    );
  });

  it('gives up after maxAttempts, counting a thrown error or a timeout as a retry', async () => {
    const { q, settled } = queue({ timeoutMs: 20 });
    q.enqueue({ vendor: 'meta', containerId: 'c', send: () => Promise.reject(new Error('ECONNRESET')) });
    q.enqueue({
      vendor: 'meta',
      containerId: 'c',
      send: (signal) =>
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
    });
    await q.idle();
    expect(settled.map((s) => [s.delivered, s.attempts, s.reason])).toEqual(
      expect.arrayContaining([
        [false, 3, 'ECONNRESET (after 3 attempts)'],
        [false, 3, 'timed out (after 3 attempts)'],
      ]),
    );
  });

  it('has room for maxSize jobs, and still takes a job past it (an acknowledged event is never turned away)', async () => {
    const { q, settled } = queue({ maxSize: 3, concurrency: 1 });
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: ForwardJob = {
      vendor: 'ga4',
      containerId: 'c',
      send: async () => {
        await gate;
        return { outcome: 'delivered' as const };
      },
    };
    expect(q.hasRoom(3)).toBe(true);
    expect(q.hasRoom(4)).toBe(false);
    q.enqueue(slow);
    q.enqueue(slow);
    expect([q.hasRoom(1), q.hasRoom(2)]).toEqual([true, false]);
    expect([q.enqueue(slow), q.enqueue(slow)]).toEqual([true, true]);
    expect(q.size).toBe(4);
    expect(q.hasRoom(1)).toBe(false);
    release();
    await q.idle();
    expect(q.size).toBe(0);
    expect(settled.filter((s) => s.delivered)).toHaveLength(4);
    expect(q.hasRoom(3)).toBe(true);
  });

  it('on stop, tries the jobs waiting for a retry again at once and delivers what it can within the drain', async () => {
    const { q, settled } = queue({ retryBaseMs: 60_000 });
    q.enqueue(job([{ outcome: 'retry', reason: '503' }]));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await q.stop(1000);
    expect(settled.map((s) => [s.delivered, s.attempts])).toEqual([[true, 2]]);
    expect(q.hasRoom(1)).toBe(false);
    expect(q.enqueue(job([]))).toBe(false);
  });

  it('refuses new events while draining but takes the forwards of events already acknowledged', async () => {
    const { q, settled } = queue();
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    q.enqueue({ vendor: 'ga4', containerId: 'c', send: () => gate.then(() => ({ outcome: 'delivered' as const })) });
    const stopped = q.stop(5000);
    expect(q.accepting).toBe(false);
    expect(q.hasRoom(1)).toBe(false);
    expect(q.enqueue(job([]))).toBe(true);
    release();
    await stopped;
    expect(settled.filter((s) => s.delivered)).toHaveLength(2);
  });

  it('settles what is still held when the drain ends as failed, with the reason', async () => {
    const { q, settled } = queue({ retryBaseMs: 60_000 });
    q.enqueue(
      job([
        { outcome: 'retry', reason: '503' },
        { outcome: 'retry', reason: '503' },
      ]),
    );
    q.enqueue({
      vendor: 'ga4',
      containerId: 'c',
      send: (signal) =>
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await q.stop(50);
    expect(settled).toHaveLength(2);
    expect(settled.every((s) => !s.delivered && s.reason)).toBe(true);
    expect(q.size).toBe(0);
  });

  describe('callback sends (the GA4 lane)', () => {
    /** A job whose attempts call back with the given results, each after a turn, as a transport does. */
    const posted = (results: SendResult[], calls: number[] = []): ForwardJob => ({
      vendor: 'ga4',
      containerId: 'ctr_1',
      post: (done) => {
        calls.push(1);
        const result = results.shift() ?? { outcome: 'delivered' as const };
        setImmediate(() => done(result));
      },
    });

    it('delivers, retries and rejects as with promises, within the concurrency', async () => {
      const { q, settled } = queue({ concurrency: 1 });
      const retried: number[] = [];
      q.enqueue(posted([{ outcome: 'retry', reason: 'GA4 answered 503', afterMs: 1 }], retried));
      q.enqueue(posted([{ outcome: 'rejected', reason: 'GA4 answered 400', httpStatus: 400 }]));
      q.enqueue(
        posted([
          { outcome: 'retry', reason: 'reset' },
          { outcome: 'retry', reason: 'reset' },
          { outcome: 'retry', reason: 'reset' },
        ]),
      );
      expect(q.size).toBe(3);
      await q.idle();
      expect(retried).toHaveLength(2);
      expect(settled.map((s) => [s.delivered, s.attempts, s.reason])).toEqual(
        expect.arrayContaining([
          [true, 2, null],
          [false, 1, 'GA4 answered 400'],
          [false, 3, 'reset (after 3 attempts)'],
        ]),
      );
      expect(settled.find((s) => s.attempts === 1)?.last?.result.httpStatus).toBe(400);
    });

    it('counts a send that throws as an attempt to retry', async () => {
      const { q, settled } = queue({ maxAttempts: 2 });
      q.enqueue({
        vendor: 'ga4',
        containerId: 'c',
        post: () => {
          throw new Error('no socket');
        },
      });
      await q.idle();
      expect(settled.map((s) => [s.delivered, s.attempts, s.reason])).toEqual([
        [false, 2, 'no socket (after 2 attempts)'],
      ]);
    });

    it('on stop, abandons the sends in flight (their transport calls back) and starts no more', async () => {
      const inFlight: Array<(result: SendResult) => void> = [];
      const { q, settled } = queue({
        concurrency: 1,
        abandon: () => {
          for (const done of inFlight.splice(0)) done({ outcome: 'retry', reason: 'The sender is closed.' });
        },
      });
      let started = 0;
      const hanging: ForwardJob = {
        vendor: 'ga4',
        containerId: 'c',
        post: (done) => {
          started++;
          inFlight.push(done);
        },
      };
      q.enqueue(hanging);
      q.enqueue(hanging);
      await q.stop(20);
      expect(started).toBe(1);
      expect(settled.map((s) => [s.delivered, s.reason])).toEqual(
        expect.arrayContaining([
          [false, 'The sender is closed. (after 1 attempts)'],
          [false, 'The gateway stopped before the event was sent.'],
        ]),
      );
      expect(q.size).toBe(0);
    });
  });
});
