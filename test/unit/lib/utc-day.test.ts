import { describe, expect, it } from 'vitest';
import { UtcDay } from '../../../src/lib/utc-day.js';

describe('UtcDay', () => {
  it('names the UTC day and turns over exactly at midnight UTC', () => {
    let now = Date.parse('2026-11-28T23:59:59.999Z');
    const day = new UtcDay(() => now);
    expect(day.today).toBe('2026-11-28');
    now += 1;
    expect(day.today).toBe('2026-11-29');
    now = Date.parse('2026-12-31T23:00:00+02:00');
    expect(day.today).toBe('2026-12-31');
  });
});
