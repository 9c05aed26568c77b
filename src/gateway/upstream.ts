import type http from 'node:http';
import { PLATFORM_HEADER, PLATFORM_REQUEST_HEADERS, peerAddress } from './client.js';
import type { Exchange, ExchangeHandler, RelayFailure } from './http1/exchange.js';

/**
 * The upstream URL of a request: scheme, host and port always the container's upstream; only the path
 * (dot segments resolved, also when percent-encoded) and the query come from the client, under the
 * upstream's own path. Null for anything but an origin-form target ("/path?query"): absolute-form
 * ("http://host/…"), authority-form and "*" are refused, so a client can never choose where we connect.
 */
export function upstreamTarget(upstreamUrl: string, requestTarget: string): URL | null {
  if (!requestTarget.startsWith('/')) return null;
  const upstream = new URL(upstreamUrl);
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') return null;
  const basePath = upstream.pathname.replace(/\/+$/, '');
  // The common case, a plain path: appended as it is after the fixed origin (one parse instead of three).
  if (!MAY_NEED_NORMALISING.test(requestTarget)) return new URL(`${upstream.origin}${basePath}${requestTarget}`);
  const queryAt = requestTarget.indexOf('?');
  const path = new URL('http://path.invalid');
  path.pathname = queryAt === -1 ? requestTarget : requestTarget.slice(0, queryAt);
  upstream.pathname = basePath + path.pathname;
  upstream.search = queryAt === -1 ? '' : requestTarget.slice(queryAt);
  upstream.hash = '';
  return upstream;
}

/** Dot segments (also percent-encoded), backslashes, fragments and characters the URL parser drops. */
const MAY_NEED_NORMALISING = /\/\.|%2e|\\|#|[\t\n\r]/i;
/** Characters the URL parser keeps as they are in a path and a query: a target of only these needs no parse. */
const PLAIN_TARGET = /^\/[\w\-.~!$&()*+,;=:@/%?]*$/;

/** A container's upstream URL parsed once: where to connect, and the path every request goes under. */
export interface Upstream {
  url: string;
  origin: string;
  basePath: string;
}

export function parseUpstream(upstreamUrl: string): Upstream | null {
  let url: URL;
  try {
    url = new URL(upstreamUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return { url: upstreamUrl, origin: url.origin, basePath: url.pathname.replace(/\/+$/, '') };
}

/**
 * The path and query to request from the upstream, as `upstreamTarget` would build them: a plain target is
 * appended to the base path without any URL parsing (the per-request fast path); anything else goes through
 * `upstreamTarget`. Null when the request target is not a path.
 */
export function upstreamPath(upstream: Upstream, requestTarget: string): string | null {
  if (PLAIN_TARGET.test(requestTarget) && !MAY_NEED_NORMALISING.test(requestTarget) && !requestTarget.endsWith('?'))
    return upstream.basePath + requestTarget;
  const target = upstreamTarget(upstream.url, requestTarget);
  return target && target.pathname + target.search;
}

/** Hop-by-hop headers, and those the gateway sets itself; never forwarded in either direction. */
const NOT_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
/** Request headers undici or the gateway sets: the upstream's Host, the body framing, the forwarding headers. */
export const NOT_FORWARDED_UPSTREAM = new Set([
  ...NOT_FORWARDED,
  'host',
  'content-length',
  // The gateway answers a client's 100-continue itself and sends the body on at once.
  'expect',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  // Set by the gateway's power-ups (bot detection, geo headers); a client's own would be believed upstream.
  'x-tagport-bot',
  'x-device-bot',
  'x-device-bot-score',
  'x-geo-country',
  'x-geo-region',
  'x-geo-city',
  'x-gclb-country',
  'x-stape-user-id',
  'x-tagport-user-id',
  // The platform's own requests: its token never leaves the gateway; what they say of themselves is added back by
  // the power-ups only when the token was right (platformRequestHeaders).
  PLATFORM_HEADER,
  ...PLATFORM_REQUEST_HEADERS,
  // What nginx tells the Node gateway when it hands a request on (the native engine); never the upstream's business.
  'x-tagport-front',
  'x-tagport-client',
  'x-tagport-scheme',
  'x-tagport-authority',
]);

/**
 * The client's headers for the upstream as a flat [name, value, …] list, read from `rawHeaders` (no header
 * object is built), with the forwarding headers appended: the client's address after any X-Forwarded-For.
 */
export function forwardedHeaders(req: http.IncomingMessage, hostname: string): string[] {
  const raw = req.rawHeaders;
  const headers: string[] = [];
  let forwardedFor = '';
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (name.startsWith(':')) continue; // HTTP/2 pseudo-headers (:method, :path, :authority…) stay with the client
    if (name === 'x-forwarded-for') forwardedFor += `${raw[i + 1]}, `;
    else if (!NOT_FORWARDED_UPSTREAM.has(name)) headers.push(name, raw[i + 1]);
  }
  headers.push(
    'x-forwarded-for',
    forwardedFor + peerAddress(req),
    'x-forwarded-host',
    hostname,
    'x-forwarded-proto',
    'https',
  );
  return headers;
}

/**
 * The upstream's response headers for the client, from `[name, value, …]`: everything but hop-by-hop headers
 * (Content-Length is kept); a repeated header (Set-Cookie) keeps each value.
 */
export function returnedHeaders(headers: string[]): http.OutgoingHttpHeaders {
  const kept: Record<string, string | string[]> = {};
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i];
    if (NOT_FORWARDED.has(name)) continue;
    const earlier = kept[name];
    if (earlier === undefined) kept[name] = headers[i + 1];
    else if (Array.isArray(earlier)) earlier.push(headers[i + 1]);
    else kept[name] = [earlier, headers[i + 1]];
  }
  return kept;
}

