/**
 * The shapes shared by the built-in runtime's parts: what a collection endpoint (GA4 `/g/collect`, the direct JSON
 * endpoint) turns a browser's hit into, who sent it, and what the vendors' forwarders (GA4, Meta Conversions API)
 * and the power-ups (bot detection, geo, cookie keeper, click ids, anonymizer) read and change.
 */

/** One tracking event, whatever the browser sent it through. */
export interface RuntimeEvent {
  /** The GA4 event name: `page_view`, `purchase`, `add_to_cart`, … */
  name: string;
  /** The GA4 measurement id (`G-…`) the hit was sent for; null for the direct JSON endpoint. */
  measurementId: string | null;
  /** The GA4 client id (`cid`, from the `_ga` cookie or the server-set FPID). */
  clientId: string | null;
  /** The id shared with the browser pixel for deduplication (GA4 event parameter `event_id`). */
  eventId: string | null;
  /** When the event happened, in milliseconds since the epoch. */
  time: number;
  pageUrl: string | null;
  referrer: string | null;
  pageTitle: string | null;
  value: number | null;
  currency: string | null;
  /** The other event parameters: `ep.*` as strings, `epn.*` as numbers, without the prefix. */
  params: Record<string, string | number>;
  /** Products (`pr1`, `pr2`, … in GA4's hit format), each as its parsed fields (`id`, `nm`, `pr`, `qt`, …). */
  items: Array<Record<string, string | number>>;
  /** Customer data the site chose to send; `{}` when none (or when a vendor may not receive it). */
  userData: UserData;
}

/**
 * Customer data (GA4's user-provided data, the direct endpoint's `user_data`). Each value is either as the site sent
 * it, in clear, or already a SHA-256 in hex (64 hex digits); vendors normalise and hash clear values as they require.
 */
export interface UserData {
  email?: string;
  /** With the country code (E.164). */
  phone?: string;
  firstName?: string;
  lastName?: string;
  city?: string;
  /** State, province or region. */
  region?: string;
  postalCode?: string;
  /** ISO 3166-1 alpha-2. */
  country?: string;
  /** The site's own id of the customer (GA4's `user_id`). */
  externalId?: string;
}

/** The visitor behind a hit, as the gateway saw the request. */
export interface Visitor {
  /** The visitor's IP address (the client address, or the proxy-reported one when the proxy is trusted). */
  ip: string;
  userAgent: string;
  /** The request's cookies by name. */
  cookies: Record<string, string>;
  /** ISO 3166-1 alpha-2 country from the IP database, when known. */
  country: string | null;
  /** Region (subdivision) when the IP database has it. */
  region: string | null;
  city: string | null;
  /** Whether bot detection flagged the request. */
  bot: boolean;
  /** Bot detection's score (0–100, above 75 a bot); null when bot detection is off. */
  botScore: number | null;
}
