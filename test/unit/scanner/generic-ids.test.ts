import { describe, expect, it } from 'vitest';
import { holdsIdentifier, idInCookieName, idsInRequests } from '../../../src/scanner/detect/generic-ids.js';

// Issue 31, mechanism 5: account ids read from any vendor's requests and cookies (detect/generic-ids.ts).

const base64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
const ids = (...requests: Array<[string, string | null]>) =>
  [...idsInRequests(requests.map(([url, postData]) => ({ url, postData }))).entries()].sort();

describe('ids in requests', () => {
  it('takes documented names from the query, form and JSON bodies, and base64 JSON inside a form field', () => {
    expect(ids(['https://t.test/h?siteId=S-1&ts=1764300000000&r=0.123', null])).toEqual([['S-1', 'siteId']]);
    expect(ids(['https://t.test/e', 'project_id=p-77&ev=view'])).toEqual([['p-77', 'project_id']]);
    expect(ids(['https://t.test/e', JSON.stringify({ meta: { advertiserId: 4455 } })])).toEqual([
      ['4455', 'advertiserId'],
    ]);
    expect(ids(['https://t.test/e', `data=${encodeURIComponent(base64({ token: 'x', app_key: 'ak-901' }))}`])).toEqual([
      ['ak-901', 'app_key'],
    ]);
  });

  it('takes an undocumented id-like name only when its value repeats; never a visitor, session or event id', () => {
    const hit = (n: number) =>
      [`https://t.test/p.gif?wid=W-1&vid=visitor1&sid=s1&eid=e${n}&cb=${n}`, null] as [string, null];
    expect(ids(hit(1))).toEqual([]);
    expect(ids(hit(1), hit(2))).toEqual([['W-1', 'wid']]);
  });

  it('refuses timestamps, booleans and values that are not short plain tokens', () => {
    expect(ids(['https://t.test/h?account=1764300000&site=true&app=has%20space&tag=ok-1', null])).toEqual([
      ['ok-1', 'tag'],
    ]);
  });
});

describe('ids in cookie names', () => {
  it.each([
    ['_hjSessionUser_1234567', '1234567'],
    ['_ebc_k9F3xQ72_ses', 'k9F3xQ72'],
    ['_emx_vid', null],
    ['_pk_id.3.1fff', null],
    ['_vnd_1764300000_t', null],
  ])('%s → %s', (name, id) => {
    expect(idInCookieName(name)).toBe(id);
  });
});

describe('identifiers in stored values', () => {
  it.each([
    'k2j3h4g5f6d',
    'c2a1f0de-5b2e-4e7a-9d61-0f5c2a7b8e91',
    '{"uid":"lq8x2k3m9z","n":3}',
    '[{"visitor":{"id":"9f8e7d6c5b4a"}}]',
    '4827394857102934',
  ])('%s holds one', (value) => expect(holdsIdentifier(value)).toBe(true));

  it.each([
    'dark',
    'en-US',
    'true',
    '16',
    '3.7.1',
    'jquery-3.7.1',
    '1700000000000',
    'dismissed_banner_2024',
    '{"theme":"dark","fontSize":16,"version":"2.4.0"}',
    'Thanks for visiting 2024edition page',
  ])('%s holds none', (value) => expect(holdsIdentifier(value)).toBe(false));
});
