import { describe, expect, it } from 'vitest';
import { hardLimit } from '../../../src/scanner/optional-stages.js';

const never = () => new Promise<never>(() => {});

describe('hardLimit: the stage time limit a warning reports', () => {
  it('a limit already used up (the deadline passed before the stage began) rejects at once, with no negative duration', async () => {
    const rejected = hardLimit(never(), -9233, 'browser_timeout');
    await expect(rejected).rejects.toMatchObject({ code: 'browser_timeout' });
    await expect(rejected).rejects.toThrow('browser_timeout: the time limit was used up before it could start');
  });

  it('names the limit it waited, in whole milliseconds', async () => {
    await expect(hardLimit(never(), 20.4, 'fetch_timeout')).rejects.toThrow('fetch_timeout: no answer within 20 ms');
  });

  it('passes the answer through when it comes in time', async () => {
    await expect(hardLimit(Promise.resolve('page'), 1_000, 'browser_timeout')).resolves.toBe('page');
  });
});
