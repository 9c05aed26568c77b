import http from 'node:http';
import type { Socket } from 'node:net';
import type { Reply } from '../answers.js';
import { NOT_IN_HEADER_VALUE } from './request-head.js';

/** Node's keep-alive timeout, announced as its http server does. */
export const KEEP_ALIVE_SECONDS = 5;

let dateSecond = 0;
let dateLine = '';
/** The `Date` line, made once a second (as Node's http server does). */
function currentDateLine(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateLine = `Date: ${new Date(now).toUTCString()}\r\n`;
  }
  return dateLine;
}

/** One header line per value; throws on a value Node would refuse, so no answer is ever split by what it echoes. */
function headerLines(headers: http.OutgoingHttpHeaders): string {
  let lines = '';
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      const text = String(item);
      if (NOT_IN_HEADER_VALUE.test(text))
        throw new TypeError(`Invalid character in the value of the header "${name}".`);
      lines += `${name}: ${text}\r\n`;
    }
  }
  return lines;
}

/**
 * An answer of the hit lane, written to the connection in one piece with the headers Node's http server would add
 * (`Date`, `Connection: keep-alive`, `Keep-Alive`, `Content-Length` unless the status has no body).
 */
export class LaneReply implements Reply {
  status = 0;
  /** The answer went to the connection (a header Node would refuse throws before anything is written). */
  sent = false;
  private headers: http.OutgoingHttpHeaders = {};

  constructor(private readonly socket: Socket) {}

  writeHead(status: number, headers: http.OutgoingHttpHeaders): this {
    this.status = status;
    this.headers = headers;
    return this;
  }

  end(body?: string): void {
    const bodyless = this.status === 204 || this.status === 304;
    let head = `HTTP/1.1 ${this.status} ${http.STATUS_CODES[this.status] ?? 'Unknown'}\r\n${headerLines(this.headers)}`;
    if (!bodyless && this.headers['content-length'] === undefined)
      head += `Content-Length: ${body ? Buffer.byteLength(body) : 0}\r\n`;
    head += `${currentDateLine()}Connection: keep-alive\r\nKeep-Alive: timeout=${KEEP_ALIVE_SECONDS}\r\n\r\n`;
    this.sent = true;
    if (bodyless || !body) return void this.socket.write(head, 'latin1');
    this.socket.cork();
    this.socket.write(head, 'latin1');
    this.socket.write(body, 'utf8');
    this.socket.uncork();
  }
}
