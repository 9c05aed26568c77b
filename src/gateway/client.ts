import { timingSafeEqual } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { RequestHead } from './http1/request-head.js';

/** Who sent a request the native data plane (nginx) handed to the Node gateway, as nginx saw it. */
interface FrontedClient {
  address: string;
  tls: boolean;
  /** The host nginx routed the request by (its `$host`: the absolute-form target's, else the Host header's). */
  authority: string;
}

const fronted = new WeakMap<RequestHead, FrontedClient>();

/** Records what nginx vouched for about a request it passed on (its peer address, and whether it came over TLS). */
export function markFronted(req: RequestHead, client: FrontedClient): void {
  fronted.set(req, client);
}

/** The header the platform's own requests carry its token in (stripped before anything is forwarded). */
export const PLATFORM_HEADER = 'x-tagport-platform';
/** What a platform request says of itself, passed on to tagging servers only when the token is right. */
export const PLATFORM_REQUEST_HEADERS = ['x-tagport-delayed-by', 'x-tagport-schedule'] as const;

const fromPlatform = new WeakSet<RequestHead>();

/**
 * Whether the request carries the platform's token (a delayed or scheduled request a worker sent); remembered for
 * the request, so the power-ups pass its X-Tagport-Delayed-By / X-Tagport-Schedule on.
 */
export function checkPlatformRequest(req: RequestHead, token: string): boolean {
  const sent = req.headers[PLATFORM_HEADER];
  if (typeof sent !== 'string' || sent.length !== token.length) return false;
  if (!timingSafeEqual(Buffer.from(sent), Buffer.from(token))) return false;
  fromPlatform.add(req);
  return true;
}

/** The platform's own headers of a request checkPlatformRequest vouched for, as [name, value, …]; none otherwise. */
export function platformRequestHeaders(req: RequestHead): string[] {
  if (!fromPlatform.has(req)) return [];
  return PLATFORM_REQUEST_HEADERS.flatMap((name) => {
    const value = req.headers[name];
    return typeof value === 'string' ? [name, value] : [];
  });
}

/** The address of the peer that sent the request: nginx's peer when nginx passed it on, else the socket's. */
export function peerAddress(req: RequestHead): string {
  return fronted.get(req)?.address ?? req.socket.remoteAddress ?? '';
}

/** Whether the request reached the gateway over TLS (at nginx, when nginx passed it on). */
export function arrivedOverTls(req: RequestHead): boolean {
  const client = fronted.get(req);
  return client ? client.tls : Boolean((req.socket as TLSSocket).encrypted);
}

/** The host nginx routed a request it passed on by; undefined when the request came to the gateway directly. */
export function frontedAuthority(req: RequestHead): string | undefined {
  return fronted.get(req)?.authority;
}
