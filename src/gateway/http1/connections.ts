import type net from 'node:net';
import {
  type Carrier,
  Exchange,
  type ExchangeHandler,
  type OutgoingRequest,
  RelayFailure,
  requestHead,
  type StreamedBody,
} from './exchange.js';
import { Http1ResponseParser, MalformedResponseError, type ResponseHead } from './response-parser.js';

/** Opens a connection to one origin (plain or TLS), ready to write to. */
export type Connect = () => Promise<net.Socket>;

/** How long an idle connection is kept, unless the server says it keeps them for less. */
const IDLE_MS = 4_000;
/** Taken off the server's own keep-alive timeout, so we close an idle connection before it does. */
const IDLE_MARGIN_MS = 1_000;

/**
 * Keep-alive HTTP/1.1 connections to one origin, one request at a time on each: an idle one is reused (the last
 * released first), else a new one is opened. The relay's client: a request costs one write and the reads of its
 * answer, with the answer handed on as it arrives.
 */
export class OriginConnections {
  private readonly idle: Connection[] = [];
  private open = 0;
  private closing = false;

  constructor(
    private readonly connect: Connect,
    private readonly onEmpty: () => void = () => {},
  ) {}

  request(request: OutgoingRequest, handler: ExchangeHandler): Exchange {
    const exchange = new Exchange(request, handler);
    let connection = this.idle.pop();
    while (connection?.closed) connection = this.idle.pop();
    if (connection) connection.carry(exchange);
    else this.openFor(exchange);
    return exchange;
  }

  close(): void {
    this.closing = true;
    for (const connection of this.idle.splice(0)) connection.destroy();
  }

  /** Called by a connection that finished its exchange and can carry another. */
  release(connection: Connection): void {
    if (this.closing) connection.destroy();
    else this.idle.push(connection);
  }

  /** Called by a connection once its socket closed. */
  closed(connection: Connection): void {
    const at = this.idle.indexOf(connection);
    if (at !== -1) this.idle.splice(at, 1);
    this.lost();
  }

  private openFor(exchange: Exchange): void {
    this.open++;
    this.connect().then(
      (socket) => new Connection(socket, this).carry(exchange),
      (error: Error & { code?: string }) => {
        this.lost();
        exchange.fail(new RelayFailure(error.message, error.code ?? 'CONNECT_FAILED', true, { cause: error }));
      },
    );
  }

  /** One connection fewer (closed, or never made); the origin's entry goes with its last one. */
  private lost(): void {
    this.open--;
    if (this.open === 0) this.onEmpty();
  }
}

/** One socket to the origin, carrying one exchange at a time; it goes back to the pool when an answer ends cleanly. */
class Connection implements Carrier {
  private exchange: Exchange | null = null;
  private readonly parser: Http1ResponseParser;
  private idleMs = IDLE_MS;
  /** The request body is still being sent: the connection cannot be reused before it is all out. */
  private sending = false;
  /** The answer ended while the request body was still being sent, or it said it closes. */
  private spent = false;
  /**
   * The last piece of body read in the current read, not handed on yet: if the answer ends in the same read, it goes
   * with the end (the client's answer is then written at once instead of in two writes).
   */
  private held: Buffer | null = null;

  constructor(
    private readonly socket: net.Socket,
    private readonly pool: OriginConnections,
  ) {
    this.parser = new Http1ResponseParser({
      head: (head) => this.onHead(head),
      body: (chunk) => this.hold(chunk),
      end: () => this.onAnswerEnd(),
    });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('timeout', () => this.onTimeout());
    socket.on('error', (error: Error & { code?: string }) => this.failWith(error.code ?? 'SOCKET_ERROR', error));
    socket.on('end', () => this.onServerEnd());
    socket.on('close', () => this.onClose());
  }

  carry(exchange: Exchange): void {
    if (!exchange.start(this)) {
      this.pool.release(this);
      return;
    }
    const { request } = exchange;
    let head: string;
    try {
      head = requestHead(request);
    } catch (error) {
      // Nothing was written: the connection is as it was, and carries the next request.
      this.pool.release(this);
      exchange.fail(new RelayFailure((error as Error).message, 'INVALID_REQUEST', false, { cause: error }));
      return;
    }
    this.exchange = exchange;
    if (request.method === 'HEAD') this.parser.expectHeadAnswer();
    this.socket.setTimeout(request.timeoutMs);
    const { body } = request;
    if (body === null || Buffer.isBuffer(body)) {
      this.socket.cork();
      this.socket.write(head, 'latin1');
      if (body?.length) this.socket.write(body);
      this.socket.uncork();
      exchange.bodyBytes = body?.length ?? 0;
    } else {
      this.socket.write(head, 'latin1');
      this.stream(exchange, body);
    }
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  abort(error: Error): void {
    const exchange = this.exchange;
    this.destroy();
    exchange?.fail(new RelayFailure(error.message, 'ABORTED', false, { cause: error }));
  }

  get closed(): boolean {
    return this.socket.destroyed;
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** Sends the client's body as it arrives, chunked when it came without a length, at the pace the socket takes. */
  private stream(exchange: Exchange, { stream, length }: StreamedBody): void {
    const chunked = length === null;
    this.sending = true;
    const onData = (chunk: Buffer) => {
      exchange.bodyBytes += chunk.length;
      const flowing = chunked ? this.writeChunk(chunk) : this.socket.write(chunk);
      if (!flowing) {
        stream.pause();
        this.socket.once('drain', () => stream.resume());
      }
    };
    const onEnd = () => {
      stream.off('data', onData);
      if (chunked && !this.closed) this.socket.write('0\r\n\r\n', 'latin1');
      this.sending = false;
      if (this.exchange === null && !this.closed) this.afterAnswer();
    };
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', (error) => {
      stream.off('data', onData);
      this.abort(error);
    });
  }

