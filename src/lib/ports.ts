import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** Listens and settles once listening, or fails with the listen error (a port in use), which `listen()` only emits. */
export function listenOn(server: net.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * The ports the kernel hands out on its own (to `listen(0)` and to every outgoing connection's local end): a port
 * taken from this range can be taken again by a connection before its user binds it.
 */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    return [Number(low), Number(high)];
  } catch {
    return [32768, 60999];
  }
}

const LOWEST_CHOSEN = 10_000;
const TRIES = 50;
/**
 * Ports handed out lately, by this process or another on the machine (a file each in the temp directory): a second
 * caller must not get the same one before the first binds it.
 */
const HAND_OUT_MEMORY_MS = 60_000;
const claims = path.join(os.tmpdir(), 'tagport-ports');

function claimed(port: number): boolean {
  const file = path.join(claims, String(port));
  try {
    fs.mkdirSync(claims, { recursive: true });
    fs.writeFileSync(file, '', { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return true; // no claims where nothing can be written
    const claim = fs.statSync(file, { throwIfNoEntry: false });
    if (claim && Date.now() - claim.mtimeMs <= HAND_OUT_MEMORY_MS) return false;
    fs.utimesSync(file, new Date(), new Date());
    return true;
  }
}

function bindable(port: number): Promise<boolean> {
  const server = net.createServer();
  return listenOn(server, port, '127.0.0.1').then(
    () => new Promise((resolve) => server.close(() => resolve(true))),
    () => false,
  );
}

/**
 * A TCP port free on loopback now, for a server that cannot listen on port 0 and report the one it got (nginx, a
 * tagging server, PostgreSQL). Chosen below the kernel's ephemeral range when there is room, so that neither an
 * outgoing connection nor another server's `listen(0)` takes it before the server binds it.
 */
export async function freeLoopbackPort(): Promise<number> {
  const [ephemeralLow] = ephemeralRange();
  const span = ephemeralLow - LOWEST_CHOSEN;
  if (span >= 1000) {
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const port = LOWEST_CHOSEN + Math.floor(Math.random() * span);
      if ((await bindable(port)) && claimed(port)) return port;
    }
  }
  const server = net.createServer();
  await listenOn(server, 0, '127.0.0.1');
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
