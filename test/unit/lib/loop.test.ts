import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startLoop } from '../../../src/lib/loop.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('startLoop', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs the first tick one interval after the start, then one interval after each tick', async () => {
    const tick = vi.fn(async () => {});
    const loop = startLoop(tick, 1000, () => {});
    await vi.advanceTimersByTimeAsync(999);
    expect(tick).toHaveBeenCalledTimes(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(tick).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(2000);
    expect(tick).toHaveBeenCalledTimes(3);
    await loop.stop();
  });

  it('never overlaps itself: a slow tick delays the next one until an interval after it ends', async () => {
    const slow = deferred();
    let running = 0;
    let mostAtOnce = 0;
    const tick = vi.fn(async () => {
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      if (tick.mock.calls.length === 1) await slow.promise;
      running--;
    });
    const loop = startLoop(tick, 100, () => {});
    await vi.advanceTimersByTimeAsync(1000);
    expect(tick).toHaveBeenCalledTimes(1);
    slow.resolve();
    await vi.advanceTimersByTimeAsync(99);
    expect(tick).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(tick).toHaveBeenCalledTimes(2);
    expect(mostAtOnce).toBe(1);
    await loop.stop();
  });

  it('reports a failing tick to onError and goes on', async () => {
    const failure = new Error('tick failed');
    const tick = vi.fn<() => Promise<void>>().mockRejectedValueOnce(failure).mockResolvedValue(undefined);
    const onError = vi.fn();
    const loop = startLoop(tick, 100, onError);
    await vi.advanceTimersByTimeAsync(200);
    expect(onError).toHaveBeenCalledExactlyOnceWith(failure);
    expect(tick).toHaveBeenCalledTimes(2);
    await loop.stop();
  });

  it('stop() waits for a running tick, and no tick starts after it', async () => {
    const slow = deferred();
    const tick = vi.fn(() => slow.promise);
    const loop = startLoop(tick, 100, () => {});
    await vi.advanceTimersByTimeAsync(100);
    expect(tick).toHaveBeenCalledTimes(1);
    let stopped = false;
    const stopping = loop.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(stopped).toBe(false);
    slow.resolve();
    await stopping;
    await vi.advanceTimersByTimeAsync(1000);
    expect(tick).toHaveBeenCalledTimes(1);
  });

  it('stop() before the first interval means no tick ever runs', async () => {
    const tick = vi.fn(async () => {});
    const loop = startLoop(tick, 100, () => {});
    await loop.stop();
    await vi.advanceTimersByTimeAsync(1000);
    expect(tick).not.toHaveBeenCalled();
  });
});
