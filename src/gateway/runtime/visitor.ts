import { createHash, randomInt } from 'node:crypto';
import proxyAddr from '@fastify/proxy-addr';
import { peerAddress } from '../client.js';
import type { Visitor } from './types.js';
import type { RequestHead } from '../http1/request-head.js';

/** Which peers may name the client with X-Forwarded-For (TRUST_PROXY, compiled as Fastify does); none when null. */
export type TrustedProxies = ((address: string, hop: number) => boolean) | null;

/** TRUST_PROXY's list compiled with the same library the API's Fastify uses for it. */
export function trustedProxies(trustProxy: false | string[]): TrustedProxies {
  return trustProxy ? proxyAddr.compile(trustProxy) : null;
}

/** The client's address: the connecting peer, or the address X-Forwarded-For names when the peer is a trusted proxy. */
export function clientAddress(req: RequestHead, trust: TrustedProxies): string {
  const peer = peerAddress(req);
  // proxy-addr reads the peer from the socket: behind nginx, the peer is nginx's client.
  const address = trust ? proxyAddr({ headers: req.headers, socket: { remoteAddress: peer } } as never, trust) : peer;
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/** The visitor behind a request: its address (see clientAddress), user agent and cookies. */
export function visitorOf(req: RequestHead, trust: TrustedProxies = null): Visitor {
  const address = clientAddress(req, trust);
  return {
    ip: address,
    userAgent: String(req.headers['user-agent'] ?? '').slice(0, 1000),
    cookies: parseCookies(req.headers.cookie),
    country: null,
    region: null,
    city: null,
    bot: false,
    botScore: null,
  };
}

/** `a=1; b=2` → `{a: '1', b: '2'}`; the first of duplicate names wins, as browsers send the most specific first. */
export function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  if (!header) return cookies;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const name = pair.slice(0, at).trim();
    if (name in cookies) continue;
    let value = pair.slice(at + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      cookies[name] = decodeURIComponent(value);
    } catch {
      cookies[name] = value;
    }
  }
  return cookies;
}

export const FPID_COOKIE = 'FPID';
/** 400 days: the longest lifetime browsers accept for a cookie (RFC 6265bis). */
const FPID_MAX_AGE_S = 400 * 86_400;
const CLIENT_ID = /^\d{1,20}\.\d{1,20}$/;
/**
 * The FPID Google's tagging server sets (server-managed client id), as the request carries it once URL-decoded:
 * `FPID2.<domain level>.<base64 id>.<seconds since the epoch when it was set>`, the timestamp part optional.
 */
const GOOGLE_FPID = /^FPID2\.\d{1,2}\.([A-Za-z0-9+/_-]{16,128}={0,2})(?:\.(\d{1,20}))?$/;
/** GA's own client ids are `<random 31-bit number>.<seconds>`; derived ones use the same range for the first part. */
const RANDOM_PART_MIN = 1_000_000_000;
const RANDOM_PART_SPAN = 2_147_483_647 - RANDOM_PART_MIN;
/** Without a timestamp in the cookie, the second part is a past one (2001–2023) picked by the digest. */
const SECONDS_MIN = 1_000_000_000;
const SECONDS_SPAN = 700_000_000;

/**
 * The GA client id (`<digits>.<digits>`) for an FPID cookie in Google's format, or null when the value is not one.
 * Google documents no derivation, so it is ours, deterministic: a number from the SHA-256 of the id part, then the
 * cookie's timestamp (or, without one, a past timestamp picked by the digest). The same cookie gives the same id on
 * every hit and every gateway.
 */
export function clientIdFromGoogleFpid(value: string): string | null {
  const match = GOOGLE_FPID.exec(value);
  if (!match) return null;
  const [, id, setAt] = match;
  const digest = createHash('sha256').update(id).digest();
  const random = RANDOM_PART_MIN + (digest.readUInt32BE(0) % RANDOM_PART_SPAN);
  return `${random}.${setAt ?? SECONDS_MIN + (digest.readUInt32BE(4) % SECONDS_SPAN)}`;
}

/** The client id in the visitor's FPID cookie, ours (`<digits>.<digits>`) or Google's; null when absent or malformed. */
function fpidClientId(visitor: Visitor): string | null {
  const kept = visitor.cookies[FPID_COOKIE];
  if (!kept) return null;
  return CLIENT_ID.test(kept) ? kept : clientIdFromGoogleFpid(kept);
}

/**
 * The client id to keep: the one in the server-set FPID cookie when there is one (it survives Safari's 7-day cap
 * on script-set cookies, which resets `_ga`), also when Google's tagging server set it in its own format, else
 * the hit's own (`_ga`'s), else a new one in GA's format.
 */
export function stableClientId(visitor: Visitor, hitClientId: string | null): string {
  const kept = fpidClientId(visitor);
  if (kept) return kept;
  if (hitClientId && CLIENT_ID.test(hitClientId)) return hitClientId;
  return `${randomInt(1_000_000_000, 2_147_483_647)}.${Math.floor(Date.now() / 1000)}`;
}

/**
 * The FPID Set-Cookie values answering a hit: ours with the client id (its lifetime renewed), or none when the
 * visitor has Google's FPID, which is kept as it is so that a move back to Google's tagging server (or from it,
 * or from another host running it) keeps counting the visitor as the same one.
 */
export function fpidSetCookies(visitor: Visitor, clientId: string): string[] {
  const kept = visitor.cookies[FPID_COOKIE];
  return kept && clientIdFromGoogleFpid(kept) ? [] : [fpidCookie(clientId)];
}

/**
 * The FPID cookie, host-only: no Domain attribute, so only the container's own hostname (the one the hit came
 * to) receives it back. That is the narrowest scope that keeps the id: every hit goes to that hostname. A Domain
 * would send the visitor's id to every server of the site (and on a default hostname, to every container under
 * the gateway's base domain). Set on a custom domain of the site (`sgtm.shop.example`), it is a same-site,
 * server-set cookie; on a default hostname it is cross-site to the shop, and browsers do not send SameSite=Lax
 * cookies on cross-site fetches, so a stable id needs the custom domain.
 */
export function fpidCookie(clientId: string): string {
  return `${FPID_COOKIE}=${clientId}; Max-Age=${FPID_MAX_AGE_S}; Path=/; HttpOnly; Secure; SameSite=Lax`;
}
