import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes.js';

const run = promisify(execFile);

/** The newest installed PostgreSQL server binaries (as scripts/test-services.sh finds them), or null. */
export const postgresBinDir: string | null = (() => {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs.readdirSync(root).filter((version) => fs.existsSync(path.join(root, version, 'bin', 'pg_ctl')));
  versions.sort((a, b) => Number(a) - Number(b));
  return versions.length ? path.join(root, versions.at(-1)!, 'bin') : null;
})();
if (!postgresBinDir && process.env.CI)
  throw new Error('CI must have the PostgreSQL server installed (.ci/run installs it)');

const asRoot = process.getuid?.() === 0;

/** PostgreSQL refuses to run as root: run its tools as the postgres user then, as the script does. */
async function asPostgres(tool: string, args: string[]): Promise<void> {
  const binary = path.join(postgresBinDir!, tool);
  await (asRoot ? run('runuser', ['-u', 'postgres', '--', binary, ...args]) : run(binary, args));
}

export interface PostgresCluster {
  /** Connection string of the cluster's `postgres` database over TCP on 127.0.0.1. */
  url: string;
  /** pg connection settings for the Unix socket, which works while TCP is switched off. */
  socket: { host: string; port: number; user: string; database: string };
  /** Starts the stopped server again. */
  start(): Promise<void>;
  /** A fast shutdown: open connections are terminated, new ones refused. */
  stop(): Promise<void>;
  /** `pg_ctl restart -m fast`, as an operator would. */
  restart(): Promise<void>;
  /** Restarts with the Unix socket only: TCP clients (the app) cannot connect until `restart()`. */
  restartSocketOnly(): Promise<void>;
  /** Stops the server and deletes its data directory. */
  destroy(): Promise<void>;
}

/**
 * A private throw-away PostgreSQL cluster under the repository's `.tmp/`, for tests that stop or restart the
 * server (never the shared one of TEST_DATABASE_URL). Call destroy() when done.
 */
export async function startPostgresCluster(name: string): Promise<PostgresCluster> {
  if (!postgresBinDir) throw new Error('PostgreSQL server binaries not found (apt-get install postgresql)');
  const port = await freePort();
  const dir = path.resolve('.tmp', `${name}-${process.pid}-${port}`);
  const dataDir = path.join(dir, 'data');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  if (asRoot) await run('chown', ['postgres', dir]);
  await asPostgres('initdb', ['-D', dataDir, '--auth=trust', '-U', 'postgres', '--no-sync']);
  const options = (tcp: boolean) => `-p ${port} -k ${dir} -c listen_addresses=${tcp ? '127.0.0.1' : "''"} -c fsync=off`;
  const pgCtl = (...args: string[]) =>
    asPostgres('pg_ctl', ['-D', dataDir, '-l', path.join(dir, 'log'), '-w', ...args]);
  await pgCtl('-o', options(true), 'start');
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    socket: { host: dir, port, user: 'postgres', database: 'postgres' },
    start: () => pgCtl('-o', options(true), 'start'),
    stop: () => pgCtl('-m', 'fast', 'stop'),
    restart: () => pgCtl('-m', 'fast', '-o', options(true), 'restart'),
    restartSocketOnly: () => pgCtl('-m', 'fast', '-o', options(false), 'restart'),
    async destroy() {
      await pgCtl('-m', 'fast', 'stop').catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
