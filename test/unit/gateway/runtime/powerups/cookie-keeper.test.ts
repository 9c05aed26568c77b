import { describe, expect, it } from 'vitest';
import { BACKUP_PREFIX, keepCookies } from '../../../../../src/gateway/runtime/powerups/cookie-keeper.js';

const KEPT = ['_ga', '_fbp', 'FPID'];

describe('keepCookies', () => {
  it('backs up every kept cookie the browser sent, HttpOnly, Secure, SameSite=Lax, for 400 days', () => {
    const result = keepCookies({ _ga: 'GA1.1.111.222', _fbp: 'fb.1.1700000000000.42', other: 'x' }, KEPT);
    expect(result.restored).toEqual([]);
    expect(result.setCookies).toEqual([
      `${BACKUP_PREFIX}_ga=GA1.1.111.222; Max-Age=34560000; Path=/; Secure; HttpOnly; SameSite=Lax`,
      `${BACKUP_PREFIX}_fbp=fb.1.1700000000000.42; Max-Age=34560000; Path=/; Secure; HttpOnly; SameSite=Lax`,
    ]);
  });

  it('restores a lost cookie from its backup, readable by scripts when the site’s tag reads it', () => {
    const result = keepCookies({ [`${BACKUP_PREFIX}_ga`]: 'GA1.1.111.222', _fbp: 'fb.1.1.2' }, KEPT);
    expect(result.restored).toEqual(['_ga']);
    expect(result.setCookies).toContain('_ga=GA1.1.111.222; Max-Age=34560000; Path=/; Secure; SameSite=Lax');
    expect(result.cookies._ga).toBe('GA1.1.111.222');
  });

  it('restores a server-only cookie (FPID) HttpOnly', () => {
    const result = keepCookies({ [`${BACKUP_PREFIX}FPID`]: 'FPID2.2.abc' }, KEPT);
    expect(result.setCookies).toEqual(['FPID=FPID2.2.abc; Max-Age=34560000; Path=/; Secure; HttpOnly; SameSite=Lax']);
  });

  it('sets nothing for cookies it was not asked to keep, and nothing when neither cookie nor backup is there', () => {
    expect(keepCookies({ _gid: 'GA1.1.9', [`${BACKUP_PREFIX}_gid`]: 'x' }, KEPT)).toEqual({
      setCookies: [],
      restored: [],
      cookies: { _gid: 'GA1.1.9', [`${BACKUP_PREFIX}_gid`]: 'x' },
    });
  });

  it('adds the Domain attribute when given, and percent-encodes values outside cookie-octet', () => {
    const [cookie] = keepCookies({ _ga: 'a b;c' }, ['_ga'], { domain: 'example.com' }).setCookies;
    expect(cookie).toBe(
      `${BACKUP_PREFIX}_ga=a%20b%3Bc; Max-Age=34560000; Path=/; Domain=example.com; Secure; HttpOnly; SameSite=Lax`,
    );
  });

  it('does not change the cookies it was given', () => {
    const cookies = { [`${BACKUP_PREFIX}_ga`]: 'GA1.1.1.2' };
    keepCookies(cookies, KEPT);
    expect(cookies).toEqual({ [`${BACKUP_PREFIX}_ga`]: 'GA1.1.1.2' });
  });
});
