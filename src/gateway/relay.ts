import type http from 'node:http';
import { newId } from '../lib/ids.js';
import type { OutboundClient } from '../lib/outbound.js';
import type { GatewayRoute } from '../modules/containers/traffic.js';
import { writeGatewayError } from './answers.js';
import { RelayConnections } from './http1/connections.js';
import type { OutgoingRequest, StreamedBody } from './http1/exchange.js';
import { BodyTooLargeError, TaggingPool } from './pool.js';
import type { BuiltinRuntime } from './runtime/index.js';
import {
  CLIENT_CLOSED_REQUEST,
  ClientGoneError,
  type ExchangeDone,
  forwardedHeaders,
  ProxyExchange,
  type Upstream,
  upstreamPath,
} from './upstream.js';
import { convertXmlRequest, isXmlRefused } from './xml-to-json.js';

/** A routed request: its container, the hostname it came for and when it arrived. */
export interface Routed {
  route: GatewayRoute;
  hostname: string;
  started: number;
}

/** How one request through the gateway went: what is metered and logged. */
export interface Outcome {
  status: number;
  requestBytes: number;
  responseBytes: number;
  /** The upstream origin asked, or null when the gateway answered itself. */
  upstream: string | null;
  upstreamMs: number | null;
}

/** The outcome of an answer the gateway wrote itself (no upstream asked). */
export const GATEWAY_ANSWER = { requestBytes: 0, upstream: null, upstreamMs: null } as const;

/** What the relay reports back to the gateway: every outcome, answers it wrote itself, and failures. */
export interface RelayReporting {
  record(req: http.IncomingMessage, routed: Routed, outcome: Outcome): void;
  refuse(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    routed: Routed,
    status: number,
    code: string,
    message: string,
  ): void;
  onError(error: unknown): void;
}

/** Stands for the tagging replicas in request logs: their loopback addresses change with every restart. */
export const REPLICAS_ORIGIN = 'tagging-server';
const REPLICA_ROOT: Upstream = { url: 'http://replica', origin: 'http://replica', basePath: '' };

/**
 * How a routed request reaches its tagging server: the container's own (`upstream`, through the SSRF guard) or the
 * replicas Tagport runs for it (`sgtm`), each answer streamed to the client and metered once it ends.
 */
export class Relay {
  private readonly pool = new TaggingPool();
  /** Connections to the containers' own upstreams, each opened through the SSRF guard. */
  private readonly upstreams: RelayConnections;

  constructor(
    private readonly deps: { outbound: OutboundClient; runtime: BuiltinRuntime | null; reporting: RelayReporting },
    private readonly settings: { upstreamTimeoutMs: number },
  ) {
    this.upstreams = new RelayConnections((origin) => {
      const url = new URL(origin);
      return () => deps.outbound.connect(url);
    });
  }

  close(): Promise<void> {
    this.upstreams.close();
    return this.pool.close();
  }

  /** Sends the request to the container's upstream and streams its answer back, counting the body bytes sent. */
  async toUpstream(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    routed: Routed,
    upstream: Upstream,
    path: string,
  ): Promise<void> {
    const powerups = (await this.deps.runtime?.upstreamHeaders(req, routed.route)) ?? [];
    const headers = [...forwardedHeaders(req, routed.hostname), ...powerups];
    const converted = await convertXmlRequest(req, routed.route, headers);
    if (converted && isXmlRefused(converted))
      return this.deps.reporting.refuse(req, res, routed, converted.status, converted.code, converted.message);
    const proxy = new ProxyExchange(res, this.exchangeDone(req, res, routed, upstream.origin, converted?.received));
    const request: OutgoingRequest = {
      method: req.method ?? 'GET',
      path,
      host: hostOf(upstream.origin),
      headers: converted?.headers ?? headers,
      body: converted ? converted.body : streamedBody(req),
      timeoutMs: this.settings.upstreamTimeoutMs,
    };
    proxy.attach(this.upstreams.request(upstream.origin, request, proxy));
  }

