import type { Readable } from 'node:stream';

/** A request body read from the client as it is sent on: its length when the client gave one, else chunked. */
export interface StreamedBody {
  stream: Readable;
  length: number | null;
}

/** One request for an origin's server. */
export interface OutgoingRequest {
  method: string;
  /** The request target: a path and query. */
  path: string;
  /** The Host header. */
  host: string;
  /** `[name, value, …]`, without Host, Connection, Content-Length or Transfer-Encoding (the connection sets those). */
  headers: string[];
  /** A body held whole (a retry can send it again), streamed from the client, or none. */
  body: Buffer | StreamedBody | null;
  /** Longest wait for the answer's head, and between two pieces of its body. */
  timeoutMs: number;
}

/** What an exchange reports: the answer as it arrives, then its end or why it failed (once, either way). */
export interface ExchangeHandler {
  head(status: number, headers: string[]): void;
  data(chunk: Buffer): void;
  /** The answer ended; `last` is its final piece of body when it came with the end (one write for a small answer). */
  end(last: Buffer | null): void;
  error(failure: RelayFailure): void;
}

/**
 * Why an exchange failed. `connectFailed`: no connection could be made, so the request cannot have reached the
 * server, and another server may take it.
 */
export class RelayFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly connectFailed: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** What the connection carrying an exchange can be asked while it runs. */
export interface Carrier {
  pause(): void;
  resume(): void;
  abort(error: Error): void;
}

/** Methods whose requests carry a body by definition: sent with `Content-Length: 0` when they have none. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
/** What may not appear in a header value or the request line (it would end them). */
const UNSAFE = /[\r\n\0]/;
const UNSAFE_TARGET = /[\s\0]/;

/**
 * One request and its answer: the handler is told everything once and in order. The carrier is the connection it
 * runs on, set when one is taken or made; an abort before that stops it from being sent at all.
 */
export class Exchange {
  /** Request body bytes sent so far. */
  bodyBytes = 0;
  private carrier: Carrier | null = null;
  private settled = false;

  constructor(
    readonly request: OutgoingRequest,
    private readonly handler: ExchangeHandler,
  ) {}

  /** Stops the exchange: the handler hears `error` with this reason unless it already ended. */
  abort(error: Error): void {
    if (this.settled) return;
    if (this.carrier) this.carrier.abort(error);
    else this.fail(new RelayFailure(error.message, 'ABORTED', false, { cause: error }));
  }

  /** Holds the answer back (the client is slow to take it); nothing once the exchange ended. */
  pause(): void {
    if (!this.settled) this.carrier?.pause();
  }

  resume(): void {
    if (!this.settled) this.carrier?.resume();
  }

  /** Binds the exchange to its connection; false when it ended meanwhile (aborted: then nothing is sent). */
  start(carrier: Carrier): boolean {
    if (this.settled) return false;
    this.carrier = carrier;
    return true;
  }

  head(status: number, headers: string[]): void {
    if (!this.settled) this.handler.head(status, headers);
  }

  data(chunk: Buffer): void {
    if (!this.settled) this.handler.data(chunk);
  }

  end(last: Buffer | null): void {
    if (this.settled) return;
    this.settled = true;
    this.handler.end(last);
  }

  fail(failure: RelayFailure): void {
    if (this.settled) return;
    this.settled = true;
    this.handler.error(failure);
  }
}

/**
 * The request line and headers as sent, with the body's framing; throws on a value that would break the message
 * (a header the client sent cannot: Node's parser refuses those; this guards the ones the gateway adds).
 */
export function requestHead(request: OutgoingRequest): string {
  const { method, path, host, headers, body } = request;
  if (UNSAFE_TARGET.test(path) || UNSAFE.test(host)) throw new TypeError('The request target or host is not valid.');
  let head = `${method} ${path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (let i = 0; i < headers.length; i += 2) {
    if (UNSAFE.test(headers[i + 1]) || UNSAFE.test(headers[i]))
      throw new TypeError(`Header ${headers[i]} is not valid.`);
    head += `${headers[i]}: ${headers[i + 1]}\r\n`;
  }
  if (body === null) return BODY_METHODS.has(method) ? `${head}content-length: 0\r\n\r\n` : `${head}\r\n`;
  if (Buffer.isBuffer(body)) return `${head}content-length: ${body.length}\r\n\r\n`;
  return body.length === null
    ? `${head}transfer-encoding: chunked\r\n\r\n`
    : `${head}content-length: ${body.length}\r\n\r\n`;
}
