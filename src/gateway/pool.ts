import type http from 'node:http';
import net from 'node:net';
import { connected } from '../lib/outbound.js';
import { readBodyUpTo } from './body.js';
import { RelayConnections } from './http1/connections.js';
import type { RelayFailure } from './http1/exchange.js';
import { forwardedHeaders, ProxyExchange, type ExchangeDone } from './upstream.js';

/** Failures on a connection that was made which say the replica is gone (its connections cut). */
const CUT = new Set(['ECONNRESET', 'UPSTREAM_CLOSED', 'EPIPE']);
/** How long a replica has to accept a connection. */
const CONNECT_TIMEOUT_MS = 2_000;
/**
 * How long a replica whose connections failed is passed over: about the time the orchestrator takes to notice it
 * (a process exit at once, a failed health check within seconds) and give the gateway a new pool.
 */
const PASS_OVER_MS = 3_000;
/** The largest request body held for a retry; a tagging request is a few kilobytes. */
export const MAX_POOLED_BODY_BYTES = 1024 * 1024;

export class BodyTooLargeError extends Error {
  constructor() {
    super(`The request body is larger than ${MAX_POOLED_BODY_BYTES} bytes.`);
  }
}

/** One request for a container's pool of tagging replicas. */
export interface PooledRequest {
  /** `http://host:port` of each ready replica (or the Kubernetes Service). */
  endpoints: string[];
  path: string;
  hostname: string;
  /** Power-up headers for the tagging server. */
  extraHeaders: string[];
  timeoutMs: number;
  /** A body the gateway rewrote (XML to JSON), sent with its own headers in place of the client's. */
  converted?: { body: Buffer; headers: string[] } | null;
}

/**
 * Relays requests to the tagging replicas of `sgtm` containers (addresses the orchestrator gives, so not through
 * the SSRF guard): keep-alive connections per replica, replicas taken in turn, and a request that never reached
 * one (refused, unreachable) sent to the next. The body is read first, so a retry can send it again.
 */
export class TaggingPool {
  private readonly connections = new RelayConnections(connectToReplica);
  private turn = 0;
  /** Replicas whose connections failed, until when they are passed over. */
  private readonly gone = new Map<string, number>();

  async relay(req: http.IncomingMessage, res: http.ServerResponse, request: PooledRequest, done: ExchangeDone) {
    const body = request.converted?.body ?? (await readBody(req));
    const order = this.order(request.endpoints);
    const headers = request.converted?.headers ?? [...forwardedHeaders(req, request.hostname), ...request.extraHeaders];
    const attempt = (tried: number): void => {
      const origin = order[tried];
      const proxy = new ProxyExchange(res, (error, result) => {
        const failure = error as (RelayFailure & { status?: number }) | null;
        if (failure?.connectFailed || (failure && CUT.has(failure.code) && result.status === 0))
          this.gone.set(origin, performance.now() + PASS_OVER_MS);
        // The connection was not made, so the request never reached the replica: the next one may take it.
        if (failure?.connectFailed && tried + 1 < order.length) return attempt(tried + 1);
        done(error, result);
      });
      const outgoing = {
        method: req.method ?? 'GET',
        path: request.path,
        host: origin.slice('http://'.length),
        headers,
        body,
        timeoutMs: request.timeoutMs,
      };
      proxy.attach(this.connections.request(origin, outgoing, proxy));
    };
    attempt(0);
  }

  close(): Promise<void> {
    this.connections.close();
    return Promise.resolve();
  }

  /** The replicas to try, in turn from the next one; those passed over last, as a last resort. */
  private order(endpoints: string[]): string[] {
    const first = this.turn++ % endpoints.length;
    const turned = [...endpoints.slice(first), ...endpoints.slice(0, first)];
    if (this.gone.size === 0) return turned;
    const now = performance.now();
    for (const [origin, until] of this.gone) if (until <= now) this.gone.delete(origin);
    return [...turned.filter((origin) => !this.gone.has(origin)), ...turned.filter((origin) => this.gone.has(origin))];
  }
}

/** A plain connection to a replica (`http://host:port`, an address the orchestrator gave: not through the guard). */
function connectToReplica(origin: string) {
  const { hostname, port } = new URL(origin);
  const host = hostname.replace(/^\[|\]$/g, '');
  return () => connected(net.connect({ host, port: Number(port) }), false, CONNECT_TIMEOUT_MS, origin);
}

async function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  const method = req.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') return null;
  const body = await readBodyUpTo(req, MAX_POOLED_BODY_BYTES);
  if (body === null) throw new BodyTooLargeError();
  return body;
}
