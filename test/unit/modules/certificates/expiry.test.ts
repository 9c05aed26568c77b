import { describe, expect, it } from 'vitest';
import { expiryWarningAt } from '../../../../src/modules/certificates/service.js';

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
