import type { RuntimeFindings } from '../browser.ts';
import type { CookieResult } from '../schema.ts';
import { trackerForCookie } from '../signatures.ts';
import type { Book } from './book.ts';

/** The page's cookies (at most 300), each with its tracker when our rules know the name. */
export function listCookies(runtime: RuntimeFindings | null, book: Book): CookieResult[] {
  return (runtime?.cookies ?? []).slice(0, 300).map((cookie) => {
    const key = trackerForCookie(cookie.name);
    return {
      name: cookie.name,
      domain: cookie.domain,
      first_party: book.isFirstParty(cookie.domain),
      ...(key ? { tracker: key } : {}),
      set_by: cookie.setBy,
      expires: cookie.expires > 0 ? new Date(cookie.expires * 1000).toISOString() : null,
    };
  });
}
