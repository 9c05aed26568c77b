import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, waitFor } from '../helpers/processes.js';

/** Every process below `pid`, read from /proc (Linux). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the parent pid; the command name before it is in parentheses.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited while we looked
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid !== parent) continue;
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

function isAlive(pid: number): boolean {
  try {
    const state = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return state.slice(state.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.destroy() && resolve(true));
    socket.on('error', () => resolve(false));
  });

describe.runIf(process.platform === 'linux')('npm start', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-npm-start-'));
  let npm: ChildProcess | undefined;
  let tree: number[] = [];

  afterAll(() => {
    // Leave nothing behind if the test failed: the npm process group and anything that escaped it.
    if (npm?.pid && npm.exitCode === null) process.kill(-npm.pid, 'SIGKILL');
    for (const pid of tree) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    for (const file of [dataDir, `${dataDir}.lock`, `${dataDir}.cookie-secret`])
      fs.rmSync(file, { recursive: true, force: true });
  });

  it('shuts the server down on SIGTERM to the npm process: ports closed, no process left, lock released', async () => {
    const [port, gatewayPort] = [await freePort(), await freePort()];
    const env = {
      ...process.env,
      PORT: String(port),
      GATEWAY_PORT: String(gatewayPort),
      PGLITE_DATA_DIR: dataDir,
      DATABASE_URL: '',
      REDIS_URL: '',
      LOG_LEVEL: 'info',
    };
    npm = spawn('npm', ['start'], { cwd: path.resolve('.'), env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    npm.stdout!.on('data', (chunk) => (output += chunk));
    npm.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => npm!.once('exit', (code) => resolve(code)));
    await waitFor(
      async () => (await request(`http://127.0.0.1:${port}/readyz`)).statusCode === 200,
      60_000,
      `npm start (${output})`,
    );
    expect(await accepts(gatewayPort)).toBe(true);
    tree = descendants(npm.pid!);
    expect(tree.length).toBeGreaterThan(0);

    // A browser-like client keeps its connection open; shutting down must not wait for it.
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    const kept = await request(`http://127.0.0.1:${port}/readyz`, { dispatcher: agent });
    await kept.body.dump();

    process.kill(npm.pid!, 'SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('"msg":"shutting down"');
    await waitFor(async () => tree.every((pid) => !isAlive(pid)), 10_000, `processes ${tree.join(', ')} to exit`);
    expect(await accepts(port)).toBe(false);
    expect(await accepts(gatewayPort)).toBe(false);
    expect(fs.existsSync(`${dataDir}.lock`)).toBe(false);
    await agent.close();
  }, 120_000);
});
