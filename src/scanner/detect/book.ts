import type { RuntimeRequest } from '../browser.js';
import type { Evidence } from '../schema.js';
import type { Hold } from '../signatures/holds.js';
import { TRACKERS, trackerForGoogleId, type TrackerInfo, type TrackerKey } from '../signatures.js';
import { registrableDomain } from './registrable-domain.js';

const MAX_EVIDENCE = 12;
export const GOOGLE_KEYS: TrackerKey[] = ['google_analytics_4', 'universal_analytics', 'google_ads', 'floodlight'];

/** What the detection steps found about one tracker. */
export interface Account {
  info: TrackerInfo;
  ids: Set<string>;
  evidence: Evidence[];
  evidenceKeys: Set<string>;
  firstParty: boolean;
  serverSide: boolean;
  /** Requests attributed to the tracker in the browser. */
  requests: RuntimeRequest[];
  /** gcs values of its data hits (Google only); null when the hit had none. */
  hitsGcs: Array<string | null>;
  /** Requests attributed to it that never got a response (refused by CSP, failed, aborted). */
  blocked: Array<{ url: string; reason: string }>;
  /** How the static stage found its scripts held back (consent platforms, delay plug-ins). */
  holds: Hold[];
  /** The static stage found it in a script that runs as written (not held back, not in <noscript>). */
  runsAsWritten: boolean;
  /** The page ran a config command for one of its ids (`gtag('config', …)` in the dataLayer), loaded or not. */
  configuredInPage: boolean;
  /** First-party collection endpoints its hits went to (origin + path). */
  endpoints: Set<string>;
  /** The vendor's own host that identified it (see detect/families.ts), when one did. */
  namedByHost: string | null;
}

/** The findings of one scan as the steps collect them: tracker accounts, CMP evidence and server-side evidence. */
export class Book {
  readonly accounts = new Map<string, Account>();
  readonly cmp = new Map<string, Evidence[]>();
  readonly serverEvidence: Evidence[] = [];
  readonly serverKeys = new Set<string>();
  readonly endpoints = new Set<string>();
  /** Trackers merged into another one (detect/families.ts): old key → the key that names it. */
  readonly renamed = new Map<string, string>();

  constructor(readonly siteDomain: string) {}

  isFirstParty(host: string | null): boolean {
    return !!host && registrableDomain(host) === this.siteDomain;
  }

  account(info: TrackerInfo): Account {
    let account = this.accounts.get(info.key);
    if (!account) {
      account = {
        info,
        ids: new Set(),
        evidence: [],
        evidenceKeys: new Set(),
        firstParty: false,
        serverSide: false,
        requests: [],
        hitsGcs: [],
        blocked: [],
        holds: [],
        runsAsWritten: false,
        configuredInPage: false,
        endpoints: new Set(),
        namedByHost: null,
      };
      this.accounts.set(info.key, account);
    }
    return account;
  }

  has(key: string): boolean {
    return this.accounts.has(key);
  }

  add(info: TrackerInfo, evidence: Evidence, ids: Array<string | null> = []): Account {
    const account = this.account(info);
    for (const id of ids) if (id) account.ids.add(id);
    const dedupe = `${evidence.kind}|${evidence.detail}|${evidence.url ?? ''}`;
    if (!account.evidenceKeys.has(dedupe)) {
      account.evidenceKeys.add(dedupe);
      if (account.evidence.length < MAX_EVIDENCE) account.evidence.push(evidence);
    }
    return account;
  }

  addCmp(name: string, evidence: Evidence) {
    const list = this.cmp.get(name) ?? [];
    if (
      list.length < MAX_EVIDENCE &&
      !list.some((item) => item.kind === evidence.kind && item.detail === evidence.detail && item.url === evidence.url)
    )
      list.push(evidence);
    this.cmp.set(name, list);
  }

  addServer(evidence: Evidence, endpoint: string | null) {
    const dedupe = `${evidence.kind}|${evidence.detail}|${evidence.url ?? ''}`;
    if (!this.serverKeys.has(dedupe) && this.serverEvidence.length < MAX_EVIDENCE) {
      this.serverKeys.add(dedupe);
      this.serverEvidence.push(evidence);
    }
    if (endpoint) this.endpoints.add(endpoint);
  }
}

/** Our tracker info for a Google id, creating nothing. */
export function infoForId(id: string): TrackerInfo | null {
  const key = trackerForGoogleId(id);
  return key ? TRACKERS[key] : null;
}
