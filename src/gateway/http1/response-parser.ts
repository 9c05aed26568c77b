/** A server answered something that is not HTTP/1.x: the connection cannot be trusted any more. */
export class MalformedResponseError extends Error {}

/** The head of a final answer (interim 1xx answers are skipped). */
export interface ResponseHead {
  status: number;
  /** Header names (lower case) and values, in the order sent: `[name, value, name, value, …]`. */
  headers: string[];
  /** The server closes the connection after this answer (`Connection: close`, HTTP/1.0, a body up to the close). */
  closes: boolean;
}

/** What the parser reports, answer after answer. */
export interface ResponseEvents {
  head(head: ResponseHead): void;
  /** A piece of the body as it arrives, de-chunked; a view into the pushed bytes, valid until the next push. */
  body(chunk: Buffer): void;
  end(): void;
}

const MAX_HEAD_BYTES = 64 * 1024;
const MAX_CHUNK_LINE_BYTES = 4 * 1024;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: |$)/;
const CRLF = Buffer.from('\r\n');
const END_OF_HEAD = Buffer.from('\r\n\r\n');

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'until-close';

/**
 * Reads HTTP/1.1 answers off one connection, in order, however the bytes are split: status line and headers, then
 * the body by `Content-Length`, chunked encoding or the close, handed on as it arrives (chunked bodies de-chunked).
 * Several answers in one push are read in turn (pipelining). Throws MalformedResponseError on anything else.
 */
export class Http1ResponseParser {
  private state: State = 'head';
  /** Bytes of a head or a chunk line not complete yet. */
  private pending: Buffer | null = null;
  /** Body bytes left in the current length-delimited body or chunk (or of a chunk's CRLF). */
  private remaining = 0;
  /** How many of the next answers are to HEAD requests (no body, whatever their headers say). */
  private bodylessAnswers = 0;

  constructor(private readonly events: ResponseEvents) {}

  /** The next answer not yet begun is to a HEAD request. */
  expectHeadAnswer(): void {
    this.bodylessAnswers++;
  }

  /** Between answers, with nothing buffered: a connection in this state can carry another request. */
  get idle(): boolean {
    return this.state === 'head' && this.pending === null;
  }

  push(chunk: Buffer): void {
    let data = chunk;
    if (this.pending) {
      data = Buffer.concat([this.pending, chunk]);
      this.pending = null;
    }
    let at = 0;
    while (at < data.length) at = this.step(data, at);
  }

  /** The connection ended: an answer whose body runs to the close ends now. False when one was cut short. */
  finish(): boolean {
    if (this.state === 'until-close') {
      this.state = 'head';
      this.events.end();
      return true;
    }
    return this.idle;
  }

  private step(data: Buffer, at: number): number {
    switch (this.state) {
      case 'head':
        return this.readHead(data, at);
      case 'length':
      case 'chunk-data':
        return this.readBody(data, at);
      case 'chunk-size':
        return this.readChunkSize(data, at);
      case 'chunk-end':
        return this.readChunkEnd(data, at);
      case 'trailers':
        return this.readTrailer(data, at);
      case 'until-close':
        this.events.body(data.subarray(at));
        return data.length;
    }
  }

  private readHead(data: Buffer, at: number): number {
    const end = data.indexOf(END_OF_HEAD, at);
    if (end === -1) return this.keep(data, at, MAX_HEAD_BYTES, 'The answer has no end of headers.');
    const lines = data.toString('latin1', at, end).split('\r\n');
    const statusLine = STATUS_LINE.exec(lines[0]);
    if (!statusLine) throw new MalformedResponseError(`Not an HTTP/1.x status line: ${lines[0].slice(0, 80)}`);
    const status = Number(statusLine[2]);
    if (status < 200) return end + 4; // an interim answer (100 Continue) precedes the real one
    const framing = readHeaders(lines, statusLine[1] === '0');
    // An answer to HEAD is counted off whatever its status, so the answers after it are matched to their requests.
    const toHead = this.takeBodyless();
    const bodyless = toHead || status === 204 || status === 304;
    const closes = framing.closes || (!bodyless && framing.kind === 'until-close');
    this.events.head({ status, headers: framing.headers, closes });
    if (bodyless || (framing.kind === 'length' && framing.length === 0)) this.events.end();
    else if (framing.kind === 'length') {
      this.state = 'length';
      this.remaining = framing.length;
    } else this.state = framing.kind === 'chunked' ? 'chunk-size' : 'until-close';
    return end + 4;
  }

