import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DueWakeups, dueTime, retryWindowSeconds, type WakeSignals } from '../../../src/jobs/wakeups.js';

const SHORT_POLL_MS = 2000;

/** Wake-ups on fake timers, with what each wake reached: `[ms after the start, queue]`. */
function wakeupsUnderTest(signals: WakeSignals | null = null) {
  const start = Date.now();
  const woken: Array<[number, string]> = [];
  const wakeups = new DueWakeups({
    wake: (queue) => woken.push([Date.now() - start, queue]),
    queues: () => ['reports', 'webhook'],
    shortPollMs: SHORT_POLL_MS,
    signals,
    onError: (error) => {
      throw error;
    },
  });
  wakeups.start();
  return { wakeups, woken, start };
}

describe('wake-ups for jobs that come due unannounced', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2026-11-29T04:00:00.000Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('wakes a deferred job’s queue just after it is due and never before, and once more a short poll later', async () => {
    const { wakeups, woken, start } = wakeupsUnderTest();
    wakeups.sent('reports', new Date(start + 1_500), true);
    await vi.advanceTimersByTimeAsync(1_500);
    expect(woken).toEqual([]);
    await vi.advanceTimersByTimeAsync(200);
    expect(woken).toEqual([[1_600, 'reports']]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(woken).toEqual([
      [1_600, 'reports'],
      [3_500, 'reports'],
    ]);
  });

  it('reads due times on the database’s clock: a database 5 s ahead makes the wake come 5 s sooner here', async () => {
    const { wakeups, woken, start } = wakeupsUnderTest();
    wakeups.clockOffsetMs = 5_000;
    wakeups.sent('reports', new Date(start + 8_000), true);
    await vi.advanceTimersByTimeAsync(3_200);
    expect(woken).toEqual([[3_100, 'reports']]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(woken.at(-1)).toEqual([5_000, 'reports']);
    // pg-boss's numeric form counts from the database's now.
    wakeups.sent('reports', 2, true);
    await vi.advanceTimersByTimeAsync(2_100);
    expect(woken.at(-1)).toEqual([7_300, 'reports']);
  });

  it('wakes every queue due in the same tenth of a second with one timer', async () => {
    const { wakeups, woken, start } = wakeupsUnderTest();
    wakeups.sent('a', new Date(start + 1_010), true);
    wakeups.sent('b', new Date(start + 1_020), true);
    wakeups.sent('a', new Date(start + 1_030), true);
    expect(wakeups.pending).toBe(2);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(woken).toEqual([
      [1_100, 'a'],
      [1_100, 'b'],
    ]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(wakeups.pending).toBe(0);
  });

  it('leaves a job due at once to NOTIFY where it reaches the workers, and wakes twice where it does not', async () => {
    const { wakeups, woken } = wakeupsUnderTest();
    wakeups.sent('announced', undefined, true);
    wakeups.sent('announced', new Date(Date.now() - 1_000), true);
    wakeups.sent('pooled', undefined, false);
    await vi.advanceTimersByTimeAsync(10_000);
    // The second wake covers a job sent in a transaction that had not committed at the first.
    expect(woken).toEqual([
      [100, 'pooled'],
      [2_000, 'pooled'],
    ]);
  });

  it('wakes for a failed job’s retry when pg-boss schedules it, and not when no retry is left', async () => {
    const { wakeups, woken } = wakeupsUnderTest();
    wakeups.failed('webhook', { retryLimit: 3, retryDelay: 3 }, 0);
    wakeups.failed('webhook', { retryLimit: 3, retryDelay: 3 }, 3);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(woken).toEqual([
      [3_100, 'webhook'],
      [5_000, 'webhook'],
    ]);
  });

  it('wakes a retry with backoff across its whole random window', async () => {
    const { wakeups, woken } = wakeupsUnderTest();
    // Attempt 2 of a 10 s delay: pg-boss picks between 40 and 80 s.
    wakeups.failed('status', { retryLimit: 5, retryDelay: 10, retryBackoff: true }, 2);
    await vi.advanceTimersByTimeAsync(100_000);
    expect(woken.map(([at]) => at)).toEqual([
      40_100, 42_000, 50_100, 52_000, 60_100, 62_000, 70_100, 72_000, 80_100, 82_000,
    ]);
  });

  it('sends each wake to the other processes and ignores its own, and wakes everything after a lost connection', async () => {
    const notified: string[] = [];
    const listeners: Array<(payload: string) => void> = [];
    let reconnected = () => {};
    const signals: WakeSignals = {
      listen: async (_channel, onMessage, onReconnect) => {
        listeners.push(onMessage);
        reconnected = onReconnect ?? (() => {});
        return async () => {};
      },
      notify: async (channel, payload) => {
        notified.push(`${channel} ${payload}`);
        for (const listener of listeners) listener(payload);
      },
    };
    const { wakeups, woken, start } = wakeupsUnderTest(signals);
    await wakeups.listen();
    wakeups.sent('reports', new Date(start + 500), true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(notified).toEqual([expect.stringMatching(/^tagport_jobs_due [0-9a-f-]{36} reports$/)]);
    expect(woken).toEqual([[600, 'reports']]);

    listeners[0]('another-process webhook');
    reconnected();
    expect(woken.slice(1).map(([, queue]) => queue)).toEqual(['webhook', 'reports', 'webhook']);
    await wakeups.stop();
  });

  it('after a database failure, wakes every queue each short poll until a minute after the last failure', async () => {
    const { wakeups, woken } = wakeupsUnderTest();
    wakeups.troubled();
    expect(woken).toEqual([
      [0, 'reports'],
      [0, 'webhook'],
    ]);
    await vi.advanceTimersByTimeAsync(30_000);
    wakeups.troubled();
    await vi.advanceTimersByTimeAsync(120_000);
    const times = [...new Set(woken.map(([at]) => at))];
    // Every 2 s from the first failure, the last one before 60 s after the second (at 30 s), then nothing.
    expect(times.at(-1)).toBe(88_000);
    expect(times.slice(1).every((at, index) => at - times[index] === 2_000 || at === 30_000)).toBe(true);
    await wakeups.stop();
  });

  it('drops its timers when stopped, and takes no more until started again', async () => {
    const { wakeups, woken, start } = wakeupsUnderTest();
    wakeups.sent('reports', new Date(start + 500), true);
    await wakeups.stop();
    wakeups.sent('reports', new Date(start + 600), true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(woken).toEqual([]);
    wakeups.start();
    wakeups.sent('reports', new Date(start + 1_500), true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(woken).toEqual([[1_600, 'reports']]);
  });
});

describe('when a job comes due', () => {
  const now = Date.parse('2026-11-29T04:00:00.000Z');

  it('reads each form of pg-boss’s startAfter', () => {
    expect(dueTime(new Date(now + 1_000), now)).toBe(now + 1_000);
    expect(dueTime('2026-11-29T04:00:05.000Z', now)).toBe(now + 5_000);
    expect(dueTime(30, now)).toBe(now + 30_000);
    expect(dueTime('30', now)).toBe(now + 30_000);
    expect(dueTime(undefined, now)).toBeNull();
    expect(dueTime(new Date(now - 1), now)).toBeNull();
    expect(dueTime('not a time', now)).toBeNull();
  });

  it('gives the retry window pg-boss draws from', () => {
    expect(retryWindowSeconds({ retryDelay: 5 }, 0)).toEqual([5, 5]);
    expect(retryWindowSeconds({}, 0)).toEqual([0, 0]);
    expect(retryWindowSeconds({ retryDelay: 10, retryBackoff: true }, 0)).toEqual([10, 20]);
    expect(retryWindowSeconds({ retryBackoff: true }, 1)).toEqual([2, 4]);
    expect(retryWindowSeconds({ retryDelay: 10, retryBackoff: true, retryDelayMax: 60 }, 3)).toEqual([60, 60]);
  });
});