  /** One piece of a chunked body, in one write; false when the socket wants the sender to wait. */
  private writeChunk(chunk: Buffer): boolean {
    this.socket.cork();
    this.socket.write(`${chunk.length.toString(16)}\r\n`, 'latin1');
    const flowing = this.socket.write(chunk);
    this.socket.write('\r\n', 'latin1');
    this.socket.uncork();
    return flowing;
  }

  private onData(chunk: Buffer): void {
    try {
      if (!this.exchange && !this.parser.idle) throw new MalformedResponseError('Bytes with no request waiting.');
      this.parser.push(chunk);
    } catch (error) {
      this.failWith('MALFORMED_RESPONSE', error as Error);
      return;
    }
    this.handOnHeld();
  }

  private hold(chunk: Buffer): void {
    this.handOnHeld();
    this.held = chunk;
  }

  private handOnHeld(): void {
    const held = this.held;
    this.held = null;
    if (held) this.exchange?.data(held);
  }

  private onHead(head: ResponseHead): void {
    if (!this.exchange) throw new MalformedResponseError('An answer with no request waiting.');
    if (head.closes) this.spent = true;
    this.idleMs = keepAliveMs(head.headers) ?? IDLE_MS;
    this.exchange.head(head.status, head.headers);
  }

  private onAnswerEnd(): void {
    const exchange = this.exchange;
    const last = this.held;
    this.exchange = null;
    this.held = null;
    // The server may answer before the whole body was sent: the connection then cannot carry another request.
    if (this.sending) this.spent = true;
    else this.afterAnswer();
    exchange?.end(last);
  }

  /** Back to the pool for the next request, or closed when it cannot carry one. */
  private afterAnswer(): void {
    if (this.spent || this.closed || this.idleMs <= 0) {
      this.destroy();
      return;
    }
    this.socket.resume(); // a slow client may have paused it just before the answer's last bytes
    this.socket.setTimeout(this.idleMs);
    this.pool.release(this);
  }

  private onTimeout(): void {
    if (this.exchange) this.failWith('UPSTREAM_TIMEOUT', new Error('The upstream did not answer in time.'));
    else this.destroy();
  }

  private onServerEnd(): void {
    // An answer whose body runs to the close ends here.
    if (this.parser.finish() && !this.exchange) this.destroy();
    else this.failWith('UPSTREAM_CLOSED', new Error('The upstream closed the connection before its answer ended.'));
  }

  private onClose(): void {
    if (this.exchange) this.failWith('UPSTREAM_CLOSED', new Error('The connection to the upstream closed.'));
    this.pool.closed(this);
  }

  private failWith(code: string, cause: Error): void {
    const exchange = this.exchange;
    this.exchange = null;
    this.held = null;
    this.destroy();
    exchange?.fail(new RelayFailure(cause.message, code, false, { cause }));
  }
}

/**
 * The server's `Keep-Alive: timeout=N` less a margin, when it keeps idle connections for less than we would (zero or
 * less: too short to reuse the connection safely).
 */
function keepAliveMs(headers: string[]): number | null {
  for (let i = 0; i < headers.length; i += 2) {
    if (headers[i] !== 'keep-alive') continue;
    const seconds = Number(/timeout=(\d+)/i.exec(headers[i + 1])?.[1] ?? Number.NaN);
    if (Number.isFinite(seconds)) return Math.min(IDLE_MS, seconds * 1000 - IDLE_MARGIN_MS);
  }
  return null;
}

/**
 * The connections of every origin the relay talks to, each origin's opened by `connectTo(origin)`; an origin's entry
 * goes once its last connection closed.
 */
export class RelayConnections {
  private readonly origins = new Map<string, OriginConnections>();

  constructor(private readonly connectTo: (origin: string) => Connect) {}

  request(origin: string, request: OutgoingRequest, handler: ExchangeHandler): Exchange {
    let connections = this.origins.get(origin);
    if (!connections) {
      const created = new OriginConnections(this.connectTo(origin), () => {
        if (this.origins.get(origin) === created) this.origins.delete(origin);
      });
      this.origins.set(origin, created);
      connections = created;
    }
    return connections.request(request, handler);
  }

  /** Closes the idle connections; those carrying an exchange close when it ends. */
  close(): void {
    for (const connections of this.origins.values()) connections.close();
    this.origins.clear();
  }
}
