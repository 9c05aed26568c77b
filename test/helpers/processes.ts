import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

import { freeLoopbackPort } from '../../src/lib/ports.js';

export const freePort = freeLoopbackPort;

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export const redisServerPath =
  ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((path) => fs.existsSync(path)) ?? null;
if (!redisServerPath && process.env.CI) throw new Error('CI must have redis-server installed (.ci/run installs it)');

/** A real redis-server on a free loopback port, without persistence. */
export async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  if (!redisServerPath) throw new Error('redis-server is not installed');
  const port = await freePort();
  const child: ChildProcess = spawn(
    redisServerPath,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  await waitFor(
    () =>
      new Promise((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.end();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
      }),
    10_000,
    'redis-server',
  );
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
