import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
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
  // Under the repository, not the system temp dir: as root the embedded PostgreSQL runs as `postgres`, which must reach it.
  const root = fs.mkdtempSync(path.join(path.resolve('.tmp'), 'npm-start-'));
  fs.chmodSync(root, 0o755);
  const pgliteDir = path.join(root, 'pglite');
  const postgresDir = path.join(root, 'postgres');
  let npm: ChildProcess | undefined;
  let tree: number[] = [];

  afterAll(() => {
    // Leave nothing behind if the test failed: the npm process group and anything that escaped it.
    if (npm?.pid && npm.exitCode === null) process.kill(-npm.pid, 'SIGKILL');
    for (const pid of tree) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    const postmaster = path.join(postgresDir, 'postmaster.pid');
    if (fs.existsSync(postmaster)) process.kill(Number(fs.readFileSync(postmaster, 'utf8').split('\n')[0]), 'SIGKILL');
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** Starts `npm start`, waits until ready, then SIGTERMs npm: ports closed, no process left. */
  async function startAndStop(env: NodeJS.ProcessEnv, whileRunning: () => void) {
    const [port, gatewayPort] = [await freePort(), await freePort()];
    const { DATABASE_ENGINE: _engine, PGLITE_DATA_DIR: _pglite, ...inherited } = process.env;
    npm = spawn('npm', ['start'], {
      cwd: path.resolve('.'),
      env: {
        ...inherited,
        PORT: String(port),
        GATEWAY_PORT: String(gatewayPort),
        DATABASE_URL: '',
        REDIS_URL: '',
        LOG_LEVEL: 'info',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
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
    whileRunning();

    // A browser-like client keeps its connection open; shutting down must not wait for it.
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    const kept = await request(`http://127.0.0.1:${port}/readyz`, { dispatcher: agent });
    await kept.body.dump();

    process.kill(npm.pid!, 'SIGTERM');
    expect(await exited, output).toBe(0);
    expect(output).toContain('"msg":"shutting down"');
    await waitFor(async () => tree.every((pid) => !isAlive(pid)), 10_000, `processes ${tree.join(', ')} to exit`);
    expect(await accepts(port)).toBe(false);
    expect(await accepts(gatewayPort)).toBe(false);
    await agent.close();
  }

  it('shuts the server down on SIGTERM to the npm process: ports closed, no process left, lock released', async () => {
    await startAndStop({ PGLITE_DATA_DIR: pgliteDir }, () => expect(fs.existsSync(`${pgliteDir}.lock`)).toBe(true));
    expect(fs.existsSync(`${pgliteDir}.lock`)).toBe(false);
  }, 120_000);

  it('by default starts its own PostgreSQL cluster with the server and stops it with the server', async () => {
    let postmasterPid = 0;
    await startAndStop({ EMBEDDED_POSTGRES_DIR: postgresDir }, () => {
      postmasterPid = Number(fs.readFileSync(path.join(postgresDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      expect(isAlive(postmasterPid)).toBe(true);
    });
    expect(fs.existsSync(path.join(postgresDir, 'postmaster.pid'))).toBe(false);
    expect(isAlive(postmasterPid)).toBe(false);
  }, 120_000);
});
