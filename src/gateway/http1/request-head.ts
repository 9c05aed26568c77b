import type http from 'node:http';

/**
 * What the gateway reads of a request before deciding how to serve it: an `http.IncomingMessage`, or a request the hit
 * lane (src/gateway/hit-lane.ts) read off the socket itself.
 */
export type RequestHead = Pick<
  http.IncomingMessage,
  'method' | 'url' | 'headers' | 'rawHeaders' | 'socket' | 'httpVersionMajor'
>;

/** A request target's path and query (without the `?`). */
export function splitTarget(url: string): { path: string; query: string } {
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? { path: url, query: '' } : { path: url.slice(0, queryAt), query: url.slice(queryAt + 1) };
}

/** Node's own limit on a request head (`--max-http-header-size`): longer ones get its 431. */
export const MAX_REQUEST_HEAD_BYTES = 16 * 1024;

const REQUEST_LINE = /^GET (\/[\x21-\x7e]*) HTTP\/1\.1$/;
/** A header field is a token name, a colon, then a value of visible characters, spaces and tabs (RFC 9110 §5). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What a header value may not hold (Node's ERR_INVALID_CHAR for the values it writes): a value with it could split a message. */
export const NOT_IN_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const isBlank = (code: number) => code === 0x20 || code === 0x09;
/** Headers whose presence means the request is not a plain GET without a body, or asks for something special. */
const HANDED_ON = new Set(['transfer-encoding', 'expect', 'upgrade', 'te', 'trailer']);

/**
 * A plain HTTP/1.1 GET read from `text` (latin1) up to `end`, the index of its blank line: only the simplest shape,
 * which cannot mean two things to two parsers. Anything else, however valid (another method, HTTP/1.0, a body, a
 * repeated header, `Connection` other than keep-alive, folded lines, control characters), is null, and Node's own
 * parser serves it and answers what is malformed.
 */
export function parsePlainGet(text: string, end: number, socket: http.IncomingMessage['socket']): RequestHead | null {
  let lineEnd = text.indexOf('\r\n');
  if (lineEnd === -1 || lineEnd > end) lineEnd = end;
  const requestLine = REQUEST_LINE.exec(text.slice(0, lineEnd));
  if (!requestLine) return null;
  const headers: Record<string, string> = Object.create(null);
  const rawHeaders: string[] = [];
  let at = lineEnd + 2;
  while (at < end) {
    let next = text.indexOf('\r\n', at);
    if (next === -1 || next > end) next = end;
    const colon = text.indexOf(':', at);
    if (colon === -1 || colon > next) return null;
    const rawName = text.slice(at, colon);
    let from = colon + 1;
    let to = next;
    while (from < to && isBlank(text.charCodeAt(from))) from++;
    while (to > from && isBlank(text.charCodeAt(to - 1))) to--;
    const value = text.slice(from, to);
    if (!TOKEN.test(rawName) || NOT_IN_HEADER_VALUE.test(value)) return null;
    const name = rawName.toLowerCase();
    if (name in headers || HANDED_ON.has(name)) return null;
    headers[name] = value;
    rawHeaders.push(rawName, value);
    at = next + 2;
  }
  if (!headers.host) return null;
  if (headers['content-length'] !== undefined && headers['content-length'] !== '0') return null;
  if (headers.connection !== undefined && headers.connection.toLowerCase() !== 'keep-alive') return null;
  return { method: 'GET', url: requestLine[1], headers, rawHeaders, socket, httpVersionMajor: 1 };
}
