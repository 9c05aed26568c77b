import type { Socket } from 'node:net';
import { type Http1Response, Http1ResponseReader } from './http1-responses.js';

/**
 * Requests to one vendor origin over a few keep-alive HTTP/1.1 connections, pipelined: the requests queued while
 * the event loop turns are written to a connection in one write, and its answers read back in order. Forwarding a
 * hit this way costs a fraction of a request through a general-purpose client (one syscall for many hits, no
 * per-request objects beyond a promise), which is what the built-in runtime's hit path needs.
 *
 * A connection that fails, times out or answers garbage is dropped; the requests still on it are rejected with
 * ConnectionLostError (the forward queue tries them again). Those written after an answer that said
 * `Connection: close` were not processed by the server (RFC 9112 §9.6), so they are sent again on another
 * connection here, without costing an attempt.
 *
 * A server may answer pipelined requests one after another, so a slow answer holds up those behind it. A connection
 * therefore takes more requests only while its oldest unanswered one is younger than STALLED_AFTER_MS; past that,
 * requests go to another connection, opened when needed: with a slow vendor this spreads over connections as a
 * client without pipelining would, and with a fast one a few connections carry everything in batches.
 */
export interface PipelinedSenderSettings {
  /** Connections to the origin, at most. */
  connections: number;
  /** Requests on one connection awaiting their answers, at most; 1 is keep-alive without pipelining. */
  depth: number;
  /** A connection whose oldest request has waited this long for its answer is dropped. */
  timeoutMs: number;
  /** Idle connections are closed after this long (before a server's own idle timeout would race a write). */
  idleMs: number;
  /** Opens a connection to the origin, plain or TLS (the outbound client's guarded connector). */
  connect: () => Promise<Socket>;
  /** The Host header: the origin's host (and port when not the scheme's default). */
  host: string;
}

export class ConnectionLostError extends Error {}

/** Called once with the answer, or with why there is none (ConnectionLostError, an abort, a bad header). */
export type AnswerCallback = (outcome: Http1Response | Error) => void;

