import { describe, expect, it } from 'vitest';
import { keptClickIds, restoreClickIds } from '../../../../../src/gateway/runtime/powerups/click-ids.js';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const page = (query: string) => `https://shop.example.com/landing?utm_source=ads&${query}`;

describe('restoreClickIds', () => {
  it('keeps gclid, gbraid, wbraid, ttclid and msclkid in HttpOnly first-party cookies', () => {
    const result = restoreClickIds(
      page('gclid=Cj0KCQ-abc_1&gbraid=0AAAA-gb&wbraid=CjkK-wb&ttclid=E.C.P.tt1&msclkid=ms1'),
      {},
      NOW,
    );
    expect(result.found).toEqual({
      gclid: 'Cj0KCQ-abc_1',
      gbraid: '0AAAA-gb',
      wbraid: 'CjkK-wb',
      ttclid: 'E.C.P.tt1',
      msclkid: 'ms1',
    });
    expect(result.setCookies).toEqual([
      '_tp_gclid=Cj0KCQ-abc_1; Max-Age=34560000; Path=/; Secure; HttpOnly; SameSite=Lax',
      '_tp_gbraid=0AAAA-gb; Max-Age=34560000; Path=/; Secure; HttpOnly; SameSite=Lax',
      '_tp_wbraid=CjkK-wb; Max-Age=34560000; Path=/; Secure; HttpOnly; SameSite=Lax',
      '_tp_ttclid=E.C.P.tt1; Max-Age=34560000; Path=/; Secure; HttpOnly; SameSite=Lax',
      '_tp_msclkid=ms1; Max-Age=34560000; Path=/; Secure; HttpOnly; SameSite=Lax',
    ]);
  });

  it('keeps fbclid as _fbc in Meta’s format fb.1.<ms>.<fbclid>, readable by the pixel', () => {
    const result = restoreClickIds(page('fbclid=IwAR0abc_DEF-123'), {}, NOW);
    expect(result.setCookies).toEqual([
      `_fbc=fb.1.${NOW}.IwAR0abc_DEF-123; Max-Age=34560000; Path=/; Secure; SameSite=Lax`,
    ]);
    expect(result.cookies._fbc).toBe(`fb.1.${NOW}.IwAR0abc_DEF-123`);
  });

  it('leaves an _fbc that already holds the same fbclid, so its time stays the click’s', () => {
    const cookies = { _fbc: 'fb.1.1700000000000.IwAR0abc' };
    const result = restoreClickIds(page('fbclid=IwAR0abc'), cookies, NOW);
    expect(result.setCookies).toEqual([]);
    expect(result.cookies._fbc).toBe('fb.1.1700000000000.IwAR0abc');
  });

  it('replaces an _fbc of an older click', () => {
    const result = restoreClickIds(page('fbclid=NEW1'), { _fbc: 'fb.1.1700000000000.OLD1' }, NOW);
    expect(result.cookies._fbc).toBe(`fb.1.${NOW}.NEW1`);
  });

  it('ignores a page without click ids, a malformed URL and values that are not tokens', () => {
    expect(restoreClickIds(page('q=shoes'), {}, NOW).setCookies).toEqual([]);
    expect(restoreClickIds('not a url', {}, NOW).setCookies).toEqual([]);
    expect(restoreClickIds(null, {}, NOW).setCookies).toEqual([]);
    expect(restoreClickIds(page('gclid=%3Cscript%3E'), {}, NOW).setCookies).toEqual([]);
  });

  it('sets the Domain attribute when given', () => {
    const [cookie] = restoreClickIds(page('gclid=abc'), {}, NOW, { domain: 'example.com' }).setCookies;
    expect(cookie).toContain('; Domain=example.com;');
  });
});

describe('keptClickIds', () => {
  it('reads the click ids back from the cookies, the fbclid out of _fbc', () => {
    expect(keptClickIds({ _tp_gclid: 'abc', _fbc: 'fb.1.1700000000000.IwAR0abc', _ga: 'x' })).toEqual({
      gclid: 'abc',
      fbclid: 'IwAR0abc',
    });
  });
});
