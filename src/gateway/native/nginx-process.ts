import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import net from 'node:net';

/** The worker processes of an nginx master that accept connections (an old one says "is shutting down" once it stopped). */
export function servingWorkers(masterPid: number | undefined): number[] {
  if (!masterPid) return [];
  let children: number[];
  try {
    children = readFileSync(`/proc/${masterPid}/task/${masterPid}/children`, 'utf8').trim().split(/\s+/).map(Number);
  } catch {
    return [];
  }
  return children.filter((pid) => {
    try {
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return title.includes('worker process') && !title.includes('shutting down');
    } catch {
      return false;
    }
  });
}

function accepts(host: string, port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = net.connect(port, host === '0.0.0.0' ? '127.0.0.1' : host);
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.once('connect', () => done(true)).once('error', () => done(false));
    socket.setTimeout(500, () => done(false));
  });
}

/** Resolves once nginx accepts connections on the port; fails with its error log when it exits or never does. */
export async function waitForPort(
  host: string,
  port: number,
  nginx: { exited: () => boolean; errorLog: () => Promise<string> },
): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (nginx.exited()) throw new Error(`nginx exited at start: ${await nginx.errorLog()}`);
    if (await accepts(host, port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nginx did not listen on port ${port}: ${await nginx.errorLog()}`);
}

/**
 * The user nginx's workers run as when the master is root (nginx's default, `nobody`), from /etc/passwd: they read
 * certificate files at the handshake, so those files are theirs. Null when there is no such user.
 */
export async function workerOwner(): Promise<{ uid: number; gid: number } | null> {
  const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '');
  const entry = passwd.split('\n').find((line) => line.startsWith('nobody:'));
  const [, , uid, gid] = entry?.split(':') ?? [];
  return uid && gid ? { uid: Number(uid), gid: Number(gid) } : null;
}
