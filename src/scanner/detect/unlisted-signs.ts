import { detectBehaviours } from '../behaviours.js';
import type { RuntimeCookie, RuntimeFindings, RuntimeRequest, StorageWrite } from '../capture-types.js';
import type { UnlistedEvidence } from '../schema-unlisted.js';
import { holdsIdentifier, idInCookieName, idsInRequests } from './generic-ids.js';
import { hostOf, shorten } from './urls.js';

/** What one third-party domain (or first-party proxy host) did in the browser stage, sign by sign. */
export interface Signs {
  /** The registrable domain of a third party, or the host of a first-party proxy. */
  domain: string;
  firstParty: boolean;
  hosts: Set<string>;
  evidence: UnlistedEvidence[];
  ids: Set<string>;
}

type Kind = UnlistedEvidence['kind'];

/** Cookies of the network in front of a site (bot management, load balancers): they say nothing about a vendor. */
const INFRASTRUCTURE_COOKIES = /^(__cf_bm|_cfuvid|cf_clearance|__cfduid|AWSALB(CORS)?|AWSALBTG(CORS)?)$/;

/** The group a host's signs are judged in; null for hosts that are not judged (the page's own, named trackers'). */
export type GroupOf = (host: string) => { key: string; firstParty: boolean } | null;
type SignsOf = (host: string | null) => Signs | null;

/** Collects the signs of every group `groupOf` gives, keyed by group. */
export function collectSigns(runtime: RuntimeFindings, groupOf: GroupOf): Map<string, Signs> {
  const signs = new Map<string, Signs>();
  const of: SignsOf = (host) => {
    const group = host ? groupOf(host) : null;
    if (!group) return null;
    const entry = signs.get(group.key) ?? {
      domain: group.key,
      firstParty: group.firstParty,
      hosts: new Set(),
      evidence: [],
      ids: new Set(),
    };
    signs.set(group.key, entry);
    return entry;
  };
  const answered = runtime.requests.filter((request) => request.status !== null && /^https?:/.test(request.url));
  const grouped = new Map<Signs, RuntimeRequest[]>();
  for (const request of answered) {
    const entry = of(hostOf(request.url));
    if (!entry) continue;
    const list = grouped.get(entry) ?? [];
    list.push(request);
    grouped.set(entry, list);
  }
  for (const [entry, requests] of grouped) requestSigns(entry, requests);
  cookieSigns(runtime.cookies, of);
  behaviourSigns(runtime, of);
  workerSigns(runtime.serviceWorkers ?? [], of);
  storageSigns(runtime.storageWrites ?? [], of);
  return signs;
}

const note = (entry: Signs | null, kind: Kind, detail: string) => entry?.evidence.push({ kind, detail });

/** Cookies its script wrote or its response set, with the token a cookie's name may carry. */
function cookieSigns(cookies: RuntimeCookie[], of: SignsOf): void {
  for (const cookie of cookies) {
    if (INFRASTRUCTURE_COOKIES.test(cookie.name)) continue;
    const writer = cookie.script ? of(hostOf(cookie.script)) : null;
    // A cookie an HTTP response set names a domain, not the host that set it: only a third party's is placed.
    const setter = cookie.setBy === 'http' && !cookie.script ? of(cookie.domain) : null;
    const entry = writer ?? (setter?.firstParty ? null : setter);
    if (!entry) continue;
    note(
      entry,
      'cookie',
      `cookie ${cookie.name} ${cookie.script ? `written by ${shorten(cookie.script, 150)}` : `set by ${cookie.domain}`}`,
    );
    const token = idInCookieName(cookie.name);
    if (token) entry.ids.add(token);
  }
}

/**
 * An identifier its script wrote to localStorage or sessionStorage. Only the writing script's host is credited (the
 * site's own scripts and inline code are never a third party's), and a preference (`theme=dark`) is no sign.
 */
function storageSigns(writes: StorageWrite[], of: SignsOf): void {
  for (const write of writes) {
    if (!write.script || !holdsIdentifier(write.value)) continue;
    const area = write.area === 'local' ? 'localStorage' : 'sessionStorage';
    note(
      of(hostOf(write.script)),
      'storage',
      `${area} ${shorten(write.key, 80)} (an identifier) written by ${shorten(write.script, 150)}`,
    );
  }
}

function behaviourSigns(runtime: RuntimeFindings, of: SignsOf): void {
  for (const behaviour of detectBehaviours(runtime)) {
    if (behaviour.type !== 'canvas_fingerprinting' && behaviour.type !== 'keystroke_capture') continue;
    const kind = behaviour.type === 'canvas_fingerprinting' ? 'fingerprinting' : 'typed_value_sent';
    note(of(behaviour.vendor_or_host), kind, behaviour.evidence[0].detail);
  }
}

function workerSigns(workers: NonNullable<RuntimeFindings['serviceWorkers']>, of: SignsOf): void {
  for (const worker of workers) {
    const by = worker.script ? ` by ${shorten(worker.script, 150)}` : '';
    const detail = `service worker ${shorten(worker.url, 150)} registered${by}`;
    const entries = new Set([of(hostOf(worker.url)), worker.script ? of(hostOf(worker.script)) : null]);
    for (const entry of entries) note(entry, 'service_worker', detail);
  }
}

/** Data sent to the host: a POST with a body, or a sendBeacon/ping. */
const isBeacon = (request: RuntimeRequest) =>
  request.resourceType === 'ping' || (request.method === 'POST' && !!request.postData);

function requestSigns(entry: Signs, requests: RuntimeRequest[]): void {
  for (const request of requests) entry.hosts.add(hostOf(request.url) ?? entry.domain);
  const script = requests.find((request) => request.resourceType === 'script');
  if (script) note(entry, 'script', `script ${shorten(script.url, 200)}`);
  for (const [id, name] of idsInRequests(requests)) {
    entry.ids.add(id);
    note(entry, 'id_parameter', `${name}=${id} in its requests`);
  }
  const beacons = requests.filter(isBeacon);
  if (beacons.length) {
    const plural = beacons.length > 1 ? 's' : '';
    note(
      entry,
      'beacon',
      `${beacons.length} request${plural} with data, e.g. ${beacons[0].method} ${shorten(beacons[0].url, 200)}`,
    );
  }
}
