import net from 'node:net';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LaneReply } from '../../../src/gateway/http1/lane-reply.js';
import { parsePlainGet } from '../../../src/gateway/http1/request-head.js';

const socket = new net.Socket();
const parse = (head: string) => parsePlainGet(`${head}\r\n\r\n`, head.length, socket);

describe('parsePlainGet: the requests the hit lane reads itself', () => {
  it('reads a plain GET: target, lower-cased headers with trimmed values, raw headers in order', () => {
    const req = parse(
      'GET /g/collect?v=2&tid=G-1 HTTP/1.1\r\nHost: a.example\r\nUser-Agent:  Mozilla/5.0 (X11)  \r\nCookie: FPID=x; _ga=y\r\nConnection: keep-alive\r\nContent-Length: 0',
    );
    expect(req).toMatchObject({ method: 'GET', url: '/g/collect?v=2&tid=G-1', httpVersionMajor: 1, socket });
    expect({ ...req!.headers }).toEqual({
      host: 'a.example',
      'user-agent': 'Mozilla/5.0 (X11)',
      cookie: 'FPID=x; _ga=y',
      connection: 'keep-alive',
      'content-length': '0',
    });
    expect(req!.rawHeaders.slice(0, 4)).toEqual(['Host', 'a.example', 'User-Agent', 'Mozilla/5.0 (X11)']);
  });

  it('reads only up to the blank line it is given (the next pipelined request stays unread)', () => {
    const text = 'GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: b\r\n\r\n';
    const req = parsePlainGet(text, text.indexOf('\r\n\r\n'), socket);
    expect(req?.url).toBe('/a');
    expect(req?.headers.host).toBe('a');
  });

  // Each of these is left to Node's parser, which serves it or answers what is malformed.
  it.each([
    ['another method', 'POST /g/collect HTTP/1.1\r\nHost: a'],
    ['HEAD', 'HEAD /g/collect HTTP/1.1\r\nHost: a'],
    ['HTTP/1.0', 'GET /g/collect HTTP/1.0\r\nHost: a'],
    ['HTTP/2 preface-like version', 'GET /g/collect HTTP/2.0\r\nHost: a'],
    ['an absolute-form target', 'GET http://a/g/collect HTTP/1.1\r\nHost: a'],
    ['a space in the target', 'GET /g/coll ect HTTP/1.1\r\nHost: a'],
    ['a lower-case method', 'get /g/collect HTTP/1.1\r\nHost: a'],
    ['no Host', 'GET /g/collect HTTP/1.1\r\nUser-Agent: x'],
    ['two Host headers', 'GET /g/collect HTTP/1.1\r\nHost: a\r\nHost: b'],
    ['a repeated header in another case', 'GET /g/collect HTTP/1.1\r\nHost: a\r\ncookie: a=1\r\nCookie: b=2'],
    ['a body length', 'GET /g/collect HTTP/1.1\r\nHost: a\r\nContent-Length: 5'],
    ['chunked', 'GET /g/collect HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked'],
    ['Expect', 'GET /g/collect HTTP/1.1\r\nHost: a\r\nExpect: 100-continue'],
    ['Upgrade', 'GET /g/collect HTTP/1.1\r\nHost: a\r\nUpgrade: websocket'],
    ['Connection: close', 'GET /g/collect HTTP/1.1\r\nHost: a\r\nConnection: close'],
    ['Connection: upgrade', 'GET /g/collect HTTP/1.1\r\nHost: a\r\nConnection: Upgrade'],
    ['a folded line', 'GET /g/collect HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n 2'],
    ['a space before the colon', 'GET /g/collect HTTP/1.1\r\nHost : a'],
    ['a bare LF inside a value', 'GET /g/collect HTTP/1.1\r\nHost: a\r\nX-A: 1\n2'],
    ['a bare CR inside a value', 'GET /g/collect HTTP/1.1\r\nHost: a\r\nX-A: 1\r2'],
    ['a NUL in a value', 'GET /g/collect HTTP/1.1\r\nHost: a\r\nX-A: 1\u00002'],
    ['a control character in the target', 'GET /g/collect\u0001 HTTP/1.1\r\nHost: a'],
    ['a line without a colon', 'GET /g/collect HTTP/1.1\r\nHost: a\r\nnonsense'],
  ])('hands on %s', (_case, head) => {
    expect(parse(head)).toBeNull();
  });
});

/** A LaneReply writing into a stream, and what it wrote. */
function replying() {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { reply: new LaneReply(sink as unknown as net.Socket), written: () => Buffer.concat(chunks).toString('utf8') };
}

describe('LaneReply: the answers the hit lane writes', () => {
  it('writes a 204 with every value of a header, a Date, keep-alive and no length or body', () => {
    const { reply, written } = replying();
    reply
      .writeHead(204, { 'cache-control': 'no-store', 'set-cookie': ['FPID=1; Path=/', 'a=2'], skipped: undefined })
      .end();
    const [head, rest] = written().split('\r\n\r\n');
    const lines = head.split('\r\n');
    expect(lines[0]).toBe('HTTP/1.1 204 No Content');
    expect(lines).toContain('set-cookie: FPID=1; Path=/');
    expect(lines).toContain('set-cookie: a=2');
    expect(lines).toContain('Connection: keep-alive');
    expect(lines).toContain('Keep-Alive: timeout=5');
    expect(new Date(lines.find((line) => line.startsWith('Date: '))!.slice(6)).getTime()).toBeGreaterThan(
      Date.now() - 2000,
    );
    expect(lines.some((line) => /^content-length/i.test(line) || line.startsWith('skipped'))).toBe(false);
    expect(rest).toBe('');
    expect(reply.status).toBe(204);
  });

  it('writes a body with its length in bytes (UTF-8), or the length it was given', () => {
    const first = replying();
    first.reply.writeHead(503, { 'content-type': 'application/json' }).end('{"é":1}');
    expect(first.written()).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(first.written()).toContain('Content-Length: 8\r\n');
    expect(first.written().endsWith('\r\n\r\n{"é":1}')).toBe(true);
    const second = replying();
    second.reply.writeHead(200, { 'content-length': 2 }).end('ok');
    expect(second.written().match(/content-length/gi)).toHaveLength(1);
  });

  it('refuses a header value that could split the answer, before writing anything', () => {
    const { reply, written } = replying();
    expect(() => reply.writeHead(204, { 'access-control-allow-origin': 'https://a\r\nSet-Cookie: x=1' }).end()).toThrow(
      /Invalid character/,
    );
    expect(written()).toBe('');
  });
});