interface Pending {
  head: string;
  done: AnswerCallback;
  queuedAt: number;
  sentAt: number;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

interface Connection {
  socket: Socket;
  reader: Http1ResponseReader;
  inFlight: Pending[];
  /** The server said it closes: nothing more is written here. */
  closing: boolean;
  lastUsed: number;
}

const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** A connection whose oldest unanswered request is older than this takes no more for now. */
export const STALLED_AFTER_MS = 50;

export class PipelinedSender {
  private readonly open = new Set<Connection>();
  private connecting = 0;
  private waiting: Pending[] = [];
  private flushScheduled = false;
  private closed = false;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly settings: PipelinedSenderSettings) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(1000, settings.timeoutMs)).unref();
  }

  /**
   * Sends one request without a body and resolves with its answer. Header values must be latin1 without control
   * characters (a visitor's User-Agent as Node parsed it); `signal` gives up on the request.
   */
  request(method: 'GET' | 'POST', pathAndQuery: string, headers: Record<string, string>, signal?: AbortSignal) {
    return new Promise<Http1Response>((resolve, reject) =>
      this.submit(
        method,
        pathAndQuery,
        headers,
        (outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome)),
        signal,
      ),
    );
  }

  /**
   * `request` without a promise: `done` is called once, never before this returns, with the answer or the error.
   * Without a signal, the answer comes within `timeoutMs` (and a second for the sweep) or the connection is dropped.
   */
  submit(
    method: 'GET' | 'POST',
    pathAndQuery: string,
    headers: Record<string, string>,
    done: AnswerCallback,
    signal?: AbortSignal,
  ): void {
    let head = `${method} ${pathAndQuery} HTTP/1.1\r\nhost: ${this.settings.host}\r\n`;
    for (const name in headers) {
      const value = headers[name];
      if (!HEADER_VALUE.test(value))
        return void later(done, new TypeError(`The ${name} header has invalid characters.`));
      head += `${name}: ${value}\r\n`;
    }
    head += method === 'POST' ? 'content-length: 0\r\n\r\n' : '\r\n';
    if (this.closed) return void later(done, new ConnectionLostError('The sender is closed.'));
    if (signal?.aborted) return void later(done, abortError(signal));
    const pending: Pending = { head, done, queuedAt: performance.now(), sentAt: 0, signal, onAbort: undefined };
    if (signal) {
      pending.onAbort = () => this.abandon(pending);
      signal.addEventListener('abort', pending.onAbort, { once: true });
    }
    this.waiting.push(pending);
    this.scheduleFlush();
  }

  /** Rejects what is waiting and in flight, and closes every connection. */
  close(): void {
    this.closed = true;
    clearInterval(this.sweeper);
    for (const pending of this.waiting.splice(0)) settle(pending, new ConnectionLostError('The sender is closed.'));
    for (const connection of this.open) this.drop(connection, new ConnectionLostError('The sender is closed.'));
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  /** Hands waiting requests to connections with room, one write each; opens a connection when they are full. */
  private flush(): void {
    const now = performance.now();
    for (const connection of this.open) {
      if (this.waiting.length === 0) break;
      if (connection.closing) continue;
      const room = this.settings.depth - connection.inFlight.length;
      if (room <= 0 || (connection.inFlight.length > 0 && now - connection.inFlight[0].sentAt > STALLED_AFTER_MS))
        continue;
      const batch = this.waiting.splice(0, room);
      let bytes = '';
      for (const pending of batch) {
        pending.sentAt = now;
        connection.inFlight.push(pending);
        bytes += pending.head;
      }
      connection.lastUsed = now;
      connection.socket.write(bytes, 'latin1');
    }
    if (this.waiting.length > 0 && this.open.size + this.connecting < this.settings.connections) this.openConnection();
  }

  private openConnection(): void {
    this.connecting++;
    this.settings.connect().then(
      (socket) => {
        this.connecting--;
        if (this.closed) return void socket.destroy();
        this.adopt(socket);
        this.flush();
      },
      (error: Error) => {
        this.connecting--;
        // With no connection to wait for, nothing would ever send what waits: it fails now (and is retried).
        if (this.open.size === 0 && this.connecting === 0)
          for (const pending of this.waiting.splice(0)) settle(pending, new ConnectionLostError(error.message));
      },
    );
  }

  private adopt(socket: Socket): void {
    const connection: Connection = {
      socket,
      reader: new Http1ResponseReader(),
      inFlight: [],
      closing: false,
      lastUsed: performance.now(),
    };
    this.open.add(connection);
    socket.on('data', (chunk: Buffer) => this.answered(connection, chunk));
    socket.on('error', (error) => this.drop(connection, new ConnectionLostError(error.message)));
    socket.on('close', () => this.drop(connection, new ConnectionLostError('The vendor closed the connection.')));
  }

  private answered(connection: Connection, chunk: Buffer): void {
    let responses: Http1Response[];
    try {
      responses = connection.reader.push(chunk);
    } catch (error) {
      this.drop(connection, new ConnectionLostError((error as Error).message));
      return;
    }
    for (const response of responses) {
      const pending = connection.inFlight.shift();
      if (!pending) {
        this.drop(connection, new ConnectionLostError('An answer to no request.'));
        return;
      }
      settle(pending, response);
      if (response.closes) {
        connection.closing = true;
        // Written after the last answer the server gives: not processed, so sent again elsewhere.
        this.waiting.unshift(...connection.inFlight.splice(0));
        connection.socket.end();
        break;
      }
    }
    connection.lastUsed = performance.now();
    if (this.waiting.length > 0) this.scheduleFlush();
  }

  /** Ends a connection: an answer delimited by the close completes; what is still on it fails. */
  private drop(connection: Connection, error: Error): void {
    if (!this.open.delete(connection)) return;
    const last = connection.reader.end();
    if (last && connection.inFlight.length > 0) settle(connection.inFlight.shift()!, last);
    for (const pending of connection.inFlight.splice(0)) settle(pending, error);
    connection.socket.destroy();
    if (this.waiting.length > 0 && !this.closed) this.scheduleFlush();
  }

  /** A request given up: removed if not written yet; if written, its connection goes (its answer would be late). */
  private abandon(pending: Pending): void {
    const at = this.waiting.indexOf(pending);
    if (at !== -1) {
      this.waiting.splice(at, 1);
      settle(pending, abortError(pending.signal!));
      return;
    }
    for (const connection of this.open)
      if (connection.inFlight.includes(pending)) {
        connection.inFlight.splice(connection.inFlight.indexOf(pending), 1);
        settle(pending, abortError(pending.signal!));
        this.drop(connection, new ConnectionLostError('A request on this connection was given up.'));
        return;
      }
  }

  /**
   * Fails requests no connection took within the timeout (none could be opened), drops connections whose oldest
   * request waited past it for its answer, and closes the idle ones.
   */
  private sweep(): void {
    const now = performance.now();
    if (this.waiting.some((pending) => now - pending.queuedAt > this.settings.timeoutMs)) {
      const waiting = this.waiting;
      this.waiting = [];
      for (const pending of waiting)
        if (now - pending.queuedAt <= this.settings.timeoutMs) this.waiting.push(pending);
        else settle(pending, new ConnectionLostError('No connection to the vendor in time.'));
    }
    for (const connection of this.open) {
      const oldest = connection.inFlight[0];
      if (oldest && now - oldest.sentAt > this.settings.timeoutMs)
        this.drop(connection, new ConnectionLostError('The vendor did not answer in time.'));
      else if (!oldest && now - connection.lastUsed > this.settings.idleMs) {
        this.open.delete(connection);
        connection.socket.end();
      }
    }
  }
}

function settle(pending: Pending, outcome: Http1Response | Error): void {
  if (pending.onAbort) pending.signal!.removeEventListener('abort', pending.onAbort);
  pending.done(outcome);
}

/** A callback for a request refused before it was queued, called after the caller's turn as the others are. */
function later(done: AnswerCallback, error: Error): void {
  process.nextTick(done, error);
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new ConnectionLostError('The request was given up.');
}
