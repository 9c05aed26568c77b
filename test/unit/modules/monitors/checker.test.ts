import { describe, expect, it } from 'vitest';
import { statusMatches } from '../../../../src/modules/monitors/checker.js';

describe('statusMatches', () => {
  it.each([
    [200, ['2xx'], true],
    [299, ['2xx'], true],
    [199, ['2xx'], false],
    [300, ['2xx'], false],
    [301, ['301'], true],
    [302, ['301'], false],
    [404, ['2xx', '404'], true],
    [500, ['2xx', '404'], false],
    [200, [], false],
  ])('%i against %j is %s', (code, rules, expected) => {
    expect(statusMatches(code, rules)).toBe(expected);
  });
});
