import type { RuntimeFindings } from '../browser.js';
import type { Tracker } from '../schema.js';
import type { Book } from './book.js';

/**
 * The trackers found, sorted by category and name. A bare Google tag next to GTM, with no id and no request of its
 * own, is GTM's and is left out. `fires_before_consent` is null without a browser stage.
 */
export function listTrackers(book: Book, runtime: RuntimeFindings | null): Tracker[] {
  return [...book.accounts.values()]
    .filter(
      (account) =>
        !(
          account.info.key === 'google_tag' &&
          account.ids.size === 0 &&
          book.has('google_tag_manager') &&
          account.requests.length === 0
        ),
    )
    .map((account) => ({
      key: account.info.key,
      name: account.info.name,
      vendor: account.info.vendor,
      category: account.info.category,
      ids: [...account.ids].sort(),
      evidence: account.evidence,
      first_party: account.firstParty,
      server_side: account.serverSide,
      fires_before_consent: runtime ? account.info.category !== 'tag_manager' && account.requests.length > 0 : null,
    }))
    .sort((a, b) => a.category.localeCompare(b.category) || a.name.localeCompare(b.name));
}
