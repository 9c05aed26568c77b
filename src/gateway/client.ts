import type http from 'node:http';
import type { TLSSocket } from 'node:tls';

/** Who sent a request the native data plane (nginx) handed to the Node gateway, as nginx saw it. */
interface FrontedClient {
  address: string;
  tls: boolean;
  /** The host nginx routed the request by (its `$host`: the absolute-form target's, else the Host header's). */
  authority: string;
}

const fronted = new WeakMap<http.IncomingMessage, FrontedClient>();

/** Records what nginx vouched for about a request it passed on (its peer address, and whether it came over TLS). */
export function markFronted(req: http.IncomingMessage, client: FrontedClient): void {
  fronted.set(req, client);
}

/** The address of the peer that sent the request: nginx's peer when nginx passed it on, else the socket's. */
export function peerAddress(req: http.IncomingMessage): string {
  return fronted.get(req)?.address ?? req.socket.remoteAddress ?? '';
}

/** Whether the request reached the gateway over TLS (at nginx, when nginx passed it on). */
export function arrivedOverTls(req: http.IncomingMessage): boolean {
  const client = fronted.get(req);
  return client ? client.tls : Boolean((req.socket as TLSSocket).encrypted);
}

/** The host nginx routed a request it passed on by; undefined when the request came to the gateway directly. */
export function frontedAuthority(req: http.IncomingMessage): string | undefined {
  return fronted.get(req)?.authority;
}
