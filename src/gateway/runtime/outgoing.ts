import type { OutgoingVendor } from '../../modules/outgoing-log/schemas.js';
import type { RuntimeEvent, Visitor } from './types.js';

/**
 * The outgoing log's side of the runtime: what a forward sent (a summary, secrets masked) and what became of it,
 * handed to an `OutgoingRecorder` (the outgoing-log module's writer) once the forward is delivered or given up.
 */

/** What a forward sends, described for the outgoing log. */
export interface OutgoingDescription {
  /** `ga4 G-ABC123`, `meta 1234567890123456`. */
  destination: string;
  eventName: string;
  eventId: string | null;
  /** A summary of the request: never a secret (access tokens masked), only the IP the anonymizer let through. */
  request: Record<string, unknown>;
  /** Carries an order id, a transaction id or a value: logged even when delivered forwards are sampled. */
  conversion: boolean;
}

/** One forward's outcome, as the outgoing log keeps it. */
export interface OutgoingRecord extends OutgoingDescription {
  containerId: string;
  vendor: OutgoingVendor;
  status: 'delivered' | 'failed';
  httpStatus: number | null;
  /** The vendor's message (Meta's `error.message`), or why the forward failed; null when delivered. */
  error: string | null;
  attempts: number;
  /** How long the last attempt took; null when the forward was never sent. */
  latencyMs: number | null;
  at: Date;
}

/** Takes outcomes off the hit path: buffers them and writes them in batches; never throws, never waits. */
export interface OutgoingRecorder {
  record(record: OutgoingRecord): void;
}

/** GA4's event parameters shown in the summary: enough to recognise a conversion, nothing personal. */
const GA4_SUMMARY_PARAMS = ['value', 'currency', 'transaction_id', 'event_id', 'coupon', 'payment_type'];
const MAX_SUMMARY_TEXT = 300;

const clip = (value: string) => (value.length > MAX_SUMMARY_TEXT ? `${value.slice(0, MAX_SUMMARY_TEXT)}…` : value);

/**
 * The GA4 hit as forwarded, summarised: ids, event, a few parameters, the IP sent. Read from the event and visitor
 * the hit was built from (after the anonymizer), which say what `forwardedHit` sent without parsing it again.
 */
export function ga4Outgoing(event: RuntimeEvent, visitor: Visitor): OutgoingDescription {
  const measurementId = event.measurementId ?? '';
  const shown: Record<string, string> = {};
  let summarised = false;
  for (const name of GA4_SUMMARY_PARAMS) {
    const value = event.params[name];
    if (value === undefined) continue;
    shown[name] = clip(String(value));
    summarised = true;
  }
  const request: Record<string, unknown> = {
    measurement_id: measurementId,
    cid: event.clientId,
    event_name: event.name,
  };
  if (event.pageUrl) request.page_location = clip(event.pageUrl);
  if (event.currency) request.currency = event.currency;
  if (summarised) request.params = shown;
  if (event.items.length > 0) request.items = event.items.length;
  if (visitor.ip) request.ip = visitor.ip;
  const conversion = event.eventId !== null || event.value !== null || 'transaction_id' in shown;
  return { destination: `ga4 ${measurementId}`, eventName: event.name, eventId: event.eventId, request, conversion };
}

/** `EAABsbCS1iHgBA…` → `EAAB…(masked)`: enough to tell tokens apart, never one that works. */
export function maskToken(token: string): string {
  return `${token.slice(0, 4)}…(masked)`;
}