/** How an exchange with the upstream went, for metering and the request log. */
export interface ExchangeResult {
  status: number;
  /** Request body bytes sent to the upstream. */
  requestBytes: number;
  responseBytes: number;
  /** From sending the request to the end of the upstream's response. */
  upstreamMs: number;
}

/** Why an exchange was given up when the client closed its connection first: the client's doing, not a failure. */
export class ClientGoneError extends Error {
  constructor() {
    super('The client closed the connection.');
  }
}

/** The status metered for a request whose client went away before the answer (as nginx logs it). */
export const CLIENT_CLOSED_REQUEST = 499;

/** Called once when an exchange ends: with the error (and how far it got) when it failed. */
export type ExchangeDone = (
  error: (Error & { status?: number; upstreamMs?: number }) | null,
  result: ExchangeResult,
) => void;

/**
 * One request relayed to the upstream, its answer written to the client as it arrives. Back-pressure from the client
 * pauses the upstream's connection; a client that goes away aborts the exchange (its connection is closed).
 */
export class ProxyExchange implements ExchangeHandler {
  private exchange: Exchange | null = null;
  private readonly result: ExchangeResult = { status: 0, requestBytes: 0, responseBytes: 0, upstreamMs: 0 };
  private readonly started = performance.now();

  constructor(
    private readonly res: http.ServerResponse,
    private readonly done: ExchangeDone,
  ) {
    res.once('close', this.onClientClose.bind(this));
  }

  /** The exchange this handler answers for, once it is sent. */
  attach(exchange: Exchange): void {
    this.exchange = exchange;
  }

  private onClientClose() {
    this.exchange?.abort(new ClientGoneError()); // nothing once the exchange ended
  }

  head(status: number, headers: string[]): void {
    this.result.status = status;
    this.res.writeHead(status, returnedHeaders(headers));
  }

  data(chunk: Buffer): void {
    this.result.responseBytes += chunk.length;
    if (!this.res.write(chunk)) {
      this.exchange?.pause();
      this.res.once('drain', () => this.exchange?.resume());
    }
  }

  end(last: Buffer | null): void {
    if (last) this.result.responseBytes += last.length;
    this.res.end(last ?? undefined);
    this.measure();
    this.done(null, this.result);
  }

  error(failure: RelayFailure): void {
    this.measure();
    // An exchange the client gave up on failed by its doing: reported as the ClientGoneError it was aborted with.
    const error = failure.cause instanceof ClientGoneError ? failure.cause : failure;
    this.done(Object.assign(error, { status: this.result.status, upstreamMs: this.result.upstreamMs }), this.result);
  }

  private measure() {
    this.result.upstreamMs = performance.now() - this.started;
    this.result.requestBytes = this.exchange?.bodyBytes ?? 0;
  }
}
