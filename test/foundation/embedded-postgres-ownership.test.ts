import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openConfiguredDatabase } from '../../src/process-start.js';
import { freePort, waitFor } from '../helpers/processes.js';

// Under the repository, not the system temp dir: as root PostgreSQL runs as `postgres`, which must reach it.
const root = fs.mkdtempSync(path.join(path.resolve('.tmp'), 'embedded-ownership-'));
fs.chmodSync(root, 0o755);
const user = path.resolve('test/fixtures/db/embedded-cluster-user.ts');
const children = new Set<ChildProcess>();
// One cluster for every test (initdb once): each test leaves it stopped.
const dataDir = path.join(root, 'postgres');

function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The postmaster's pid and port from `postmaster.pid`, or null when no cluster runs in the directory. */
function postmaster(dataDir: string): { pid: number; port: number } | null {
  try {
    const lines = fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
    return { pid: Number(lines[0]), port: Number(lines[3]) };
  } catch {
    return null;
  }
}

/** pg_ctl's wait ends when the pid file is gone; the postmaster may take a moment more to exit. */
const exitOf = (pid: number) => waitFor(async () => !isAlive(pid), 10_000, `postmaster ${pid} to exit`);

const clusterRuns = (dataDir: string) => {
  const found = postmaster(dataDir);
  return found !== null && isAlive(found.pid);
};

/** A process using the cluster as `tagport serve` does (Node with tsx's loader: signals reach it directly). */
async function startUser(): Promise<{ child: ChildProcess; exited: Promise<number | null>; output(): string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', user, dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await waitFor(async () => output.includes('ready'), 60_000, `the cluster user (${output})`);
  return { child, exited, output: () => output };
}

const configFor = (dataDir: string, env: Record<string, string> = {}) =>
  loadConfig(
    { LOG_LEVEL: 'silent', DATABASE_ENGINE: 'embedded-postgres', EMBEDDED_POSTGRES_DIR: dataDir, ...env },
    { runMigrations: false },
  );

async function stderrOf(work: () => Promise<void>): Promise<string> {
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
  try {
    await work();
  } finally {
    process.stderr.write = write;
  }
  return written.join('');
}

afterEach(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
});

afterAll(() => {
  const found = postmaster(dataDir);
  if (found && isAlive(found.pid)) process.kill(found.pid, 'SIGKILL');
  fs.rmSync(root, { recursive: true, force: true });
});

describe('the embedded PostgreSQL cluster has a clear owner', () => {
  it('is taken over by the next server when its owner was killed with SIGKILL, and stopped by that server', async () => {
    const first = await startUser();
    const orphan = postmaster(dataDir)!;
    first.child.kill('SIGKILL');
    await first.exited;
    // Nothing can stop a cluster for a process killed outright: it keeps running until someone takes it over.
    expect(isAlive(orphan.pid)).toBe(true);

    const said = await stderrOf(async () => {
      const next = await openConfiguredDatabase(configFor(dataDir));
      await next.ping();
      await next.close();
    });
    expect(said).toContain(`took over the embedded PostgreSQL cluster in ${dataDir}`);
    await exitOf(orphan.pid);
    expect(clusterRuns(dataDir)).toBe(false);
  }, 120_000);

  it('keeps running while any user is left, and stops with the last clean stop, whoever started it', async () => {
    const users = await Promise.all([startUser(), startUser()]);
    const [starter, joiner] = users[0].output().includes('ready started') ? users : [users[1], users[0]];
    expect(joiner.output()).toContain('ready joined');
    const cluster = postmaster(dataDir)!;

    starter.child.kill('SIGTERM');
    expect(await starter.exited).toBe(0);
    expect(isAlive(cluster.pid)).toBe(true);

    joiner.child.kill('SIGTERM');
    expect(await joiner.exited).toBe(0);
    await exitOf(cluster.pid);
    expect(clusterRuns(dataDir)).toBe(false);
  }, 120_000);

  it('listens on EMBEDDED_POSTGRES_PORT when it is set', async () => {
    const port = await freePort();
    const config = configFor(dataDir, { EMBEDDED_POSTGRES_PORT: String(port) });
    expect(config.embeddedPostgresPort).toBe(port);
    const database = await openConfiguredDatabase(config);
    try {
      expect(postmaster(dataDir)?.port).toBe(port);
      await database.ping();
    } finally {
      await database.close();
    }
    expect(() => configFor(dataDir, { EMBEDDED_POSTGRES_PORT: 'many' })).toThrow(/EMBEDDED_POSTGRES_PORT/);
  }, 120_000);
});
