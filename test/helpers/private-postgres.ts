import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes.js';

const run = promisify(execFile);

/** The newest PostgreSQL server binaries installed, or null (then tests that stop a server are skipped). */
export const postgresBin: string | null = (() => {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs.readdirSync(root).filter((version) => fs.existsSync(path.join(root, version, 'bin', 'pg_ctl')));
  versions.sort((a, b) => Number(a) - Number(b));
  return versions.length ? path.join(root, versions[versions.length - 1], 'bin') : null;
})();

const isRoot = process.getuid?.() === 0;

/** initdb and pg_ctl refuse to run as root: run them as the postgres user then (as scripts/test-services.sh does). */
function asPostgres(command: string, args: string[]) {
  return isRoot ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args);
}

export interface PrivateCluster {
  url: string;
  start(): Promise<void>;
  /** A fast shutdown: open connections are terminated, new ones refused. */
  stop(): Promise<void>;
  /** Stops the server and deletes its data directory. */
  destroy(): Promise<void>;
}

/**
 * A PostgreSQL cluster of the test's own, on a free loopback port with its data under the repository's
 * .tmp/, for tests that stop or restart the server. Never the shared cluster of TEST_DATABASE_URL.
 */
export async function startPrivateCluster(): Promise<PrivateCluster> {
  if (!postgresBin) throw new Error('PostgreSQL server binaries not found (apt-get install postgresql)');
  fs.mkdirSync(path.resolve('.tmp'), { recursive: true });
  const dir = fs.mkdtempSync(path.resolve('.tmp', 'pg-'));
  if (isRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    fs.chownSync(dir, Number(stdout.trim()), -1);
  }
  const data = path.join(dir, 'data');
  await asPostgres(path.join(postgresBin, 'initdb'), ['-D', data, '--auth=trust', '-U', 'postgres']);
  const port = await freePort();
  const pgCtl = path.join(postgresBin, 'pg_ctl');
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  const cluster: PrivateCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: async () => {
      await asPostgres(pgCtl, ['-D', data, '-l', path.join(dir, 'log'), '-w', '-o', options, 'start']);
    },
    stop: async () => {
      await asPostgres(pgCtl, ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
    destroy: async () => {
      await cluster.stop().catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await cluster.start();
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return cluster;
}
