import net from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { RelayConnections } from '../../../src/gateway/http1/connections.js';
import type { OutgoingRequest, RelayFailure } from '../../../src/gateway/http1/exchange.js';
import { Http1ResponseParser, MalformedResponseError } from '../../../src/gateway/http1/response-parser.js';

interface Answer {
  status: number;
  headers: string[];
  body: string;
}

/** Feeds bytes to a parser and collects whole answers (heads, bodies joined, ends). */
function reading(headAnswers = 0) {
  const answers: Answer[] = [];
  const parser = new Http1ResponseParser({
    head: ({ status, headers }) => answers.push({ status, headers, body: '' }),
    body: (chunk) => {
      answers[answers.length - 1].body += chunk.toString('latin1');
    },
    end: () => ends.push(answers.length),
  });
  const ends: number[] = [];
  for (let i = 0; i < headAnswers; i++) parser.expectHeadAnswer();
  return { parser, answers, ends };
}

const PIPELINE = [
  'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\nhello',
  'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n',
  'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nX-Trailer: y\r\n\r\n',
  'HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n',
  'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nto the close',
].join('');
const PIPELINE_ANSWERS: Answer[] = [
  { status: 200, headers: ['content-length', '5', 'set-cookie', 'a=1', 'set-cookie', 'b=2'], body: 'hello' },
  { status: 201, headers: ['content-length', '0'], body: '' },
  { status: 200, headers: ['transfer-encoding', 'chunked'], body: 'abc0123456789abcdef' },
  { status: 204, headers: ['content-length', '0'], body: '' },
  { status: 200, headers: ['content-type', 'text/plain'], body: 'to the close' },
];

