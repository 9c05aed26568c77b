import { describe, expect, it } from 'vitest';
import { ForwardQueue, type SendResult, type Settled } from '../../../src/gateway/runtime/forward-queue.js';

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

const job = (results: SendResult[], calls: number[] = []) => ({
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

  it('holds at most maxSize jobs and refuses more', async () => {
    const { q } = queue({ maxSize: 3, concurrency: 1 });
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = {
      vendor: 'ga4',
      containerId: 'c',
      send: async () => {
        await gate;
        return { outcome: 'delivered' as const };
      },
    };
    expect([q.enqueue(slow), q.enqueue(slow), q.enqueue(slow), q.enqueue(slow)]).toEqual([true, true, true, false]);
    expect(q.size).toBe(3);
    release();
    await q.idle();
    expect(q.size).toBe(0);
  });

  it('settles waiting jobs as failed when stopped and refuses new ones', async () => {
    const { q, settled } = queue({ retryBaseMs: 60_000 });
    q.enqueue(job([{ outcome: 'retry', reason: '503' }]));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await q.stop();
    expect(settled).toHaveLength(1);
    expect(settled[0].delivered).toBe(false);
    expect(q.enqueue(job([]))).toBe(false);
  });
});
