import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Http1ResponseReader, MalformedResponseError } from '../../../src/gateway/runtime/http1-responses.js';
import {
  ConnectionLostError,
  PipelinedSender,
  STALLED_AFTER_MS,
} from '../../../src/gateway/runtime/pipelined-sender.js';
import { OutboundClient } from '../../../src/lib/outbound.js';
import { startHttpsTarget } from '../../helpers/https-target.js';

const ANSWERS = [
  'HTTP/1.1 204 No Content\r\nDate: x\r\n\r\n',
  'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello',
  'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n',
  'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nX-Trailer: y\r\n\r\n',
  'HTTP/1.1 503 Service Unavailable\r\nRetry-After: 7\r\nContent-Length: 2\r\n\r\nno',
  'HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n',
  'HTTP/1.1 400 Bad Request\r\nConnection: keep-alive, close\r\nContent-Length: 0\r\n\r\n',
  'HTTP/1.0 204 No Content\r\n\r\n',
];
const EXPECTED = [
  { status: 204, retryAfter: null, closes: false },
  { status: 200, retryAfter: null, closes: false },
  { status: 201, retryAfter: null, closes: false },
  { status: 200, retryAfter: null, closes: false },
  { status: 503, retryAfter: '7', closes: false },
  { status: 200, retryAfter: null, closes: false },
  { status: 400, retryAfter: null, closes: true },
  { status: 204, retryAfter: null, closes: true },
];

