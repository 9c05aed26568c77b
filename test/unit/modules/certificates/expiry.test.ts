import { describe, expect, it } from 'vitest';
import { expiryWarningAt, renewalAt } from '../../../../src/modules/certificates/service.js';

const DAY = 86_400_000;
const issued = (days: number) => ({ notBefore: new Date(0), notAfter: new Date(days * DAY) });

describe('when a certificate counts as near expiry', () => {
  it.each([
    ['a 90-day certificate renewed at two thirds', 90, 2 / 3, 14],
    ['a 6-day certificate renewed at two thirds', 6, 2 / 3, 1],
    ['a 90-day certificate renewed at 90 %', 90, 0.9, 4.5],
    ['a year-long certificate renewed at half', 365, 0.5, 14],
  ])('%s: halfway from the due renewal to expiry, at most 14 days before it', (_what, days, renewAt, warnDays) => {
    const { notAfter } = issued(days);
    expect((notAfter.getTime() - expiryWarningAt(issued(days), renewAt).getTime()) / DAY).toBeCloseTo(warnDays, 6);
  });
});

describe('when a certificate is renewed', () => {
  it('at a point of the tenth of its lifetime before the configured fraction, never after it', () => {
    const ninetyDays = issued(90);
    expect(renewalAt(ninetyDays, 2 / 3, () => 0).getTime() / DAY).toBeCloseTo(90 * (2 / 3 - 0.1), 6);
    expect(renewalAt(ninetyDays, 2 / 3, () => 1).getTime() / DAY).toBeCloseTo(60, 6);
    // A low fraction keeps at least the first half of it before renewing.
    expect(renewalAt(ninetyDays, 0.1, () => 0).getTime() / DAY).toBeCloseTo(4.5, 6);
  });

  it('spreads certificates issued together over that window instead of renewing them at once', () => {
    const days = Array.from({ length: 200 }, () => renewalAt(issued(90), 2 / 3).getTime() / DAY);
    expect(Math.min(...days)).toBeGreaterThanOrEqual(51);
    expect(Math.max(...days)).toBeLessThanOrEqual(60);
    // 200 uniform draws over 9 days: the chance that they all fall within 4.5 days of each other is about 2^-198.
    expect(Math.max(...days) - Math.min(...days)).toBeGreaterThan(4.5);
    expect(new Set(days.map((day) => Math.floor(day))).size).toBeGreaterThan(5);
  });
});
