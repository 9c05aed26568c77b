import { TRACKERS, type TrackerKey } from '../signatures.js';
import type { Account, Book } from './book.js';

/**
 * Products that speak another product's API: the same globals, cookie names and wire protocol. Such signals name the
 * family's best-known member by default; when a member's own host is seen (its script or collection host), that host
 * decides, and the shared signals are merged into it.
 */
const FAMILIES: Array<{ members: TrackerKey[]; shared: string }> = [
  {
    members: ['segment', 'rudderstack'],
    shared: 'the analytics.js API (window.analytics, analytics.load, ajs_* cookies, the /v1/ tracking protocol)',
  },
  {
    members: ['matomo', 'piwik_pro'],
    shared: 'the Matomo tracking API (window._paq, _pk_* cookies, the piwik.php protocol)',
  },
];

export function resolveSharedApis(book: Book): void {
  for (const family of FAMILIES) {
    const present = family.members.map((key) => book.accounts.get(key)).filter((account) => account !== undefined);
    const named = present.filter((account) => account.namedByHost);
    if (named.length !== 1) continue; // no host evidence, or several products really present
    const [target] = named;
    for (const other of present) {
      if (other === target || other.namedByHost) continue;
      merge(target, other);
      book.accounts.delete(other.info.key);
      book.renamed.set(other.info.key, target.info.key);
      target.evidence.unshift({
        kind: 'request',
        detail: `Named ${target.info.name} by its host ${target.namedByHost}: ${family.shared} is shared with ${TRACKERS[other.info.key as TrackerKey].name}`,
      });
    }
  }
}

function merge(target: Account, other: Account): void {
  for (const id of other.ids) target.ids.add(id);
  for (const item of other.evidence) {
    const dedupe = `${item.kind}|${item.detail}|${item.url ?? ''}`;
    if (!target.evidenceKeys.has(dedupe) && target.evidence.length < 12) {
      target.evidenceKeys.add(dedupe);
      target.evidence.push(item);
    }
  }
  target.requests.push(...other.requests);
  target.blocked.push(...other.blocked.slice(0, Math.max(0, 12 - target.blocked.length)));
  target.holds.push(...other.holds);
  target.runsAsWritten ||= other.runsAsWritten;
  target.firstParty ||= other.firstParty;
  target.serverSide ||= other.serverSide;
  for (const endpoint of other.endpoints) target.endpoints.add(endpoint);
}
