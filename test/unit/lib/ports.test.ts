import fs from 'node:fs';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freeLoopbackPort, listenOn } from '../../../src/lib/ports.js';

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

function server(): net.Server {
  const created = net.createServer();
  servers.push(created);
  return created;
}

describe('listenOn', () => {
  it('rejects with the listen error when the port is taken, instead of never settling', async () => {
    const first = server();
    await listenOn(first, 0, '127.0.0.1');
    const { port } = first.address() as net.AddressInfo;
    await expect(listenOn(server(), port, '127.0.0.1')).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});

describe('freeLoopbackPort', () => {
  it('hands out bindable ports, never the same one twice in a row, below the ephemeral range when there is room', async () => {
    const ports = [];
    for (let i = 0; i < 20; i++) ports.push(await freeLoopbackPort());
    expect(new Set(ports).size).toBe(ports.length);
    const range = fs.existsSync('/proc/sys/net/ipv4/ip_local_port_range')
      ? Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
      : null;
    if (range !== null && range >= 11_000) for (const port of ports) expect(port).toBeLessThan(range);
    for (const port of ports.slice(0, 3)) await listenOn(server(), port, '127.0.0.1');
  });

  it('never hands out a port something already listens on', async () => {
    const taken: number[] = [];
    for (let i = 0; i < 30; i++) {
      const port = await freeLoopbackPort();
      await listenOn(server(), port, '127.0.0.1');
      taken.push(port);
    }
    const next = await freeLoopbackPort();
    expect(taken).not.toContain(next);
  });
});