  /**
   * Runtime `sgtm`: to the container's ready tagging replicas (its preview server on the preview hostname), power-up
   * headers added; the custom loader is served by the tagging server's own `/gtm.js` and `/gtag/js`.
   */
  async toReplicas(req: http.IncomingMessage, res: http.ServerResponse, routed: Routed): Promise<void> {
    const { route, hostname } = routed;
    const refuse = this.deps.reporting.refuse;
    if (route.endpoints.length === 0)
      return refuse(req, res, routed, 503, 'no_ready_replicas', "None of the container's tagging servers is ready.");
    const path = replicaPath(route, req.url ?? '/');
    if (path === null)
      return refuse(req, res, routed, 400, 'invalid_request_target', 'The request target must be a path.');
    const extraHeaders = (await this.deps.runtime?.upstreamHeaders(req, route)) ?? [];
    const converted = await convertXmlRequest(req, route, [...forwardedHeaders(req, hostname), ...extraHeaders]);
    if (converted && isXmlRefused(converted))
      return refuse(req, res, routed, converted.status, converted.code, converted.message);
    const done = this.exchangeDone(req, res, routed, REPLICAS_ORIGIN, converted?.received);
    const request = {
      endpoints: route.endpoints,
      path,
      hostname,
      extraHeaders,
      timeoutMs: this.settings.upstreamTimeoutMs,
      converted,
    };
    try {
      await this.pool.relay(req, res, request, done);
    } catch (error) {
      if (!(error instanceof BodyTooLargeError)) throw error;
      refuse(req, res, routed, 413, 'body_too_large', error.message);
    }
  }

  /** The client learns only that the upstream failed; the cause (addresses, TLS details) goes to our log. */
  upstreamFailed(res: http.ServerResponse, route: GatewayRoute, cause: unknown): number {
    const requestId = newId('request');
    this.deps.reporting.onError(
      new Error(
        `Gateway request ${requestId} to the upstream of container ${route.containerId} failed: ${(cause as Error)?.message ?? cause}`,
        { cause },
      ),
    );
    return writeGatewayError(
      res,
      502,
      'upstream_unreachable',
      "The container's tagging server could not be reached. Quote the request id if you contact us.",
      { requestId },
    );
  }

  /** Meters and logs a relayed exchange once it ends; a failure answers 502 when nothing was sent yet. */
  private exchangeDone(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    routed: Routed,
    origin: string,
    /** The bytes received from the client when the gateway rewrote the body (else those sent on are counted). */
    receivedBytes: number | undefined,
  ): ExchangeDone {
    return (error, result) => {
      // Runs inside the connection's callbacks: a failure here is ours to report, never the connection's to handle.
      try {
        const outcome: Outcome = {
          status: result.status,
          requestBytes: receivedBytes ?? result.requestBytes,
          responseBytes: result.responseBytes,
          upstream: origin,
          upstreamMs: result.upstreamMs,
        };
        if (error instanceof ClientGoneError) outcome.status = CLIENT_CLOSED_REQUEST;
        else if (error) {
          outcome.status = error.status || 502;
          outcome.responseBytes = 0;
          if (res.headersSent) res.destroy();
          else outcome.responseBytes = this.upstreamFailed(res, routed.route, error);
        }
        this.deps.reporting.record(req, routed, outcome);
      } catch (failure) {
        this.deps.reporting.onError(failure);
      }
    };
  }
}

/** The path asked of a tagging replica: the custom loader becomes Google's own script paths, the rest as sent. */
function replicaPath(route: GatewayRoute, requestTarget: string): string | null {
  const loader = `/${route.settings.loader_path}.js`;
  if (!route.preview && requestTarget.startsWith(loader) && /^(\?|$)/.test(requestTarget.slice(loader.length))) {
    const query = requestTarget.slice(loader.length);
    return `${/[?&]id=G-/.test(query) ? '/gtag/js' : '/gtm.js'}${query}`;
  }
  return upstreamPath(REPLICA_ROOT, requestTarget);
}

/** `host[:port]` of an origin (`scheme://host[:port]`), as its Host header. */
function hostOf(origin: string): string {
  return origin.slice(origin.indexOf('//') + 2);
}

/** The client's body as it arrives: with its length when it gave one, else chunked; none when there is none. */
function streamedBody(req: http.IncomingMessage): StreamedBody | null {
  const method = req.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') return null;
  const length = req.headers['content-length'];
  if (length !== undefined) return Number(length) === 0 ? null : { stream: req, length: Number(length) };
  // Over HTTP/2 a body needs no length or transfer coding; over HTTP/1.x a request with neither has none.
  return req.httpVersionMajor >= 2 || req.headers['transfer-encoding'] ? { stream: req, length: null } : null;
}