  private takeBodyless(): boolean {
    if (this.bodylessAnswers === 0) return false;
    this.bodylessAnswers--;
    return true;
  }

  private readBody(data: Buffer, at: number): number {
    const taken = Math.min(this.remaining, data.length - at);
    this.remaining -= taken;
    // The state moves on before the piece is handed over: a listener may push the next bytes from inside.
    const last = this.remaining === 0;
    if (last) this.state = this.state === 'length' ? 'head' : 'chunk-end';
    if (last && this.state === 'chunk-end') this.remaining = 2;
    this.events.body(data.subarray(at, at + taken));
    if (last && this.state === 'head') this.events.end();
    return at + taken;
  }

  private readChunkSize(data: Buffer, at: number): number {
    const end = data.indexOf(CRLF, at);
    if (end === -1) return this.keep(data, at, MAX_CHUNK_LINE_BYTES, 'A chunk size line without an end.');
    const sizeText = data.toString('latin1', at, end).split(';')[0].trim();
    if (!/^[0-9a-fA-F]{1,12}$/.test(sizeText)) throw new MalformedResponseError('A chunk without a valid size.');
    const size = Number.parseInt(sizeText, 16);
    this.state = size === 0 ? 'trailers' : 'chunk-data';
    this.remaining = size;
    return end + 2;
  }

  private readChunkEnd(data: Buffer, at: number): number {
    const expected = this.remaining === 2 ? 13 : 10; // \r then \n
    if (data[at] !== expected) throw new MalformedResponseError('A chunk not followed by CRLF.');
    this.remaining--;
    if (this.remaining === 0) this.state = 'chunk-size';
    return at + 1;
  }

  private readTrailer(data: Buffer, at: number): number {
    const end = data.indexOf(CRLF, at);
    if (end === -1) return this.keep(data, at, MAX_HEAD_BYTES, 'Trailers without an end.');
    if (end === at) {
      this.state = 'head';
      this.events.end();
    }
    return end + 2;
  }

  /** Keeps an incomplete line for the next push, up to a limit. */
  private keep(data: Buffer, at: number, limit: number, tooLong: string): number {
    if (data.length - at > limit) throw new MalformedResponseError(tooLong);
    this.pending = Buffer.from(data.subarray(at));
    return data.length;
  }
}

type Framing = { headers: string[]; closes: boolean } & (
  | { kind: 'length'; length: number }
  | { kind: 'chunked' }
  | { kind: 'until-close' }
);

/** The header lines after the status line, and how the body is delimited (RFC 9112 §6.3). */
function readHeaders(lines: string[], http10: boolean): Framing {
  const headers: string[] = [];
  let length: number | null = null;
  let transferEncoding: string | null = null;
  // An HTTP/1.0 server closes after each answer unless it says it keeps the connection.
  let closes = http10;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const colon = line.indexOf(':');
    if (colon <= 0 || line[0] === ' ' || line[0] === '\t')
      throw new MalformedResponseError('A header line without a name.');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-length') length = contentLength(value, length);
    else if (name === 'transfer-encoding')
      transferEncoding = transferEncoding ? `${transferEncoding}, ${value}` : value;
    else if (name === 'connection') closes = connectionCloses(value, closes);
    headers.push(name, value);
  }
  if (transferEncoding !== null) {
    // Chunked last is the framing; any other transfer coding runs to the close. Either way Content-Length is ignored.
    const chunked = /(?:^|,)\s*chunked\s*$/i.test(transferEncoding);
    return { headers, closes, kind: chunked ? 'chunked' : 'until-close' };
  }
  return length === null ? { headers, closes, kind: 'until-close' } : { headers, closes, kind: 'length', length };
}

function connectionCloses(value: string, byDefault: boolean): boolean {
  const options = value
    .toLowerCase()
    .split(',')
    .map((option) => option.trim());
  if (options.includes('close')) return true;
  return options.includes('keep-alive') ? false : byDefault;
}

/** A Content-Length: digits only, and the same each time it is repeated. */
function contentLength(value: string, earlier: number | null): number {
  const values = value.split(',').map((part) => part.trim());
  const lengths = new Set(values);
  const [only] = lengths;
  if (lengths.size !== 1 || !/^\d{1,15}$/.test(only) || (earlier !== null && earlier !== Number(only)))
    throw new MalformedResponseError(`Not a valid Content-Length: ${value.slice(0, 40)}`);
  return Number(only);
}
