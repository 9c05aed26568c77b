import { describe, expect, it } from 'vitest';
import type { Visitor } from '../../../../src/gateway/runtime/types.js';
import {
  clientIdFromGoogleFpid,
  fpidSetCookies,
  parseCookies,
  stableClientId,
} from '../../../../src/gateway/runtime/visitor.js';

/** FPID values as Google's tagging server sets them (URL-encoded in the Cookie header). */
const GOOGLE_FPID = 'FPID2.2.2vwfEqQnm1fbTyLngcbupbCN7jTzwZsEQcaBdDulNzI%3D.1775537645';
const GOOGLE_FPID_SLASHES = 'FPID2.3.9Zef%2FVO%2FixM8weju6v8hq8IkNDU7KlwgA1tqunUtE2M%3D.1764912992';

const visitorWith = (cookie: string) =>
  ({ ip: '203.0.113.7', userAgent: 'Mozilla/5.0', cookies: parseCookies(cookie), bot: false }) as Visitor;

describe("the client id of Google's FPID cookie", () => {
  // Pinned: a change here would count every visitor migrated from Google's tagging server as new once more.
  it.each([
    [GOOGLE_FPID, '1601903684.1775537645'],
    // The domain level (FPID2.<n>) is not part of the id.
    [GOOGLE_FPID.replace('FPID2.2.', 'FPID2.3.'), '1601903684.1775537645'],
    [GOOGLE_FPID_SLASHES, '1199371164.1764912992'],
    // Without a timestamp, a past one picked by the id.
    ['FPID2.2.9Zef%2FVO%2FixM8weju6v8hq8IkNDU7KlwgA1tqunUtE2M%3D', '1199371164.1045684618'],
  ])('%s → %s, on every hit', (cookie, clientId) => {
    const value = parseCookies(`FPID=${cookie}`).FPID;
    expect(clientIdFromGoogleFpid(value)).toBe(clientId);
    expect(clientIdFromGoogleFpid(value)).toBe(clientIdFromGoogleFpid(value));
  });

  it.each([
    ['ours', '123.456'],
    ['empty', ''],
    ['another version', 'FPID1.2.2vwfEqQnm1fbTyLngcbupbCN7jTzwZsEQcaBdDulNzI=.1775537645'],
    ['no id', 'FPID2.2..1775537645'],
    ['a too short id', 'FPID2.2.abc=.1775537645'],
    ['characters outside base64', 'FPID2.2.2vwfEqQnm1fbTyLn gcbupbCN7jTzwZsEQcaBdDulNzI=.1775537645'],
    ['a non-numeric timestamp', 'FPID2.2.2vwfEqQnm1fbTyLngcbupbCN7jTzwZsEQcaBdDulNzI=.yesterday'],
    ['trailing parts', 'FPID2.2.2vwfEqQnm1fbTyLngcbupbCN7jTzwZsEQcaBdDulNzI=.1775537645.1'],
    ['a broken escape, left encoded', 'FPID2.2.2vwfEqQnm1fbTyLngcbupbCN7jTzwZsEQcaBdDulNzI%3.1775537645'],
  ])('is none for a value that is not Google format: %s', (_, value) => {
    expect(clientIdFromGoogleFpid(value)).toBeNull();
  });
});

describe('stableClientId and the FPID Set-Cookie', () => {
  it.each([
    ['our FPID, over the hit cid', 'FPID=123.456; _ga=GA1.1.999.888', '999.888', '123.456', true],
    ["Google's FPID, over the hit cid", `FPID=${GOOGLE_FPID}`, '999.888', '1601903684.1775537645', false],
    ['a malformed FPID: the hit cid', 'FPID=FPID2.2.bad', '999.888', '999.888', true],
    ['no FPID: the hit cid', '_ga=GA1.1.999.888', '999.888', '999.888', true],
  ])('with %s', (_, cookie, hitClientId, clientId, setsCookie) => {
    const visitor = visitorWith(cookie);
    expect(stableClientId(visitor, hitClientId)).toBe(clientId);
    expect(fpidSetCookies(visitor, clientId)).toEqual(
      setsCookie ? [`FPID=${clientId}; Max-Age=34560000; Path=/; HttpOnly; Secure; SameSite=Lax`] : [],
    );
  });

  it('makes a new id in GA format without FPID or a valid hit cid, and sets it', () => {
    const visitor = visitorWith('FPID=FPID2.2.bad');
    const clientId = stableClientId(visitor, 'not-a-cid');
    expect(clientId).toMatch(/^\d{10}\.\d{10}$/);
    expect(fpidSetCookies(visitor, clientId)).toEqual([expect.stringMatching(new RegExp(`^FPID=${clientId}; `))]);
  });
});
