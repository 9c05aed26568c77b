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

export interface StartingNginx {
  pid: number | undefined;
  /** Where nginx writes its pid once it has bound every port (nginx writes it after opening its listeners). */
  pidFile: string;
  exited(): boolean;
  errorLog(): Promise<string>;
}

function boundItsPorts(nginx: StartingNginx): boolean {
  try {
    return readFileSync(nginx.pidFile, 'utf8').trim() === String(nginx.pid);
  } catch {
    return false;
  }
}

/** Why nginx exited at start; a port in use as Node reports it (`EADDRINUSE`, with the address and port). */
function startFailure(errorLog: string): Error {
  const failure = new Error(`nginx exited at start: ${errorLog}`);
  const inUse = /bind\(\) to (\S+):(\d+) failed \(98: Address already in use\)/.exec(errorLog);
  if (inUse) Object.assign(failure, { code: 'EADDRINUSE', address: inUse[1], port: Number(inUse[2]) });
  return failure;
}

/**
 * Resolves once nginx has bound its ports and accepts connections on `port`; fails with its error log when it exits
 * or never does. A port another program holds accepts connections too: only the pid file says nginx bound it.
 */
export async function waitForPort(host: string, port: number, nginx: StartingNginx): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (nginx.exited()) throw startFailure(await nginx.errorLog());
    if (boundItsPorts(nginx) && (await accepts(host, port))) return;
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
