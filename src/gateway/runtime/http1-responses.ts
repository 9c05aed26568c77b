/** What the pipelined sender needs of a vendor's answer: its status, when to come back, and whether it closes. */
export interface Http1Response {
  status: number;
  /** The `Retry-After` header, as sent. */
  retryAfter: string | null;
  /** The server closes the connection after this answer (`Connection: close`, or a body delimited by the close). */
  closes: boolean;
}

/** A vendor answered something that is not HTTP/1.x: the connection cannot be trusted any more. */
export class MalformedResponseError extends Error {}

const MAX_HEAD_BYTES = 64 * 1024;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: |$)/;

type Body =
  | { kind: 'length'; remaining: number }
  | { kind: 'chunked'; remaining: number; trailers: boolean }
  | { kind: 'until-close' };

/**
 * Reads the answers to pipelined HTTP/1.1 requests off one connection, in order, however the bytes are split:
 * status lines and headers, then each body skipped by `Content-Length`, chunked encoding or the close. Bodies are
 * not kept (a collection endpoint's answer is its status). Works on latin1 text, where one character is one byte.
 */
export class Http1ResponseReader {
  private buffer = '';
  private head: Http1Response | null = null;
  private body: Body | null = null;

  /** The answers completed by these bytes; throws MalformedResponseError on anything that is not HTTP/1.x. */
  push(chunk: Buffer): Http1Response[] {
    this.buffer += chunk.toString('latin1');
    const done: Http1Response[] = [];
    for (;;) {
      if (!this.head && !this.readHead()) break;
      if (!this.skipBody()) break;
      done.push(this.head!);
      this.head = null;
      this.body = null;
    }
    return done;
  }

  /** The connection ended: an answer whose body runs to the close is complete now. */
  end(): Http1Response | null {
    if (this.head && this.body?.kind === 'until-close') {
      const response = this.head;
      this.head = null;
      this.body = null;
      return response;
    }
    return null;
  }

  private readHead(): boolean {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end === -1) {
      if (this.buffer.length > MAX_HEAD_BYTES) throw new MalformedResponseError('The answer has no end of headers.');
      return false;
    }
    const lines = this.buffer.slice(0, end).split('\r\n');
    this.buffer = this.buffer.slice(end + 4);
    const statusLine = STATUS_LINE.exec(lines[0]);
    const status = Number(statusLine?.[2] ?? Number.NaN);
    if (!Number.isFinite(status))
      throw new MalformedResponseError(`Not an HTTP/1.x status line: ${lines[0].slice(0, 80)}`);
    // An interim answer (100 Continue) precedes the real one.
    if (status < 200) return this.readHead();
    let length: number | null = null;
    let chunked = false;
    // An HTTP/1.0 server closes after each answer unless it says it keeps the connection.
    let closes = statusLine?.[1] === '0';
    let retryAfter: string | null = null;
    for (let i = 1; i < lines.length; i++) {
      const colon = lines[i].indexOf(':');
      if (colon <= 0) throw new MalformedResponseError('A header line without a name.');
      const name = lines[i].slice(0, colon).trim().toLowerCase();
      const value = lines[i].slice(colon + 1).trim();
      if (name === 'content-length') length = strictLength(value);
      else if (name === 'transfer-encoding') chunked = /(?:^|,)\s*chunked\s*$/i.test(value);
      else if (name === 'connection') closes = connectionCloses(value, closes);
      else if (name === 'retry-after') retryAfter = value;
    }
    const bodiless = status === 204 || status === 304;
    this.body = bodiless
      ? { kind: 'length', remaining: 0 }
      : chunked
        ? { kind: 'chunked', remaining: -1, trailers: false }
        : length !== null
          ? { kind: 'length', remaining: length }
          : { kind: 'until-close' };
    this.head = { status, retryAfter, closes: closes || this.body.kind === 'until-close' };
    return true;
  }

  /** Consumes the current body from the buffer; true once it is all read. */
  private skipBody(): boolean {
    const body = this.body!;
    if (body.kind === 'until-close') {
      this.buffer = '';
      return false;
    }
    if (body.kind === 'length') {
      const taken = Math.min(body.remaining, this.buffer.length);
      this.buffer = this.buffer.slice(taken);
      body.remaining -= taken;
      return body.remaining === 0;
    }
    return this.skipChunks(body);
  }

  private skipChunks(body: Extract<Body, { kind: 'chunked' }>): boolean {
    for (;;) {
      if (body.trailers) {
        const end = this.buffer.indexOf('\r\n');
        if (end === -1) return false;
        this.buffer = this.buffer.slice(end + 2);
        if (end === 0) return true;
        continue;
      }
      if (body.remaining === -1) {
        const end = this.buffer.indexOf('\r\n');
        if (end === -1) return false;
        const size = Number.parseInt(this.buffer.slice(0, end).split(';')[0].trim(), 16);
        if (!Number.isFinite(size) || size < 0) throw new MalformedResponseError('A chunk without a valid size.');
        this.buffer = this.buffer.slice(end + 2);
        if (size === 0) body.trailers = true;
        else body.remaining = size + 2; // the chunk and its CRLF
        continue;
      }
      const taken = Math.min(body.remaining, this.buffer.length);
      this.buffer = this.buffer.slice(taken);
      body.remaining -= taken;
      if (body.remaining > 0) return false;
      body.remaining = -1;
    }
  }
}

function connectionCloses(value: string, byDefault: boolean): boolean {
  const options = value
    .toLowerCase()
    .split(',')
    .map((option) => option.trim());
  if (options.includes('close')) return true;
  return options.includes('keep-alive') ? false : byDefault;
}

function strictLength(value: string): number {
  if (!/^\d{1,15}$/.test(value)) throw new MalformedResponseError(`Not a valid Content-Length: ${value.slice(0, 40)}`);
  return Number(value);
}
