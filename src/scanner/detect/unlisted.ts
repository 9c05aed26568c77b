import thirdPartyWeb from 'third-party-web';
import type { RuntimeFindings } from '../capture-types.js';
import type { UnlistedEvidence, UnlistedTracker } from '../schema-unlisted.js';
import type { Book } from './book.js';
import { registrableDomain } from './registrable-domain.js';
import { collectSigns, type GroupOf, type Signs } from './unlisted-signs.js';
import { hostOf } from './urls.js';

/**
 * Third parties no rule names (neither ours nor a tracking category of third-party-web) that behaved like trackers:
 * each sign a domain gave adds points, a script alone none. They are reported apart from `trackers` and never
 * counted in the summary or the loss estimate.
 */

const MAX_EVIDENCE = 12;

/** Points per sign; a typed value sent or a canvas fingerprint is no accident of a file host. */
const POINTS: Record<UnlistedEvidence['kind'], number> = {
  typed_value_sent: 2,
  fingerprinting: 2,
  service_worker: 1,
  id_parameter: 1,
  cookie: 1,
  storage: 1,
  beacon: 1,
  script: 0,
};
const ORDER = Object.keys(POINTS);

const CONFIDENCE_RANK = { high: 0, medium: 1, low: 2 } as const;

/** A first-party host is a proxy of a vendor only on strong evidence: the site's own API also gets ids posted. */
const FIRST_PARTY_POINTS = 3;

export function listUnlistedTrackers(book: Book, runtime: RuntimeFindings): UnlistedTracker[] {
  const signs = collectSigns(runtime, groupOf(book, hostOf(runtime.finalUrl)));
  return [...signs.values()]
    .flatMap(judge)
    .sort((a, b) => CONFIDENCE_RANK[a.confidence] - CONFIDENCE_RANK[b.confidence] || a.domain.localeCompare(b.domain));
}

/**
 * Third parties by registrable domain; hosts of the site's own domain one by one (a first-party proxy), except the
 * page's host, the bare domain and its www. Hosts of the trackers and consent platforms the rules named are theirs.
 */
function groupOf(book: Book, pageHost: string | null): GroupOf {
  const named = namedHosts(book);
  const namedDomains = new Set([...named].map(registrableDomain));
  const site = new Set([pageHost, book.siteDomain, `www.${book.siteDomain}`]);
  return (host) => {
    const domain = registrableDomain(host);
    if (domain !== book.siteDomain) return namedDomains.has(domain) ? null : { key: domain, firstParty: false };
    return site.has(host) || named.has(host) ? null : { key: host, firstParty: true };
  };
}

/** Hosts of the trackers, server-side endpoints and consent platforms the rules named. */
function namedHosts(book: Book): Set<string> {
  const urls = [
    ...[...book.accounts.values()].flatMap((account) => [
      ...account.requests.map((request) => request.url),
      ...account.blocked.map((blocked) => blocked.url),
      ...account.evidence.map((item) => item.url),
      account.namedByHost ? `https://${account.namedByHost}/` : undefined,
    ]),
    ...[...book.cmp.values()].flat().map((item) => item.url),
    ...book.endpoints,
  ];
  return new Set(urls.map((url) => (url ? hostOf(url) : null)).filter((host): host is string => !!host));
}

/**
 * A third party is listed when it gave at least two points of signs, or one beside a script it served; a first-party
 * host when it gave FIRST_PARTY_POINTS.
 */
function judge(signs: Signs): UnlistedTracker[] {
  const evidence = distinct(signs.evidence);
  const kinds = new Set(evidence.map((item) => item.kind));
  const points = [...kinds].reduce((sum, kind) => sum + POINTS[kind], 0);
  if (points === 0 || (points === 1 && !kinds.has('script'))) return [];
  if (signs.firstParty && points < FIRST_PARTY_POINTS) return [];
  return [
    {
      domain: signs.domain,
      first_party: signs.firstParty,
      name: entityName(signs),
      hosts: [...signs.hosts].sort(),
      category_guess: kinds.has('typed_value_sent') ? 'session_replay' : null,
      confidence: points >= 3 ? 'high' : points === 2 ? 'medium' : 'low',
      evidence: evidence.sort((a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind)).slice(0, MAX_EVIDENCE),
      ids: [...signs.ids].sort(),
    },
  ];
}

function distinct(evidence: UnlistedEvidence[]): UnlistedEvidence[] {
  const seen = new Set<string>();
  return evidence.filter((item) => {
    const key = `${item.kind}|${item.detail}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function entityName(signs: Signs): string | null {
  for (const host of [...signs.hosts, signs.domain]) {
    try {
      const entity = thirdPartyWeb.getEntity(`https://${host}/`);
      if (entity) return entity.name;
    } catch {
      /* not a host third-party-web can read */
    }
  }
  return null;
}
