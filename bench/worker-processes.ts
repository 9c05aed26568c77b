import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freeLoopbackPort as freePort } from '../src/lib/ports.js';

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'tagport.js');

async function waitReady(port: number, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`worker exited with ${child.exitCode}`);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`)
      .then((response) => response.ok)
      .catch(() => false);
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('worker not ready in time');
}

export interface WorkerProcesses {
  /** CPU seconds (user + system) the workers have used so far (Linux /proc; 0 elsewhere). */
  cpuSeconds(): number;
  /** SIGTERM to every worker, then waits for them to exit (SIGKILL after 20 s). */
  stop(): Promise<void>;
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

function cpuSecondsOf(pid: number | undefined): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the command name.
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/**
 * Starts `count` processes with `tagport serve --role worker` (the CLI, as deployed) on the database of `env`, and
 * waits until each answers /readyz.
 */
export async function startWorkerProcesses(count: number, env: Record<string, string>): Promise<WorkerProcesses> {
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
            child.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
  };
  try {
    for (let index = 0; index < count; index++) {
      const port = await freePort();
      const child = spawn(process.execPath, [CLI, 'serve', '--role', 'worker'], {
        env: { ...process.env, LOG_LEVEL: 'error', ...env, PORT: String(port), HOST: '127.0.0.1' },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      children.push(child);
      await waitReady(port, child);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { stop, cpuSeconds: () => children.reduce((sum, child) => sum + cpuSecondsOf(child.pid), 0) };
}
