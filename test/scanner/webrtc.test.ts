import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Scanner } from '../../src/scanner/index.js';
import { startFixtureServer, type FixtureServer } from '../fixtures/scanner/server.js';

// The browser's only way out is the guard proxy (which these tests let reach loopback). WebRTC's STUN/TURN and QUIC
// (WebTransport) are UDP an HTTP proxy cannot carry, so Chromium must not send them at all.

let fixture: FixtureServer;
let scanner: Scanner;

beforeAll(async () => {
  fixture = await startFixtureServer();
  scanner = new Scanner(fixture.scannerOptions());
});
afterAll(async () => {
  await scanner?.close();
  await fixture?.close();
});

/** Scans the escape page pointed at a fresh UDP socket on 127.0.0.1; returns the datagrams the socket received. */
async function datagramsDuringScan(channel: 'stun' | 'quic'): Promise<string[]> {
  const received: string[] = [];
  const socket = dgram.createSocket('udp4');
  socket.on('message', (message, from) => received.push(`${from.address}:${from.port} ${message.length} bytes`));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  try {
    const { port } = socket.address() as AddressInfo;
    const result = await scanner.scan({
      url: fixture.url('clean.example.test', `/udp-escape?${channel}=${port}`),
      aiSummary: false,
      pagespeed: false,
      language: 'en',
    });
    expect(result.stages.browser.status).toBe('ok');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    return received;
  } finally {
    await new Promise<void>((resolve) => socket.close(() => resolve()));
  }
}

it('sends no STUN request when a page opens an RTCPeerConnection with a STUN server', async () => {
  expect(await datagramsDuringScan('stun')).toEqual([]);
}, 60_000);

it('sends no QUIC packet when a page opens a WebTransport session', async () => {
  expect(await datagramsDuringScan('quic')).toEqual([]);
}, 60_000);
