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
      ...activationOf(account, runtime !== null),
      ...(account.blocked.length ? { blocked: account.blocked } : {}),
      ...(account.endpoints.size ? { endpoints: [...account.endpoints].sort() } : {}),
    }))
    .sort((a, b) => a.category.localeCompare(b.category) || a.name.localeCompare(b.name));
}

/** Evidence that the page only refers to a tracker: code naming it, a global of its name. */
const REFERENCE_KINDS = new Set(['inline', 'global']);

/**
 * How the tracker's tags start, when not on load: parked by a consent platform, delayed by a plug-in, or only in
 * <noscript> (never run for visitors with JavaScript); or `referenced` when the browser saw none of its scripts load
 * and none of its requests go, only code or a global naming it (a snippet that never ran, a site's own function of
 * the same name), and the page did not configure its id at run time (a Google tag configured while its loader waits
 * for consent is a tag held back, not a name). Absent when the HTML has it running as written.
 */
function activationOf(account: Account, browserRan: boolean): Pick<Tracker, 'activation'> {
  if (browserRan && onlyReferenced(account)) return { activation: { state: 'referenced', mechanism: null } };
  if (account.runsAsWritten) return {};
  const hold = account.holds.find((item) => item.by === 'consent') ?? account.holds[0];
  if (hold)
    return { activation: { state: hold.by === 'consent' ? 'held_for_consent' : 'delayed', mechanism: hold.mechanism } };
  const onlyNoscript = account.evidence.length > 0 && account.evidence.every((item) => item.kind === 'noscript');
  return onlyNoscript ? { activation: { state: 'noscript_only', mechanism: null } } : {};
}

function onlyReferenced(account: Account): boolean {
  return (
    account.evidence.length > 0 &&
    !account.configuredInPage &&
    account.evidence.every((item) => REFERENCE_KINDS.has(item.kind)) &&
    account.requests.length === 0 &&
    account.blocked.length === 0 &&
    account.holds.length === 0
  );
}