describe('Http1ResponseParser', () => {
  it('reads answers in order with their bodies de-chunked, whole or a byte at a time', () => {
    const whole = reading();
    whole.parser.push(Buffer.from(PIPELINE, 'latin1'));
    expect(whole.ends).toEqual([1, 2, 3, 4]); // the last one runs to the close
    expect(whole.parser.finish()).toBe(true);
    expect(whole.answers).toEqual(PIPELINE_ANSWERS);
    expect(whole.ends).toEqual([1, 2, 3, 4, 5]);

    const bytes = Buffer.from(PIPELINE, 'latin1');
    const byteWise = reading();
    for (let i = 0; i < bytes.length; i++) byteWise.parser.push(bytes.subarray(i, i + 1));
    byteWise.parser.finish();
    expect(byteWise.answers).toEqual(PIPELINE_ANSWERS);
    expect(byteWise.ends).toEqual([1, 2, 3, 4, 5]);
  });

  it('reads no body after an answer to HEAD, whatever its Content-Length says', () => {
    const { parser, answers, ends } = reading(1);
    parser.push(
      Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'),
    );
    expect(answers.map(({ body }) => body)).toEqual(['', 'ok']);
    expect(ends).toEqual([1, 2]);
    expect(parser.idle).toBe(true);
  });

  it('counts an answer to HEAD off even when its status has no body anyway', () => {
    const { parser, answers } = reading(1);
    parser.push(Buffer.from('HTTP/1.1 304 Not Modified\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'));
    expect(answers.map(({ status, body }) => [status, body])).toEqual([
      [304, ''],
      [200, 'ok'],
    ]);
  });

  it('says an answer was cut short when the connection ends inside it', () => {
    const { parser } = reading();
    parser.push(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nonly'));
    expect(parser.finish()).toBe(false);
  });

  it.each([
    ['a status line that is not HTTP', 'SSH-2.0-OpenSSH\r\n\r\n'],
    ['two different lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n'],
    ['a folded header line', 'HTTP/1.1 200 OK\r\nX-A: 1\r\n  2\r\n\r\n'],
    ['a chunk not followed by CRLF', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab'],
    ['a bad chunk size', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n'],
  ])('refuses %s', (_, text) => {
    expect(() => reading().parser.push(Buffer.from(text))).toThrow(MalformedResponseError);
  });
});

/** A raw TCP server: each connection's bytes as received, and a function of the test's to answer them. */
async function rawServer(answer: (socket: net.Socket, received: string) => void) {
  const connections: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    const index = connections.push('') - 1;
    socket.on('data', (chunk) => {
      connections[index] += chunk.toString('latin1');
      answer(socket, connections[index]);
    });
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  servers.push({ server, sockets });
  return { origin, connections, sockets };
}

const servers: Array<{ server: net.Server; sockets: Set<net.Socket> }> = [];
let relays: RelayConnections[] = [];
afterEach(async () => {
  for (const relay of relays) relay.close();
  relays = [];
  for (const { server, sockets } of servers.splice(0)) {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

function relayTo() {
  const relay = new RelayConnections((origin) => {
    const { port } = new URL(origin);
    return () =>
      new Promise<net.Socket>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1');
        socket.once('connect', () => resolve(socket));
        socket.once('error', reject);
      });
  });
  relays.push(relay);
  return relay;
}

type Outcome = { status: number; headers: string[]; body: string } | RelayFailure;

function send(relay: RelayConnections, origin: string, request: Partial<OutgoingRequest>) {
  const full: OutgoingRequest = {
    method: 'GET',
    path: '/g/collect?v=2',
    host: 'upstream.test',
    headers: ['x-a', 'b'],
    body: null,
    timeoutMs: 2_000,
    ...request,
  };
  let answer = { status: 0, headers: [] as string[], body: '' };
  let exchange: ReturnType<RelayConnections['request']> | undefined;
  const outcome = new Promise<Outcome>((resolve) => {
    exchange = relay.request(origin, full, {
      head: (status, headers) => {
        answer = { status, headers, body: '' };
      },
      data: (chunk) => {
        answer.body += chunk.toString('latin1');
      },
      end: (last) => {
        if (last) answer.body += last.toString('latin1');
        resolve(answer);
      },
      error: (failure) => resolve(failure),
    });
  });
  return { outcome, exchange: exchange! };
}

/** Answers every complete request head (bodies by Content-Length only) with this answer. */
const answerEach = (text: string) => (socket: net.Socket, received: string) => {
  const heads = received.split('\r\n\r\n').length - 1;
  const answered = (socket as net.Socket & { answered?: number }).answered ?? 0;
  for (let i = answered; i < heads; i++) socket.write(text);
  (socket as net.Socket & { answered?: number }).answered = heads;
};
const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nKeep-Alive: timeout=5\r\n\r\nok';

describe('RelayConnections', () => {
  it('sends each request as written, one after another on one kept-alive connection', async () => {
    const server = await rawServer(answerEach(OK));
    const relay = relayTo();
    for (let i = 0; i < 3; i++) {
      const outcome = await send(relay, server.origin, { method: 'POST', body: Buffer.from(`body${i}`) }).outcome;
      expect(outcome).toEqual({ status: 200, headers: ['content-length', '2', 'keep-alive', 'timeout=5'], body: 'ok' });
    }
    await send(relay, server.origin, { method: 'POST' }).outcome;
    await send(relay, server.origin, { method: 'HEAD' }).outcome;
    expect(server.connections).toEqual([
      [
        ...[0, 1, 2].map(
          (i) => `POST /g/collect?v=2 HTTP/1.1\r\nhost: upstream.test\r\nx-a: b\r\ncontent-length: 5\r\n\r\nbody${i}`,
        ),
        'POST /g/collect?v=2 HTTP/1.1\r\nhost: upstream.test\r\nx-a: b\r\ncontent-length: 0\r\n\r\n',
        'HEAD /g/collect?v=2 HTTP/1.1\r\nhost: upstream.test\r\nx-a: b\r\n\r\n',
      ].join(''),
    ]);
  });

  it('streams a body given without a length in chunks, and one with a length as it is', async () => {
    const server = await rawServer((socket, received) => {
      if (received.endsWith('0\r\n\r\n') || received.endsWith('world')) socket.write(OK);
    });
    const relay = relayTo();
    const chunked = new PassThrough();
    const sent = send(relay, server.origin, { method: 'POST', body: { stream: chunked, length: null } });
    chunked.write('hello ');
    setTimeout(() => chunked.end('world'), 20);
    expect(await sent.outcome).toMatchObject({ status: 200 });
    expect(sent.exchange.bodyBytes).toBe(11);
    const withLength = new PassThrough();
    const second = send(relay, server.origin, { method: 'PUT', body: { stream: withLength, length: 11 } });
    withLength.end('hello world');
    expect(await second.outcome).toMatchObject({ status: 200 });
    expect(server.connections[0]).toContain('transfer-encoding: chunked\r\n\r\n6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n');
    expect(server.connections[0]).toContain('PUT /g/collect?v=2 HTTP/1.1\r\n');
    expect(server.connections[0].endsWith('content-length: 11\r\n\r\nhello world')).toBe(true);
  });

  it('opens a new connection after an answer that closes, or a keep-alive too short to reuse', async () => {
    for (const answer of [
      'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
      'HTTP/1.1 200 OK\r\nKeep-Alive: timeout=1\r\nContent-Length: 0\r\n\r\n',
    ]) {
      const server = await rawServer(answerEach(answer));
      const relay = relayTo();
      await send(relay, server.origin, {}).outcome;
      await send(relay, server.origin, {}).outcome;
      expect(server.connections).toHaveLength(2);
    }
  });

  it('hands on the body as it is read, and a piece read with the end along with the end', async () => {
    const server = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nfirst');
      setTimeout(() => socket.write('-last'), 50);
    });
    const seen: string[] = [];
    await new Promise<void>((resolve, reject) => {
      relayTo().request(
        server.origin,
        { method: 'GET', path: '/', host: 'upstream.test', headers: [], body: null, timeoutMs: 2_000 },
        {
          head: () => seen.push('head'),
          data: (chunk) => seen.push(`data ${chunk}`),
          end: (last) => {
            seen.push(`end ${last}`);
            resolve();
          },
          error: reject,
        },
      );
    });
    expect(seen).toEqual(['head', 'data first', 'end -last']);
  });

  it('delivers a body that runs to the close once the server closes', async () => {
    const server = await rawServer((socket) => socket.end('HTTP/1.1 200 OK\r\n\r\nall of it'));
    expect(await send(relayTo(), server.origin, {}).outcome).toMatchObject({ status: 200, body: 'all of it' });
  });

  it('fails with connectFailed only when no connection could be made', async () => {
    const closed = await rawServer(() => {});
    servers[0].server.close();
    const refused = (await send(relayTo(), closed.origin, {}).outcome) as RelayFailure;
    expect(refused).toMatchObject({ code: 'ECONNREFUSED', connectFailed: true });

    const cut = await rawServer((socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf'));
    expect(await send(relayTo(), cut.origin, {}).outcome).toMatchObject({
      code: 'UPSTREAM_CLOSED',
      connectFailed: false,
    });
    const garbage = await rawServer((socket) => socket.write('SSH-2.0-OpenSSH\r\n\r\n'));
    expect(await send(relayTo(), garbage.origin, {}).outcome).toMatchObject({ code: 'MALFORMED_RESPONSE' });
  });

  it('gives up on a silent server after the timeout, and closes its connection', async () => {
    const server = await rawServer(() => {});
    const outcome = await send(relayTo(), server.origin, { timeoutMs: 100 }).outcome;
    expect(outcome).toMatchObject({ code: 'UPSTREAM_TIMEOUT', connectFailed: false });
    await expect.poll(() => server.sockets.size).toBe(0);
  });

  it('stops an aborted exchange: its connection closed in flight, nothing sent before it was made', async () => {
    const server = await rawServer(() => {});
    const relay = relayTo();
    const inFlight = send(relay, server.origin, {});
    await expect.poll(() => server.connections[0]?.length ?? 0).toBeGreaterThan(0);
    inFlight.exchange.abort(new Error('the client went away'));
    expect(await inFlight.outcome).toMatchObject({ code: 'ABORTED', message: 'the client went away' });
    await expect.poll(() => server.sockets.size).toBe(0);

    const early = send(relay, server.origin, {});
    early.exchange.abort(new Error('gone at once'));
    expect(await early.outcome).toMatchObject({ code: 'ABORTED', connectFailed: false });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.connections.filter((bytes) => bytes.length > 0)).toHaveLength(1);
  });

  it('refuses a header value that would end the header, and sends nothing', async () => {
    const server = await rawServer(answerEach(OK));
    const outcome = await send(relayTo(), server.origin, { headers: ['x-geo-city', 'Paris\r\nX-Evil: 1'] }).outcome;
    expect(outcome).toMatchObject({ code: 'INVALID_REQUEST' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.connections.join('')).toBe('');
  });

  it('leaves a kept-alive connection as it was after refusing a request on it', async () => {
    const server = await rawServer(answerEach(OK));
    const relay = relayTo();
    await send(relay, server.origin, {}).outcome;
    const refused = send(relay, server.origin, { method: 'HEAD', headers: ['x-a', 'b\r\nX-Evil: 1'] });
    expect(await refused.outcome).toMatchObject({ code: 'INVALID_REQUEST' });
    // Had the refused HEAD been counted, this answer's body would be taken for no body.
    expect(await send(relay, server.origin, {}).outcome).toMatchObject({ status: 200, body: 'ok' });
    expect(server.connections).toHaveLength(1);
  });
});
