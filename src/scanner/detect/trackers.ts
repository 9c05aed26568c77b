import type { RuntimeFindings } from '../browser.js';
import type { Tracker } from '../schema.js';
import { META_EVENT_ID_NOTE } from '../signatures.js';
import type { Account, Book } from './book.js';

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
      ...(account.info.key === 'meta_pixel' && account.evidence.some((item) => item.detail.includes(META_EVENT_ID_NOTE))
        ? { conversions_api: true }
        : {}),
      ...(account.info.discontinuedSince ? { discontinued_since: account.info.discontinuedSince } : {}),
      ...activationOf(account),
      ...(account.blocked.length ? { blocked: account.blocked } : {}),
      ...(account.endpoints.size ? { endpoints: [...account.endpoints].sort() } : {}),
    }))
    .sort((a, b) => a.category.localeCompare(b.category) || a.name.localeCompare(b.name));
}

/**
 * How the tracker's tags start, when not on load: parked by a consent platform, delayed by a plug-in, or only in
 * <noscript> (never run for visitors with JavaScript). Absent when the HTML has it running as written.
 */
function activationOf(account: Account): Pick<Tracker, 'activation'> {
  if (account.runsAsWritten) return {};
  const hold = account.holds.find((item) => item.by === 'consent') ?? account.holds[0];
  if (hold)
    return { activation: { state: hold.by === 'consent' ? 'held_for_consent' : 'delayed', mechanism: hold.mechanism } };
  const onlyNoscript = account.evidence.length > 0 && account.evidence.every((item) => item.kind === 'noscript');
  return onlyNoscript ? { activation: { state: 'noscript_only', mechanism: null } } : {};
}
