import type { SendResult } from './forward-queue.js';
import type { OutgoingDescription } from './outgoing.js';
import { isUserDataParam, userDataOf } from './ga4-user-data.js';
import type { Http1Response } from './http1-responses.js';
import type { PipelinedSender } from './pipelined-sender.js';
import type { RuntimeEvent, Visitor } from './types.js';

/**
 * GA4's browser collection protocol (`/g/collect?v=2&tid=G-…&cid=…&en=page_view&…`), as gtag.js and GTM send it
 * to `server_container_url`/`transport_url`. A POST body may batch events, one per line, each line's
 * parameters overriding the URL's (which carry what the events share: tid, cid, dl, …).
 */

/** One hit as it will be forwarded: its parameters in order, and the event read from them. */
export interface Ga4Hit {
  params: URLSearchParams;
  event: RuntimeEvent;
}

/** Body lines kept per request at most (gtag batches a few dozen). */
const MAX_EVENTS_PER_REQUEST = 50;

/** The hits of one `/g/collect` request; empty when it names no measurement id or event. */
export function parseCollect(query: string, body: string, now = Date.now()): Ga4Hit[] {
  const shared = new URLSearchParams(query);
  const lines = body
    ? body
        .split(/\r?\n/)
        .filter((line) => line.trim() !== '')
        .slice(0, MAX_EVENTS_PER_REQUEST)
    : [];
  if (lines.length === 0) {
    // One event, all in the URL (a GET hit, or a POST without body): its parameters are the URL's, uncopied.
    const event = eventOf(shared, now);
    return event ? [{ params: shared, event }] : [];
  }
  const hits: Ga4Hit[] = [];
  for (const line of lines) {
    const params = new URLSearchParams(shared);
    for (const [key, value] of new URLSearchParams(line)) params.set(key, value);
    const event = eventOf(params, now);
    if (event) hits.push({ params, event });
  }
  return hits;
}

function eventOf(params: URLSearchParams, now: number): RuntimeEvent | null {
  const name = params.get('en');
  const measurementId = params.get('tid');
  if (!name || !measurementId) return null;
  const eventParams: Record<string, string | number> = {};
  for (const [key, value] of params) {
    if (key.startsWith('ep.')) eventParams[key.slice(3)] = value;
    else if (key.startsWith('epn.')) {
      const number = Number(value);
      if (Number.isFinite(number)) eventParams[key.slice(4)] = number;
    }
  }
  const value = Number(eventParams.value);
  return {
    name,
    measurementId,
    clientId: params.get('cid'),
    eventId: stringOrNull(eventParams.event_id),
    time: now,
    pageUrl: params.get('dl'),
    referrer: params.get('dr'),
    pageTitle: params.get('dt'),
    value: eventParams.value !== undefined && Number.isFinite(value) ? value : null,
    currency: params.get('cu') ?? stringOrNull(eventParams.currency),
    params: eventParams,
    items: itemsOf(params),
    userData: userDataOf(params),
  };
}

function stringOrNull(value: string | number | undefined): string | null {
  return value === undefined ? null : String(value);
}

/** `pr1=idSKU1~nmShirt~pr19.99~qt2` → `{id: 'SKU1', nm: 'Shirt', pr: 19.99, qt: 2}`. */
function itemsOf(params: URLSearchParams): Array<Record<string, string | number>> {
  const items: Array<Record<string, string | number>> = [];
  for (let index = 1; index <= 200; index++) {
    const raw = params.get(`pr${index}`);
    if (raw === null) break;
    const item: Record<string, string | number> = {};
    for (const field of raw.split('~')) {
      const key = field.slice(0, 2);
      const value = field.slice(2);
      item[key] =
        (key === 'pr' || key === 'qt') && value !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
    }
    items.push(item);
  }
  return items;
}

/**
 * The forwarded hit, as server-side GTM's GA4 tag sends it: the browser's parameters with the client id the
 * server keeps (FPID) and the visitor's IP in `_uip`; the visitor's user agent as the request's User-Agent.
 * Google then geolocates and classifies the device from the visitor, not from the gateway.
 */
export function forwardedHit(
  hit: Ga4Hit,
  visitor: Visitor,
  clientId: string | null,
  event: RuntimeEvent = hit.event,
): URLSearchParams {
  const params = new URLSearchParams(hit.params);
  if (clientId) params.set('cid', clientId);
  if (visitor.ip) params.set('_uip', visitor.ip);
  else params.delete('_uip');
  // What the anonymizer took out of the event (click ids in the page URL, referrer and parameters; the customer
  // data) goes here too.
  if (event.pageUrl !== hit.event.pageUrl) setOrDelete(params, 'dl', event.pageUrl);
  if (event.referrer !== hit.event.referrer) setOrDelete(params, 'dr', event.referrer);
  for (const name of Object.keys(hit.event.params)) {
    if (name in event.params) continue;
    params.delete(`ep.${name}`);
    params.delete(`epn.${name}`);
  }
  if (isEmpty(event.userData) && !isEmpty(hit.event.userData)) {
    for (const key of [...params.keys()]) if (isUserDataParam(key)) params.delete(key);
  }
  return params;
}

function isEmpty(userData: RuntimeEvent['userData']): boolean {
  return Object.keys(userData).length === 0;
}

function setOrDelete(params: URLSearchParams, name: string, value: string | null): void {
  if (value === null) params.delete(name);
  else params.set(name, value);
}

/** What an HTTP header value may not carry (Node never parses a visitor's header with these, but a value is re-sent). */
const NOT_IN_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/g;

/**
 * One hit forwarded to GA4's collection endpoint, a job of the forward queue's callback lane (no promise per hit):
 * 2xx delivered, 429/5xx/network errors retried, other 4xx rejected.
 */
export class Ga4Forward {
  readonly vendor = 'ga4';
  private readonly headers: Record<string, string>;

  constructor(
    readonly containerId: string,
    private readonly sender: PipelinedSender,
    private readonly params: URLSearchParams,
    userAgent: string,
    /** What is sent, for the outgoing log. */
    readonly outgoing: OutgoingDescription,
  ) {
    this.headers = { 'user-agent': userAgent.replace(NOT_IN_HEADER_VALUE, '') || 'Tagport-Gateway/1.0' };
  }

  post(done: (result: SendResult) => void): void {
    this.sender.submit('POST', `/g/collect?${this.params}`, this.headers, (outcome) => done(resultOf(outcome)));
  }
}

function resultOf(outcome: Http1Response | Error): SendResult {
  if (outcome instanceof Error) return { outcome: 'retry', reason: outcome.message };
  const status = outcome.status;
  if (status < 300) return { outcome: 'delivered', httpStatus: status };
  if (status === 429 || status >= 500) {
    const retryAfter = Number(outcome.retryAfter ?? Number.NaN);
    return {
      outcome: 'retry',
      reason: `GA4 answered ${status}`,
      httpStatus: status,
      ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { afterMs: retryAfter * 1000 } : {}),
    };
  }
  return { outcome: 'rejected', reason: `GA4 answered ${status}`, httpStatus: status };
}