describe('Http1ResponseReader', () => {
  it('reads pipelined answers in order, whole or a byte at a time', () => {
    const bytes = Buffer.from(ANSWERS.join(''), 'latin1');
    expect(new Http1ResponseReader().push(bytes)).toEqual(EXPECTED);
    const reader = new Http1ResponseReader();
    const oneByOne = [];
    for (let i = 0; i < bytes.length; i++) oneByOne.push(...reader.push(bytes.subarray(i, i + 1)));
    expect(oneByOne).toEqual(EXPECTED);
  });

  it('completes an answer whose body runs to the close only when the connection ends', () => {
    const reader = new Http1ResponseReader();
    expect(reader.push(Buffer.from('HTTP/1.1 200 OK\r\n\r\nsome body'))).toEqual([]);
    expect(reader.push(Buffer.from(' and more'))).toEqual([]);
    expect(reader.end()).toEqual({ status: 200, retryAfter: null, closes: true });
    expect(reader.end()).toBeNull();
  });

  it.each([
    ['a status line that is not HTTP', 'SSH-2.0-OpenSSH\r\n\r\n'],
    ['a bad Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n'],
    ['a header without a name', 'HTTP/1.1 200 OK\r\n: x\r\n\r\n'],
    ['a bad chunk size', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
  ])('refuses %s', (_, text) => {
    expect(() => new Http1ResponseReader().push(Buffer.from(text))).toThrow(MalformedResponseError);
  });
});

/** A raw HTTP/1.1 server: splits requests itself, so the test sees how they arrived and decides each answer. */
async function rawServer(answer: (index: number, socket: net.Socket) => string | null) {
  const requests: string[] = [];
  /** Requests per read: more than one means they came pipelined in one write. */
  const perRead: number[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      let count = 0;
      for (let end = buffer.indexOf('\r\n\r\n'); end !== -1; end = buffer.indexOf('\r\n\r\n')) {
        const request = buffer.slice(0, end);
        buffer = buffer.slice(end + 4);
        count++;
        const index = requests.push(request) - 1;
        const reply = answer(index, socket);
        if (reply !== null && !socket.destroyed) socket.write(reply);
        if (socket.destroyed) return;
      }
      perRead.push(count);
    });
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    requests,
    perRead,
    connections: () => sockets.size,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const outbound = new OutboundClient({ allowPrivateNetworks: true });
const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function senderTo(origin: string, settings: Partial<ConstructorParameters<typeof PipelinedSender>[0]> = {}) {
  const url = new URL(origin);
  const sender = new PipelinedSender({
    connections: 2,
    depth: 8,
    timeoutMs: 2000,
    idleMs: 4000,
    connect: () => outbound.connect(url),
    host: url.host,
    ...settings,
  });
  closers.push(() => sender.close());
  return sender;
}

const send = (sender: PipelinedSender, i: number, signal?: AbortSignal) =>
  sender.request('POST', `/g/collect?n=${i}`, { 'user-agent': 'test' }, signal);

describe('PipelinedSender', () => {
  it('sends requests queued in one turn together, each answered in order, over at most its connections', async () => {
    const server = await rawServer((index) =>
      index % 5 === 0 ? 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok' : 'HTTP/1.1 204 No Content\r\n\r\n',
    );
    closers.push(server.close);
    const sender = senderTo(`http://127.0.0.1:${server.port}`);
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => send(sender, i)));
    expect(answers.every((answer) => answer.status === 200 || answer.status === 204)).toBe(true);
    expect(server.requests).toHaveLength(100);
    expect(new Set(server.requests.map((request) => request.split('\r\n')[0])).size).toBe(100);
    expect(server.requests[0]).toBe(
      `POST /g/collect?n=0 HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\nuser-agent: test\r\ncontent-length: 0`,
    );
    expect(server.connections()).toBeLessThanOrEqual(2);
    expect(Math.max(...server.perRead)).toBeGreaterThan(1);
    expect(Math.max(...server.perRead)).toBeLessThanOrEqual(8);
  });

  it('sends again, on a new connection, what was written after an answer that closes the connection', async () => {
    const server = await rawServer((index, socket) => {
      if (index !== 2) return 'HTTP/1.1 204 No Content\r\n\r\n';
      socket.end('HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n');
      return null;
    });
    closers.push(server.close);
    const sender = senderTo(`http://127.0.0.1:${server.port}`, { connections: 1 });
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => send(sender, i)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(204));
    const lines = server.requests.map((request) => request.split(' ')[1]);
    // The five written after the third were read by the server but never answered: each is sent once more.
    expect(lines.slice(0, 3)).toEqual(['/g/collect?n=0', '/g/collect?n=1', '/g/collect?n=2']);
    expect(new Set(lines.slice(3)).size).toBe(5);
    expect(lines.filter((line) => line === '/g/collect?n=2')).toHaveLength(1);
  });

  it('fails what is on a connection the server drops, and sends later requests on a new one', async () => {
    let drop = true;
    const server = await rawServer((index, socket) => {
      if (drop && index === 1) {
        drop = false;
        socket.destroy();
        return null;
      }
      return 'HTTP/1.1 204 No Content\r\n\r\n';
    });
    closers.push(server.close);
    const sender = senderTo(`http://127.0.0.1:${server.port}`, { connections: 1 });
    const first = await Promise.allSettled([0, 1, 2].map((i) => send(sender, i)));
    expect(first[0]).toMatchObject({ status: 'fulfilled', value: { status: 204 } });
    expect(first[1]).toMatchObject({ status: 'rejected', reason: expect.any(ConnectionLostError) });
    expect(first[2].status).toBe('rejected');
    expect(await send(sender, 3)).toMatchObject({ status: 204 });
  });

  it('drops a connection whose answer is late or garbage, failing its requests', async () => {
    const silent = await rawServer(() => null);
    closers.push(silent.close);
    const slow = senderTo(`http://127.0.0.1:${silent.port}`, { timeoutMs: 200 });
    await expect(send(slow, 0)).rejects.toThrow('did not answer in time');

    const garbage = await rawServer(() => 'SSH-2.0-nope\r\n\r\n');
    closers.push(garbage.close);
    await expect(send(senderTo(`http://127.0.0.1:${garbage.port}`), 0)).rejects.toThrow(ConnectionLostError);
  });

  it('gives up a request when its signal aborts, waiting or in flight', async () => {
    const silent = await rawServer(() => null);
    closers.push(silent.close);
    const sender = senderTo(`http://127.0.0.1:${silent.port}`, { connections: 1, depth: 1 });
    const inFlight = new AbortController();
    const waiting = new AbortController();
    const first = send(sender, 0, inFlight.signal);
    const second = send(sender, 1, waiting.signal);
    await new Promise((resolve) => setTimeout(resolve, 100));
    waiting.abort(new Error('second given up'));
    await expect(second).rejects.toThrow('second given up');
    inFlight.abort(new Error('first given up'));
    await expect(first).rejects.toThrow('first given up');
    expect(silent.requests).toHaveLength(1);
  });

  it('fails at once when the origin cannot be reached, and after close', async () => {
    const unused = await rawServer(() => null);
    await unused.close();
    const sender = senderTo(`http://127.0.0.1:${unused.port}`);
    await expect(send(sender, 0)).rejects.toThrow(ConnectionLostError);
    sender.close();
    await expect(send(sender, 1)).rejects.toThrow('closed');
  });

  it('opens another connection while answers are slow, and keeps to one while they are fast', async () => {
    const held: net.Socket[] = [];
    const slow = await rawServer((_, socket) => {
      held.push(socket);
      return null;
    });
    closers.push(slow.close);
    const sender = senderTo(`http://127.0.0.1:${slow.port}`, { connections: 4, timeoutMs: 10_000 });
    const pending = [];
    for (let i = 0; i < 4; i++) {
      pending.push(send(sender, i));
      await new Promise((resolve) => setTimeout(resolve, STALLED_AFTER_MS * 3));
    }
    expect(slow.connections()).toBe(4);
    for (const socket of new Set(held)) socket.write('HTTP/1.1 204 No Content\r\n\r\n');
    expect((await Promise.all(pending)).map((answer) => answer.status)).toEqual([204, 204, 204, 204]);

    const fast = await rawServer(() => 'HTTP/1.1 204 No Content\r\n\r\n');
    closers.push(fast.close);
    const quick = senderTo(`http://127.0.0.1:${fast.port}`, { connections: 4 });
    for (let i = 0; i < 4; i++) {
      await send(quick, i);
      await new Promise((resolve) => setTimeout(resolve, STALLED_AFTER_MS * 3));
    }
    expect(fast.connections()).toBe(1);
  });

  it('connects only where the outbound guard allows', async () => {
    const server = await rawServer(() => 'HTTP/1.1 204 No Content\r\n\r\n');
    closers.push(server.close);
    const url = new URL(`http://127.0.0.1:${server.port}`);
    const guarded = new OutboundClient({ allowPrivateNetworks: false });
    await expect(guarded.connect(url)).rejects.toThrow();
    expect(server.connections()).toBe(0);
    await expect(send(senderTo(url.origin, { connect: () => guarded.connect(url) }), 0)).rejects.toThrow(
      ConnectionLostError,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('speaks TLS to an https origin through the outbound client, with its SNI and extra CA', async () => {
    const target = await startHttpsTarget((request) => ({ status: request.path.endsWith('=3') ? 503 : 204 }));
    closers.push(target.close);
    const trusting = new OutboundClient({ allowPrivateNetworks: true, ca: [target.ca] });
    const url = new URL(target.url('/'));
    const sender = senderTo(url.origin, { connect: () => trusting.connect(url) });
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => send(sender, i)));
    expect(answers.map((answer) => answer.status)).toEqual([204, 204, 204, 503, 204, 204]);
    expect(target.received.map((request) => request.headers['user-agent'])).toEqual(Array(6).fill('test'));
    const untrusting = senderTo(url.origin, { connect: () => outbound.connect(url) });
    await expect(send(untrusting, 0)).rejects.toThrow(ConnectionLostError);
  });

  it('calls a submit back once with the answer, and never before submit returns, even when it refuses at once', async () => {
    const server = await rawServer(() => 'HTTP/1.1 204 No Content\r\n\r\n');
    closers.push(server.close);
    const sender = senderTo(`http://127.0.0.1:${server.port}`);
    const outcomes: Array<number | string> = [];
    const submit = (headers: Record<string, string>) =>
      new Promise<void>((resolve) => {
        let returned = false;
        sender.submit('POST', '/g/collect?v=2', headers, (outcome) => {
          outcomes.push(returned ? (outcome instanceof Error ? outcome.message : outcome.status) : 'synchronous');
          resolve();
        });
        returned = true;
      });
    await submit({ 'user-agent': 'test' });
    await submit({ 'user-agent': 'bad\nvalue' });
    sender.close();
    await submit({ 'user-agent': 'test' });
    expect(outcomes).toEqual([204, 'The user-agent header has invalid characters.', 'The sender is closed.']);
  });

  it('fails a request no connection took within the timeout (the connection never opened)', async () => {
    const sender = new PipelinedSender({
      connections: 1,
      depth: 8,
      timeoutMs: 100,
      idleMs: 4000,
      connect: () => new Promise(() => {}),
      host: 'vendor.test',
    });
    closers.push(() => sender.close());
    const started = performance.now();
    await expect(send(sender, 1)).rejects.toThrow('No connection to the vendor in time.');
    expect(performance.now() - started).toBeGreaterThanOrEqual(100);
  });
});
