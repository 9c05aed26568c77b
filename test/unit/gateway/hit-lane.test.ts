import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HitLane, type LaneServe } from '../../../src/gateway/hit-lane.js';

/** `/lane…` answered by the lane at once, `/async…` after a promise, `/throw`; everything else is Node's. */
const serve: LaneServe = (req, reply) => {
  const url = req.url!;
  if (url === '/throw') throw new Error('the handler failed');
  if (url === '/bad-header') {
    reply.writeHead(204, { 'x-echoed': 'a\u0001b' }).end();
    return true;
  }
  if (url.startsWith('/lane')) {
    reply.writeHead(204, { 'x-served': `lane ${url}` }).end();
    return true;
  }
  if (url.startsWith('/async'))
    return new Promise((resolve) =>
      setTimeout(() => {
        reply.writeHead(204, { 'x-served': `lane ${url}` }).end();
        resolve(true);
      }, 20),
    );
  if (url.startsWith('/declined-later')) return new Promise((resolve) => setTimeout(() => resolve(false), 20));
  return false;
};

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  while (opened.length) await opened.pop()!.close();
});

async function startServer() {
  const errors: unknown[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'x-served': `node ${req.method} ${req.url}` }).end('node'));
  });
  const lane = new HitLane(serve, (error) => errors.push(error));
  lane.attach(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const close = async () => {
    lane.close();
    server.closeIdleConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  opened.push({ close });
  return { port, errors, lane, server, close };
}

/** A raw connection: what it wrote and read, and the answers read so far (status and x-served). */
function connect(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (chunk) => {
    text += chunk.toString('latin1');
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  const answers = () =>
    [...text.matchAll(/HTTP\/1\.1 (\d{3})[^\r]*\r\n((?:[^\r]+\r\n)*)\r\n/g)].map((match) =>
      `${match[1]} ${/x-served: ([^\r]*)/i.exec(match[2])?.[1] ?? ''}`.trim(),
    );
  const until = async (count: number) => {
    const deadline = Date.now() + 5000;
    while (answers().length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    return answers();
  };
  return { socket, answers, until, closed, text: () => text };
}

const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: a.example\r\n${extra}\r\n`;

describe('HitLane: plain GETs below Node http, everything else to Node', () => {
  it('answers pipelined requests in order, and hands the connection to Node at the first it does not serve', async () => {
    const { port } = await startServer();
    const client = connect(port);
    client.socket.write(get('/lane1') + get('/async1') + get('/lane2') + get('/node1') + get('/lane3'));
    expect(await client.until(5)).toEqual([
      '204 lane /lane1',
      '204 lane /async1',
      '204 lane /lane2',
      '200 node GET /node1',
      '200 node GET /lane3',
    ]);
    // What comes later on the connection is Node's too.
    client.socket.write(get('/lane4'));
    expect((await client.until(6))[5]).toBe('200 node GET /lane4');
    client.socket.destroy();
  });

  it('hands Node a request the serve declines after a promise, and a POST with its body', async () => {
    const { port } = await startServer();
    const first = connect(port);
    first.socket.write(get('/lane1') + get('/declined-later'));
    expect(await first.until(2)).toEqual(['204 lane /lane1', '200 node GET /declined-later']);
    const second = connect(port);
    second.socket.write('POST /lane5 HTTP/1.1\r\nHost: a.example\r\nContent-Length: 5\r\n\r\nhello');
    expect(await second.until(1)).toEqual(['200 node POST /lane5']);
    first.socket.destroy();
    second.socket.destroy();
  });

  it('reads a head that arrives a few bytes at a time', async () => {
    const { port } = await startServer();
    const client = connect(port);
    const request = get('/lane-split');
    for (let i = 0; i < request.length; i += 7) {
      client.socket.write(request.slice(i, i + 7));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(await client.until(1)).toEqual(['204 lane /lane-split']);
    client.socket.destroy();
  });

  it("leaves malformed and oversized heads to Node's parser, which refuses them", async () => {
    const { port } = await startServer();
    const malformed = connect(port);
    malformed.socket.write('GET /lane HTTP/1.1\r\nHost: a.example\r\nX-A: 1\n2\r\n\r\n');
    expect((await malformed.until(1))[0]).toMatch(/^400/);
    const oversized = connect(port);
    oversized.socket.write(`GET /lane HTTP/1.1\r\nHost: a.example\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect((await oversized.until(1))[0]).toMatch(/^431/);
    malformed.socket.destroy();
    oversized.socket.destroy();
  });

  it('answers a failing handler 500 in the gateway format, reports the error and keeps serving', async () => {
    const { port, errors } = await startServer();
    const client = connect(port);
    client.socket.write(get('/throw') + get('/lane-after'));
    expect(await client.until(2)).toEqual(['500', '204 lane /lane-after']);
    expect(client.text()).toContain('{"error":{"code":"gateway_error"');
    expect(errors).toEqual([new Error('the handler failed')]);
    client.socket.destroy();
  });

  it('answers 500, as Node does, when an answer would carry a header value Node refuses', async () => {
    const { port, errors } = await startServer();
    const client = connect(port);
    client.socket.write(get('/bad-header') + get('/lane-after'));
    expect(await client.until(2)).toEqual(['500', '204 lane /lane-after']);
    expect(client.text()).not.toContain('x-echoed');
    expect(errors).toHaveLength(1);
    client.socket.destroy();
  });

  it('answers what a half-closed client asked, then closes; closing the server ends idle lane connections', async () => {
    const { port, close } = await startServer();
    const halfClosed = connect(port);
    halfClosed.socket.end(get('/async-then-close'));
    await halfClosed.closed;
    expect(halfClosed.answers()).toEqual(['204 lane /async-then-close']);
    const idle = connect(port);
    idle.socket.write(get('/lane-idle'));
    expect(await idle.until(1)).toEqual(['204 lane /lane-idle']);
    await close();
    await idle.closed;
  });
});
