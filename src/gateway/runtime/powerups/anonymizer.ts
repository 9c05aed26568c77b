import net from 'node:net';
import type { RuntimeEvent, Visitor } from '../types.js';
import { CLICK_ID_COOKIES, CLICK_ID_NAMES } from './click-ids.js';

/** What one vendor may receive (the container's `anonymizer.<vendor>` setting). */
export interface AnonymizerRules {
  ip: 'keep' | 'truncate' | 'drop';
  user_agent: 'keep' | 'drop';
  click_ids: 'keep' | 'drop';
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

function withoutClickParams(url: string | null): string | null {
  if (!url) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const present = [...parsed.searchParams.keys()].filter((key) => CLICK_ID_PARAMS.has(key));
  if (present.length === 0) return url;
  for (const key of present) parsed.searchParams.delete(key);
  return parsed.toString();
}

/**
 * Anonymizer: a copy of the event and visitor with what one vendor must not receive removed: the IP dropped (empty)
 * or truncated, the user agent dropped (empty), click ids dropped from the page URL, referrer, event parameters and
 * cookies. The inputs are never changed, so each vendor's rules apply to the same original.
 */
export function anonymize(
  event: RuntimeEvent,
  visitor: Visitor,
  rules: AnonymizerRules,
): { event: RuntimeEvent; visitor: Visitor } {
  const ip = rules.ip === 'drop' ? '' : rules.ip === 'truncate' ? truncateIp(visitor.ip) : visitor.ip;
  const userAgent = rules.user_agent === 'drop' ? '' : visitor.userAgent;
  if (rules.click_ids === 'keep') {
    return { event: structuredClone(event), visitor: { ...visitor, cookies: { ...visitor.cookies }, ip, userAgent } };
  }
  const cookies = Object.fromEntries(
    Object.entries(visitor.cookies).filter(([name]) => !CLICK_ID_COOKIE_NAMES.has(name)),
  );
  const params = Object.fromEntries(Object.entries(event.params).filter(([key]) => !CLICK_ID_PARAMS.has(key)));
  return {
    event: {
      ...structuredClone(event),
      pageUrl: withoutClickParams(event.pageUrl),
      referrer: withoutClickParams(event.referrer),
      params,
    },
    visitor: { ...visitor, cookies, ip, userAgent },
  };
}
