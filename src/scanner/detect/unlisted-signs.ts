import { detectBehaviours } from '../behaviours.js';
import type { RuntimeCookie, RuntimeFindings, RuntimeRequest } from '../capture-types.js';
import type { UnlistedEvidence } from '../schema-unlisted.js';
import { idInCookieName, idsInRequests } from './generic-ids.js';
import { registrableDomain, registrableDomainOfUrl } from './registrable-domain.js';
import { hostOf, shorten } from './urls.js';

/** What one third-party domain did in the browser stage, sign by sign (detect/unlisted.ts judges it). */
export interface Signs {
  domain: string;
  hosts: Set<string>;
  evidence: UnlistedEvidence[];
  ids: Set<string>;
}

type Kind = UnlistedEvidence['kind'];

/** Cookies of the network in front of a site (bot management, load balancers): they say nothing about a vendor. */
const INFRASTRUCTURE_COOKIES = /^(__cf_bm|_cfuvid|cf_clearance|__cfduid|AWSALB(CORS)?|AWSALBTG(CORS)?)$/;

type SignsOf = (domain: string | null) => Signs | null;

/** Collects the signs of every domain `tracked` accepts (third parties no rule names), keyed by domain. */
export function collectSigns(runtime: RuntimeFindings, tracked: (domain: string) => boolean): Map<string, Signs> {
  const signs = new Map<string, Signs>();
  const of: SignsOf = (domain) => {
    if (!domain || !tracked(domain)) return null;
    const entry = signs.get(domain) ?? { domain, hosts: new Set(), evidence: [], ids: new Set() };
    signs.set(domain, entry);
    return entry;
  };
  const answered = runtime.requests.filter((request) => request.status !== null && /^https?:/.test(request.url));
  for (const [domain, requests] of byDomain(answered)) {
    const entry = of(domain);
    if (entry) requestSigns(entry, requests);
  }
  cookieSigns(runtime.cookies, of);
  behaviourSigns(runtime, of);
  workerSigns(runtime.serviceWorkers ?? [], of);
  return signs;
}

const note = (entry: Signs | null, kind: Kind, detail: string) => entry?.evidence.push({ kind, detail });

/** Cookies its script wrote or its response set, with the token a cookie's name may carry. */
function cookieSigns(cookies: RuntimeCookie[], of: SignsOf): void {
  for (const cookie of cookies) {
    if (INFRASTRUCTURE_COOKIES.test(cookie.name)) continue;
    const entry = cookie.script
      ? of(registrableDomainOfUrl(cookie.script))
      : cookie.setBy === 'http'
        ? of(registrableDomain(cookie.domain))
        : null;
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

function behaviourSigns(runtime: RuntimeFindings, of: SignsOf): void {
  for (const behaviour of detectBehaviours(runtime)) {
    if (behaviour.type !== 'canvas_fingerprinting' && behaviour.type !== 'keystroke_capture') continue;
    const kind = behaviour.type === 'canvas_fingerprinting' ? 'fingerprinting' : 'typed_value_sent';
    note(of(registrableDomain(behaviour.vendor_or_host)), kind, behaviour.evidence[0].detail);
  }
}

function workerSigns(workers: NonNullable<RuntimeFindings['serviceWorkers']>, of: SignsOf): void {
  for (const worker of workers) {
    const by = worker.script ? ` by ${shorten(worker.script, 150)}` : '';
    const detail = `service worker ${shorten(worker.url, 150)} registered${by}`;
    for (const domain of new Set([registrableDomainOfUrl(worker.url), registrableDomainOfUrl(worker.script)]))
      note(of(domain), 'service_worker', detail);
  }
}

function byDomain(requests: RuntimeRequest[]): Map<string, RuntimeRequest[]> {
  const groups = new Map<string, RuntimeRequest[]>();
  for (const request of requests) {
    const domain = registrableDomainOfUrl(request.url);
    if (!domain) continue;
    const group = groups.get(domain) ?? [];
    group.push(request);
    groups.set(domain, group);
  }
  return groups;
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
