import type { RuntimeFindings } from '../browser.js';
import type { CookieResult } from '../schema.js';
import { trackerForCookie } from '../signatures.js';
import type { Book } from './book.js';

/** The page's cookies (at most 300), each with its tracker when our rules know the name. */
export function listCookies(runtime: RuntimeFindings | null, book: Book): CookieResult[] {
  return (runtime?.cookies ?? []).slice(0, 300).map((cookie) => {
    const found = trackerForCookie(cookie.name, (known) => book.has(known));
    const key = found ? (book.renamed.get(found) ?? found) : null;
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
