import type http from 'node:http';
import { Agent, type Dispatcher } from 'undici';
import { forwardedHeaders, ProxyExchange, type ExchangeDone } from './upstream.js';

/** Connection failures that prove the request never reached the replica: safe to send to another one. */
const NEVER_REACHED = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND']);
/** Connection failures that say the replica is gone (its connections cut): it is passed over for a while. */
const REPLICA_GONE = new Set([...NEVER_REACHED, 'ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']);
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
  private readonly agent = new Agent({ keepAliveTimeout: 30_000, connect: { timeout: 2_000 } });
  private turn = 0;
  /** Replicas whose connections failed, until when they are passed over. */
  private readonly gone = new Map<string, number>();

  async relay(req: http.IncomingMessage, res: http.ServerResponse, request: PooledRequest, done: ExchangeDone) {
    const body = request.converted?.body ?? (await readBody(req));
    const order = this.order(request.endpoints);
    const attempt = (tried: number): void => {
      const origin = order[tried];
      const retry = tried + 1 < order.length;
      const exchange = new ProxyExchange(res, (error, result) => {
        if (error && result.status === 0 && REPLICA_GONE.has(errorCode(error)))
          this.gone.set(origin, performance.now() + PASS_OVER_MS);
        if (error && retry && result.status === 0 && NEVER_REACHED.has(errorCode(error))) return attempt(tried + 1);
        done(error, result);
      });
      this.dispatch(req, request, origin, body, exchange);
    };
    attempt(0);
    return body?.length ?? 0;
  }

  close(): Promise<void> {
    return this.agent.close();
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

  private dispatch(
    req: http.IncomingMessage,
    request: PooledRequest,
    origin: string,
    body: Buffer | null,
    exchange: ProxyExchange,
  ) {
    try {
      this.agent.dispatch(
        {
          origin,
          path: request.path,
          method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
          headers: request.converted?.headers ?? [...forwardedHeaders(req, request.hostname), ...request.extraHeaders],
          body,
          headersTimeout: request.timeoutMs,
          bodyTimeout: request.timeoutMs,
        },
        exchange,
      );
    } catch (error) {
      exchange.onResponseError(null, error as Error);
    }
  }
}

function errorCode(error: Error & { code?: string; cause?: unknown }): string {
  return error.code ?? (error.cause as { code?: string } | undefined)?.code ?? '';
}

async function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  const method = req.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_POOLED_BODY_BYTES) throw new BodyTooLargeError();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
