import net from 'node:net';
import type { RuntimeEvent, Visitor } from '../types.js';
import { CLICK_ID_COOKIES, CLICK_ID_NAMES } from './click-ids.js';
import { containsEmailAddress, isPersonalDataName, isUserIdName } from './personal-data.js';

/** What one vendor may receive (the container's `anonymizer.<vendor>` setting). */
export interface AnonymizerRules {
  ip: 'keep' | 'truncate' | 'drop';
  user_agent: 'keep' | 'drop';
  click_ids: 'keep' | 'drop';
  /** The site's user id (GA4's `uid`, `user_id` parameters); keep when absent (rules saved before it existed). */
  user_id?: 'keep' | 'drop';
  /** E-mail, phone, name and address parameters and the event's customer data; keep when absent. */
  user_data?: 'keep' | 'drop';
}

// Google's cookies holding click ids (conversion linker), besides the restorer's own.
const CLICK_ID_COOKIE_NAMES = new Set<string>([...Object.values(CLICK_ID_COOKIES), '_gcl_aw', '_gcl_gb', '_gcl_dc']);
const CLICK_ID_PARAMS = new Set<string>([...CLICK_ID_NAMES, 'dclid']);

/** IPv4 without its last octet (`203.0.113.7` → `203.0.113.0`); IPv6 without its last 80 bits (the first 48 kept). */
export function truncateIp(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const address = mapped ? mapped[1] : ip;
  const family = net.isIP(address);
  if (family === 4) return address.replace(/\.\d+$/, '.0');
  if (family !== 6) return '';
  const kept = expandIpv6(address).slice(0, 3);
  // The URL parser writes IPv6 in its canonical (RFC 5952) form.
  return new URL(`http://[${[...kept, 0, 0, 0, 0, 0].join(':')}]`).hostname.slice(1, -1);
}

function expandIpv6(address: string): string[] {
  const [head, tail = ''] = address.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = address.includes('::') && tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  return [...headGroups, ...Array<string>(Math.max(missing, 0)).fill('0'), ...tailGroups].map((group) =>
    (Number.parseInt(group, 16) || 0).toString(16),
  );
}

/** Whether a parameter (event parameter or page URL query parameter) must not reach the vendor. */
type Dropped = (name: string, value: string | number) => boolean;

/** Whether the rules drop any parameter; when not, URLs, parameters and cookies pass as they are. */
const dropsParams = (rules: AnonymizerRules) =>
  rules.click_ids === 'drop' || rules.user_id === 'drop' || rules.user_data === 'drop';

function droppedBy(rules: AnonymizerRules): Dropped {
  const clickIds = rules.click_ids === 'drop';
  const userId = rules.user_id === 'drop';
  const userData = rules.user_data === 'drop';
  return (name, value) =>
    (clickIds && CLICK_ID_PARAMS.has(name)) ||
    (userId && isUserIdName(name)) ||
    (userData && (isPersonalDataName(name) || containsEmailAddress(value)));
}

function withoutQueryParams(url: string | null, dropped: Dropped): string | null {
  if (!url) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const present = [...parsed.searchParams].filter(([key, value]) => dropped(key, value));
  if (present.length === 0) return url;
  for (const [key] of present) parsed.searchParams.delete(key);
  return parsed.toString();
}

/** The customer data's field holding the site's user id (GA4's `uid`, Meta's `external_id`). */
const USER_ID_FIELD: keyof RuntimeEvent['userData'] = 'externalId';

function anonymizedUserData(userData: RuntimeEvent['userData'], rules: AnonymizerRules): RuntimeEvent['userData'] {
  if (rules.user_data === 'drop') return {};
  if (rules.user_id !== 'drop') return { ...userData };
  return Object.fromEntries(Object.entries(userData).filter(([field]) => field !== USER_ID_FIELD));
}

/**
 * Anonymizer: a copy of the event and visitor with what one vendor must not receive removed: the IP dropped (empty)
 * or truncated, the user agent dropped (empty), click ids dropped from the page URL, referrer, event parameters and
 * cookies, the site's user id dropped from the event parameters and customer data, and personal data (e-mail, phone, name, address
 * parameters, values holding an e-mail address, the customer data in `userData`) dropped from the event, page URL
 * and referrer. The inputs are never changed, so each vendor's rules apply to the same original; with rules that keep
 * everything, they are returned as they are.
 */
export function anonymize(
  event: RuntimeEvent,
  visitor: Visitor,
  rules: AnonymizerRules,
): { event: RuntimeEvent; visitor: Visitor } {
  // Nothing to take out: the same objects (every vendor only reads them), no copy on the hit path.
  if (!dropsParams(rules) && rules.ip === 'keep' && rules.user_agent === 'keep') return { event, visitor };
  const ip = rules.ip === 'drop' ? '' : rules.ip === 'truncate' ? truncateIp(visitor.ip) : visitor.ip;
  const userAgent = rules.user_agent === 'drop' ? '' : visitor.userAgent;
  const userData = anonymizedUserData(event.userData, rules);
  if (!dropsParams(rules))
    return {
      event: { ...event, params: { ...event.params }, items: event.items.map((item) => ({ ...item })), userData },
      visitor: { ...visitor, cookies: { ...visitor.cookies }, ip, userAgent },
    };
  const cookies = Object.fromEntries(
    Object.entries(visitor.cookies).filter(([name]) => rules.click_ids === 'keep' || !CLICK_ID_COOKIE_NAMES.has(name)),
  );
  const dropped = droppedBy(rules);
  // Copied a level deep by hand: structuredClone of every event, once per vendor, was a measurable share of a hit.
  return {
    event: {
      ...event,
      pageUrl: withoutQueryParams(event.pageUrl, dropped),
      referrer: withoutQueryParams(event.referrer, dropped),
      params: Object.fromEntries(Object.entries(event.params).filter(([key, value]) => !dropped(key, value))),
      items: event.items.map((item) => ({ ...item })),
      userData,
    },
    visitor: { ...visitor, cookies, ip, userAgent },
  };
}

const GA4_PARAM_PREFIX = /^(ep|epn|up|upn)\./;

/**
 * The GA4 hit's own parameters the vendor's rules drop, beyond the event's: `uid` (GA4's User-ID) and user
 * properties naming the user id when `user_id` is dropped; `em` (Google's user-provided data) and personal user
 * properties when `user_data` is (and whatever `anonymize` drops, also under the `ep.`/`up.` prefixes). Changes
 * and returns `params`: the forwarded hit, built from the anonymized event.
 */
export function anonymizeGa4Params(params: URLSearchParams, rules: AnonymizerRules): URLSearchParams {
  if (!dropsParams(rules)) return params;
  const dropped = droppedBy(rules);
  const removed = [...params].filter(([key, value]) => {
    if (rules.user_id === 'drop' && key === 'uid') return true;
    if (rules.user_data === 'drop' && key === 'em') return true;
    return GA4_PARAM_PREFIX.test(key) && dropped(key.replace(GA4_PARAM_PREFIX, ''), value);
  });
  for (const [key] of removed) params.delete(key);
  return params;
}
