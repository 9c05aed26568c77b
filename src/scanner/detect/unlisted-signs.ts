import { detectBehaviours } from '../behaviours.js';
import type { RuntimeFindings, RuntimeRequest } from '../capture-types.js';
import type { UnlistedEvidence } from '../schema-unlisted.js';
import { idsInRequests } from './generic-ids.js';
import { registrableDomain } from './registrable-domain.js';
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

const domainOfUrl = (url: string | null) => {
  const host = url ? hostOf(url) : null;
  return host ? registrableDomain(host) : null;
};

/** Collects the signs of every domain `tracked` accepts (third parties no rule names), keyed by domain. */
export function collectSigns(runtime: RuntimeFindings, tracked: (domain: string) => boolean): Map<string, Signs> {
  const signs = new Map<string, Signs>();
  const of = (domain: string | null): Signs | null => {
    if (!domain || !tracked(domain)) return null;
    let entry = signs.get(domain);
    if (!entry) {
      entry = { domain, hosts: new Set(), evidence: [], ids: new Set() };
      signs.set(domain, entry);
    }
    return entry;
  };
  const add = (domain: string | null, kind: Kind, detail: string) => of(domain)?.evidence.push({ kind, detail });
  const answered = runtime.requests.filter((request) => request.status !== null && /^https?:/.test(request.url));
  for (const [domain, requests] of byDomain(answered)) {
    const entry = of(domain);
    if (!entry) continue;
    for (const request of requests) entry.hosts.add(hostOf(request.url) ?? domain);
    requestSigns(requests, (kind, detail) => entry.evidence.push({ kind, detail }), entry.ids);
  }
  for (const cookie of runtime.cookies) {
    if (INFRASTRUCTURE_COOKIES.test(cookie.name)) continue;
    if (cookie.script)
      add(domainOfUrl(cookie.script), 'cookie', `cookie ${cookie.name} written by ${shorten(cookie.script, 150)}`);
    else if (cookie.setBy === 'http')
      add(registrableDomain(cookie.domain), 'cookie', `cookie ${cookie.name} set by ${cookie.domain}`);
  }
  for (const behaviour of detectBehaviours(runtime)) {
    const kind = behaviour.type === 'canvas_fingerprinting' ? 'fingerprinting' : 'typed_value_sent';
    if (behaviour.type !== 'canvas_fingerprinting' && behaviour.type !== 'keystroke_capture') continue;
    add(registrableDomain(behaviour.vendor_or_host), kind, behaviour.evidence[0].detail);
  }
  for (const worker of runtime.serviceWorkers ?? []) {
    const detail = `service worker ${shorten(worker.url, 150)} registered${worker.script ? ` by ${shorten(worker.script, 150)}` : ''}`;
    const domains = new Set([domainOfUrl(worker.url), domainOfUrl(worker.script)]);
    for (const domain of domains) add(domain, 'service_worker', detail);
  }
  return signs;
}

function byDomain(requests: RuntimeRequest[]): Map<string, RuntimeRequest[]> {
  const groups = new Map<string, RuntimeRequest[]>();
  for (const request of requests) {
    const domain = domainOfUrl(request.url);
    if (domain) groups.set(domain, [...(groups.get(domain) ?? []), request]);
  }
  return groups;
}

/** Data sent to the host: a POST with a body, or a sendBeacon/ping. */
const isBeacon = (request: RuntimeRequest) =>
  request.resourceType === 'ping' || (request.method === 'POST' && !!request.postData);

function requestSigns(requests: RuntimeRequest[], add: (kind: Kind, detail: string) => void, ids: Set<string>) {
  const script = requests.find((request) => request.resourceType === 'script');
  if (script) add('script', `script ${shorten(script.url, 200)}`);
  for (const [id, name] of idsInRequests(requests)) {
    ids.add(id);
    add('id_parameter', `${name}=${id} in its requests`);
  }
  const beacons = requests.filter(isBeacon);
  if (beacons.length)
    add(
      'beacon',
      `${beacons.length} request${beacons.length > 1 ? 's' : ''} with data, e.g. ${beacons[0].method} ${shorten(beacons[0].url, 200)}`,
    );
}
