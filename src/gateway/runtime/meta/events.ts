import { createHash } from 'node:crypto';
import type { RuntimeEvent, Visitor } from '../types.js';
import { fbcFromFbclid, fbclidOf, type HashedCustomerInformation, hashedCustomerInformation } from './user-data.js';

/** GA4 event names and the Meta standard event each is sent as. */
export const META_EVENT_NAMES: Readonly<Record<string, string>> = {
  page_view: 'PageView',
  purchase: 'Purchase',
  add_to_cart: 'AddToCart',
  begin_checkout: 'InitiateCheckout',
  generate_lead: 'Lead',
  view_item: 'ViewContent',
  add_payment_info: 'AddPaymentInfo',
  add_to_wishlist: 'AddToWishlist',
  sign_up: 'CompleteRegistration',
  search: 'Search',
};

/** Meta's standard events: a direct event may name one of these instead of a GA4 event. */
const META_STANDARD_EVENTS = new Set([
  ...Object.values(META_EVENT_NAMES),
  'Contact',
  'CustomizeProduct',
  'Donate',
  'FindLocation',
  'Schedule',
  'StartTrial',
  'SubmitApplication',
  'Subscribe',
]);

/**
 * Customer information parameters (Meta's `user_data`): the visitor's IP, user agent and Meta cookies in clear, the
 * customer data (em, ph, fn, ln, ct, st, zp, country, external_id) as SHA-256 of the normalised values.
 */
export interface MetaUserData extends HashedCustomerInformation {
  client_ip_address?: string;
  client_user_agent?: string;
  fbp?: string;
  fbc?: string;
}

export interface MetaContent {
  id: string;
  quantity?: number;
  item_price?: number;
}

export interface MetaCustomData {
  value?: number;
  currency?: string;
  contents?: MetaContent[];
  content_ids?: string[];
  content_type?: 'product';
  num_items?: number;
  order_id?: string;
}

/** One server event in the Conversions API's format (the elements of `data`). */
export interface MetaServerEvent {
  event_name: string;
  /** Unix time in seconds. */
  event_time: number;
  event_id: string;
  action_source: 'website';
  event_source_url?: string;
  referrer_url?: string;
  user_data: MetaUserData;
  custom_data?: MetaCustomData;
}

/** The Meta event name for a runtime event's name: GA4 names through the table, Meta standard names as they are. */
export function metaEventName(name: string): string | null {
  return META_EVENT_NAMES[name] ?? (META_STANDARD_EVENTS.has(name) ? name : null);
}

/**
 * The id Meta deduplicates on: the event's own `event_id` (shared with the browser pixel) or, without one, an id
 * derived from the event, so mapping the same event again (a retry) gives the same id.
 */
function eventIdOf(event: RuntimeEvent): string {
  if (event.eventId) return event.eventId;
  const digest = createHash('sha256')
    .update([event.name, event.time, event.clientId ?? '', event.pageUrl ?? ''].join('\n'))
    .digest('base64url');
  return `tp.${digest.slice(0, 22)}`;
}

function userDataOf(event: RuntimeEvent, visitor: Visitor): MetaUserData {
  const fbclid = fbclidOf(event.pageUrl);
  const fbc = visitor.cookies._fbc || (fbclid ? fbcFromFbclid(fbclid, event.time) : undefined);
  return {
    ...(visitor.ip ? { client_ip_address: visitor.ip } : {}),
    ...(visitor.userAgent ? { client_user_agent: visitor.userAgent } : {}),
    ...(visitor.cookies._fbp ? { fbp: visitor.cookies._fbp } : {}),
    ...(fbc ? { fbc } : {}),
    ...hashedCustomerInformation(event.userData, visitor.country),
  };
}

const numberOf = (value: string | number | undefined): number | undefined => {
  const parsed = typeof value === 'number' ? value : value === undefined ? Number.NaN : Number(value);
  return Number.isFinite(parsed) ? parsed : undefined;
};

function contentsOf(event: RuntimeEvent): MetaContent[] {
  return event.items.flatMap((item) => {
    const id = item.id ?? item.nm;
    if (id === undefined || id === '') return [];
    const quantity = numberOf(item.qt);
    const price = numberOf(item.pr);
    return [
      {
        id: String(id),
        ...(quantity !== undefined ? { quantity } : {}),
        ...(price !== undefined ? { item_price: price } : {}),
      },
    ];
  });
}

function customDataOf(event: RuntimeEvent): MetaCustomData | undefined {
  const contents = contentsOf(event);
  const orderId = event.params.transaction_id;
  const custom: MetaCustomData = {
    ...(event.value !== null ? { value: event.value } : {}),
    ...(event.currency ? { currency: event.currency.toUpperCase() } : {}),
    ...(contents.length > 0
      ? {
          contents,
          content_ids: contents.map((content) => content.id),
          content_type: 'product' as const,
          num_items: contents.reduce((sum, content) => sum + (content.quantity ?? 1), 0),
        }
      : {}),
    ...(orderId !== undefined && orderId !== '' ? { order_id: String(orderId) } : {}),
  };
  return Object.keys(custom).length > 0 ? custom : undefined;
}

/**
 * A runtime event as a Conversions API server event: the mapped name, `event_time` in seconds, the dedup
 * `event_id`, `action_source: "website"`, the page URL, the visitor's IP, user agent, `_fbp` and `_fbc` (or an `fbc`
 * built from an `fbclid` on the page URL), the hashed customer data, value, currency and products. Null for an event
 * Meta has no counterpart for (scroll, user_engagement, …): it is not sent.
 */
export function toMetaEvent(event: RuntimeEvent, visitor: Visitor): MetaServerEvent | null {
  const eventName = metaEventName(event.name);
  if (!eventName) return null;
  const customData = customDataOf(event);
  return {
    event_name: eventName,
    event_time: Math.floor(event.time / 1000),
    event_id: eventIdOf(event),
    action_source: 'website',
    ...(event.pageUrl ? { event_source_url: event.pageUrl } : {}),
    ...(event.referrer ? { referrer_url: event.referrer } : {}),
    user_data: userDataOf(event, visitor),
    ...(customData ? { custom_data: customData } : {}),
  };
}
