import { fbcFromFbclid } from '../meta/user-data.js';
import { setCookie } from './cookies.js';

/** The click ids the restorer keeps, each under the first-party cookie it is kept in. */
export const CLICK_ID_COOKIES = {
  gclid: '_tp_gclid',
  gbraid: '_tp_gbraid',
  wbraid: '_tp_wbraid',
  fbclid: '_fbc',
  ttclid: '_tp_ttclid',
  msclkid: '_tp_msclkid',
} as const;

export type ClickIdName = keyof typeof CLICK_ID_COOKIES;
export const CLICK_ID_NAMES = Object.keys(CLICK_ID_COOKIES) as ClickIdName[];

/** Click ids are opaque tokens; anything longer or with other characters is not kept. */
const CLICK_ID_VALUE = /^[A-Za-z0-9._~-]{1,500}$/;

export interface ClickIdRestoreResult {
  /** Set-Cookie values for the click ids found on the page URL. */
  setCookies: string[];
  /** The click ids found on the page URL, by parameter name. */
  found: Partial<Record<ClickIdName, string>>;
  /** The request's cookies with the new values, for the event being handled now. */
  cookies: Record<string, string>;
}

function pageParams(pageUrl: string | null): URLSearchParams | null {
  if (!pageUrl) return null;
  try {
    return new URL(pageUrl).searchParams;
  } catch {
    return null;
  }
}

/**
 * Click ID restorer: keeps `gclid`, `gbraid`, `wbraid`, `ttclid`, `msclkid` from the page URL in HttpOnly first-party
 * cookies (`_tp_<name>`), and `fbclid` as Meta's `_fbc` (`fb.1.<ms>.<fbclid>`, readable by the pixel); an `_fbc`
 * that already holds the same fbclid is left as it is, so its creation time stays the click's.
 */
export function restoreClickIds(
  pageUrl: string | null,
  cookies: Record<string, string>,
  now: number,
  options: { domain?: string } = {},
): ClickIdRestoreResult {
  const params = pageParams(pageUrl);
  const result: ClickIdRestoreResult = { setCookies: [], found: {}, cookies: { ...cookies } };
  if (!params) return result;
  for (const name of CLICK_ID_NAMES) {
    const value = params.get(name);
    if (!value || !CLICK_ID_VALUE.test(value)) continue;
    result.found[name] = value;
    const cookie = CLICK_ID_COOKIES[name];
    if (name === 'fbclid') {
      if (cookies._fbc?.endsWith(`.${value}`)) continue;
      const fbc = fbcFromFbclid(value, now);
      result.setCookies.push(setCookie(cookie, fbc, { httpOnly: false, domain: options.domain }));
      result.cookies[cookie] = fbc;
    } else {
      result.setCookies.push(setCookie(cookie, value, { httpOnly: true, domain: options.domain }));
      result.cookies[cookie] = value;
    }
  }
  return result;
}

/** The click ids kept in the visitor's cookies (by parameter name): what the restorer stored on earlier visits. */
export function keptClickIds(cookies: Record<string, string>): Partial<Record<ClickIdName, string>> {
  const kept: Partial<Record<ClickIdName, string>> = {};
  for (const name of CLICK_ID_NAMES) {
    const value = cookies[CLICK_ID_COOKIES[name]];
    if (!value) continue;
    kept[name] = name === 'fbclid' ? (value.split('.')[3] ?? value) : value;
  }
  return kept;
}
