import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  fbcFromFbclid,
  fbclidOf,
  hashForMeta,
  normaliseEmail,
  normalisePhone,
} from '../../../../../src/gateway/runtime/meta/user-data.js';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

describe('Meta customer information normalisation', () => {
  it('trims and lower-cases emails before hashing', () => {
    expect(normaliseEmail('  Jane.Doe@Example.COM ')).toBe('jane.doe@example.com');
    expect(hashForMeta(' Jane@Example.com', normaliseEmail)).toBe(sha256('jane@example.com'));
  });

  it.each([
    ['+44 844 412 4653', '448444124653'],
    ['0044 844 412 4653', '448444124653'],
    ['+1 (650) 555-1212', '16505551212'],
  ])('normalises the phone %s to %s', (phone, normalised) => {
    expect(normalisePhone(phone)).toBe(normalised);
  });

  it('hashes nothing that normalises to empty', () => {
    expect(hashForMeta('---', normalisePhone)).toBeNull();
  });

  it('builds fbc as fb.1.<ms>.<fbclid> and reads fbclid off a page URL', () => {
    expect(fbcFromFbclid('IwAR0abc', 1_700_000_000_123)).toBe('fb.1.1700000000123.IwAR0abc');
    expect(fbclidOf('https://a.example/?x=1&fbclid=IwAR0abc')).toBe('IwAR0abc');
    expect(fbclidOf('https://a.example/')).toBeNull();
    expect(fbclidOf('not a url')).toBeNull();
  });
});
