import type http from 'node:http';
import type { Socket } from 'node:net';
import { writeGatewayError } from './answers.js';
import { KEEP_ALIVE_SECONDS, LaneReply } from './http1/lane-reply.js';
import { MAX_REQUEST_HEAD_BYTES, parsePlainGet, type RequestHead } from './http1/request-head.js';

/**
 * Serves a plain GET the lane read: true when served (its answer written, or being written once the promise
 * resolves), false when it is not the lane's to serve; then nothing has been done, and Node's http server serves it.
 */
export type LaneServe = (req: RequestHead, reply: LaneReply) => boolean | Promise<boolean>;

type ConnectionListener = (this: http.Server, socket: Socket) => void;

/**
 * The gateway's hit path below Node's http objects. A connection starts here: each request whose head is a plain
 * HTTP/1.1 GET (request-head.ts) is offered to `serve`, which answers the collection hits of builtin containers
 * (the bulk of a gateway's traffic, a few hundred bytes each way) without an IncomingMessage, a ServerResponse or
 * their events. At the first request the lane does not serve, the connection and what was read of it go to Node's
 * http server for good, which serves everything else exactly as before. Answers keep the order of the requests.
 */
export class HitLane {
  private readonly connections = new Set<LaneConnection>();
  private closing = false;

  constructor(
    private readonly serve: LaneServe,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Takes over `server`'s new connections; Node's own connection listener gets those the lane hands on. */
  attach(server: http.Server): void {
    const [nodeListener] = server.listeners('connection') as ConnectionListener[];
    server.removeListener('connection', nodeListener);
    server.on('connection', (socket: Socket) => {
      if (this.closing) return void nodeListener.call(server, socket);
      const connection = new LaneConnection(socket, this.serve, this.onError, (handed, rest) => {
        this.connections.delete(connection);
        nodeListener.call(server, handed);
        // Emitted at once, so Node's parser reads it before anything that arrives later on the socket.
        if (rest.length > 0) handed.emit('data', rest);
      });
      this.connections.add(connection);
      socket.once('close', () => this.connections.delete(connection));
    });
  }

  /** Closes the connections that wait for a request; those answering one close once it is answered. */
  close(): void {
    this.closing = true;
    for (const connection of this.connections) connection.closeWhenIdle();
  }
}

class LaneConnection {
  /** What was read and not yet served, as latin1 (one character per byte). */
  private pending = '';
  private busy = false;
  private closeWhenDone = false;
  private readonly onData = (chunk: Buffer) => {
    this.pending += chunk.toString('latin1');
    this.drain();
  };

  constructor(
    private readonly socket: Socket,
    private readonly serve: LaneServe,
    private readonly onError: (error: unknown) => void,
    private readonly handOn: (socket: Socket, rest: Buffer) => void,
  ) {
    socket.on('data', this.onData);
    socket.on('error', this.ignore);
    // The client is done sending (the gateway's server allows half-open connections): finish what it asked, then close.
    socket.on('end', this.finish);
    socket.setTimeout(KEEP_ALIVE_SECONDS * 1000, this.expire);
  }

  closeWhenIdle(): void {
    if (this.busy) this.closeWhenDone = true;
    else this.socket.destroy();
  }

  private readonly finish = () => {
    if (this.busy) this.closeWhenDone = true;
    else this.socket.end();
  };

  /** Serves the complete requests read so far, in order, until one is not the lane's or waits on a promise. */
  private drain(): void {
    while (!this.busy && !this.socket.destroyed) {
      const end = this.pending.indexOf('\r\n\r\n');
      if (end === -1) {
        if (this.pending.length > MAX_REQUEST_HEAD_BYTES) this.handOnRest();
        else if (this.closeWhenDone) this.socket.end();
        return;
      }
      const req = end > MAX_REQUEST_HEAD_BYTES ? null : parsePlainGet(this.pending, end, this.socket);
      if (!req) return void this.handOnRest();
      const reply = new LaneReply(this.socket);
      const served = this.serveSafely(req, reply);
      if (served === false) return void this.handOnRest();
      if (served instanceof Promise) return void this.await(served, reply, end);
      this.pending = this.pending.slice(end + 4);
      if (this.socket.writableNeedDrain) return void this.waitForDrain();
    }
  }

  private serveSafely(req: RequestHead, reply: LaneReply): boolean | Promise<boolean> {
    try {
      return this.serve(req, reply);
    } catch (error) {
      return this.failed(error, reply);
    }
  }

  private await(served: Promise<boolean>, reply: LaneReply, end: number) {
    this.busy = true;
    served
      .catch((error) => this.failed(error, reply))
      .then((done) => {
        this.busy = false;
        if (!done) return this.handOnRest();
        this.pending = this.pending.slice(end + 4);
        this.drain();
      })
      .catch((error) => {
        this.onError(error);
        this.socket.destroy();
      });
  }

  /** A request the lane took that failed: answered 500 as the gateway answers a failure, when nothing was written. */
  private failed(error: unknown, reply: LaneReply): true {
    this.onError(error);
    if (!reply.sent) writeGatewayError(reply, 500, 'gateway_error', 'The gateway failed to handle the request.');
    else this.socket.destroy();
    return true;
  }

  private waitForDrain() {
    this.socket.pause();
    this.socket.once('drain', () => {
      this.socket.resume();
      this.drain();
    });
  }

  private handOnRest() {
    if (this.socket.destroyed) return;
    this.socket.removeListener('data', this.onData);
    this.socket.removeListener('error', this.ignore);
    this.socket.removeListener('end', this.finish);
    this.socket.setTimeout(0);
    this.socket.removeListener('timeout', this.expire);
    const rest = Buffer.from(this.pending, 'latin1');
    this.pending = '';
    this.handOn(this.socket, rest);
  }

  private readonly expire = () => {
    if (!this.busy) this.socket.destroy();
  };

  private readonly ignore = () => {};
}
