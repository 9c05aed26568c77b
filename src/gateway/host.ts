import net from 'node:net';
import { frontedAuthority } from './client.js';
import type { RequestHead } from './http1/request-head.js';

/**
 * A Host value: a DNS name (labels of letters, digits, hyphens and underscores, an optional trailing dot) or a
 * bracketed IPv6 address, with an optional numeric port. No userinfo, path, spaces or anything else.
 */
const HOST =
  /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?|\[([0-9a-f:.]+)\])(?::(\d{1,5}))?$/i;
/** An absolute-form request target (`http://host/path`): its authority and what follows it. */
const ABSOLUTE_FORM = /^https?:\/\/([^/?#]*)(.*)$/is;

/** The hostname a request is routed by, or why it cannot be routed (answered 400 `bad_request`). */
export type RequestHost = { hostname: string; problem?: undefined } | { problem: string };

const refused = (problem: string): RequestHost => ({ problem });

/** The Host values a request carries: HTTP/2's `:authority` (put in `headers.host`), else every `Host` line. */
function hostValues(req: RequestHead): string[] {
  if (req.httpVersionMajor === 2) return req.headers.host === undefined ? [] : [req.headers.host];
  const values: string[] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i].length === 4 && raw[i].toLowerCase() === 'host') values.push(raw[i + 1]);
  return values;
}

/** The hostname of a valid Host value: lower-cased, without port or trailing dot; null when it is not valid. */
export function validHostname(host: string): string | null {
  const match = HOST.exec(host);
  if (!match || (match[2] !== undefined && Number(match[2]) > 65_535)) return null;
  if (match[1] !== undefined && net.isIPv6(match[1]) === false) return null;
  const hostname = (match[2] === undefined ? host : host.slice(0, host.lastIndexOf(':'))).toLowerCase();
  return hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
}

/**
 * The host an absolute-form target names (null for any other form). The target is turned into its origin form,
 * so the request is served like one sent with a path. Behind nginx: the host nginx routed by (its `$host`).
 */
function targetHostname(req: RequestHead): string | null | undefined {
  const fronted = frontedAuthority(req);
  if (fronted !== undefined) return validHostname(fronted) ?? (fronted === '' ? '' : undefined);
  const match = ABSOLUTE_FORM.exec(req.url ?? '/');
  if (!match) return null;
  const rest = match[2] || '/';
  req.url = rest.startsWith('/') ? rest : `/${rest}`;
  return validHostname(match[1]) ?? undefined;
}

/**
 * What the gateway routes a request by (docs/gateway-routing.md): exactly one Host header, a valid
 * hostname[:port]; an absolute-form target must name the same hostname. No Host at all (HTTP/1.0) names the
 * gateway itself. Both engines answer alike: nginx hands every request it cannot vouch for to this check.
 */
export function requestHost(req: RequestHead): RequestHost {
  const values = hostValues(req);
  if (values.length > 1) return refused('The request has more than one Host header; send exactly one.');
  if (values.length === 0) return { hostname: '' };
  const hostname = validHostname(values[0]);
  if (hostname === null)
    return refused('The Host header must be a hostname with an optional port, such as data.shop.test:443.');
  const target = targetHostname(req);
  if (target === undefined) return refused('The request target names a host that is not valid.');
  if (target !== null && target !== hostname)
    return refused('The request target names another host than the Host header; send a path, such as /g/collect.');
  return { hostname };
}

/**
 * The gateway's own liveness is answered on `/healthz` for a Host that names the gateway rather than a
 * container: none, an IP address (load balancers and orchestrators probe by address), `localhost`, or the
 * bare base domain. Any other Host is a container's (or no one's), so `/healthz` there is about the container.
 */
export function isGatewayHost(hostname: string, baseDomain: string): boolean {
  return (
    hostname === '' ||
    hostname === 'localhost' ||
    hostname === baseDomain ||
    net.isIP(hostname.replace(/^\[(.*)\]$/, '$1')) !== 0
  );
}
