import { setCookie } from './cookies.js';

/** Backups are named after the cookie they keep, so a restore knows where each value goes. */
export const BACKUP_PREFIX = '_tp_keep_';

/** The cookies the site's scripts read: restored without HttpOnly, or the script could neither read nor renew them. */
const SCRIPT_COOKIES = new Set(['_ga', '_fbp', '_fbc', '_gcl_au', '_gcl_aw']);

export interface CookieKeeperResult {
  /** Set-Cookie values: a backup of every kept cookie present, and each lost cookie restored from its backup. */
  setCookies: string[];
  /** Names of the cookies brought back from their backups. */
  restored: string[];
  /** The request's cookies as they are after the restore, for the event being handled now. */
  cookies: Record<string, string>;
}

export interface CookieKeeperOptions {
  /** Domain attribute for the cookies set (the site's registrable domain); host-only when absent. */
  domain?: string;
}

/**
 * Cookie keeper: mirrors each chosen cookie the browser sent into an HttpOnly backup (refreshed to 400 days), and
 * restores a chosen cookie the browser lost from its backup. Script-read cookies come back without HttpOnly.
 */
export function keepCookies(
  cookies: Record<string, string>,
  names: readonly string[],
  options: CookieKeeperOptions = {},
): CookieKeeperResult {
  const setCookies: string[] = [];
  const restored: string[] = [];
  const after = { ...cookies };
  for (const name of new Set(names)) {
    const current = cookies[name];
    const backup = cookies[BACKUP_PREFIX + name];
    if (current) {
      setCookies.push(setCookie(BACKUP_PREFIX + name, current, { httpOnly: true, domain: options.domain }));
    } else if (backup) {
      setCookies.push(setCookie(name, backup, { httpOnly: !SCRIPT_COOKIES.has(name), domain: options.domain }));
      restored.push(name);
      after[name] = backup;
    }
  }
  return { setCookies, restored, cookies: after };
}
