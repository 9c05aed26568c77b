import fs from 'node:fs';
import path from 'node:path';

/** Another live process has the PGlite data directory open. */
export class DataDirectoryInUseError extends Error {}

export interface DataDirectoryLock {
  file: string;
  release(): void;
}

interface LockOwner {
  pid: number;
  started_at: string;
}

const heldHere = new Set<string>();

/**
 * PGlite allows one process per data directory: a second one (the CLI beside a running server) works on its own copy
 * and its writes are lost. The lock file beside the directory names the process that holds it; a lock left by a
 * process that is gone (killed, crashed) is taken over.
 */
export function lockDataDirectory(dataDir: string): DataDirectoryLock {
  const file = `${path.resolve(dataDir)}.lock`;
  if (heldHere.has(file))
    throw new DataDirectoryInUseError(`The data directory ${dataDir} is already open in this process.`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  for (let attempt = 1; !tryCreate(file); attempt++) {
    const owner = readOwner(file);
    const running = owner !== null && owner !== 'missing' && isRunning(owner.pid);
    if (running || attempt >= 3) throw new DataDirectoryInUseError(inUseMessage(dataDir, file, owner));
    if (owner !== 'missing') fs.rmSync(file, { force: true });
  }
  heldHere.add(file);
  const release = () => {
    process.removeListener('exit', release);
    if (!heldHere.delete(file)) return;
    const owner = readOwner(file);
    if (owner && owner !== 'missing' && owner.pid === process.pid) fs.rmSync(file, { force: true });
  };
  // Also on process.exit() without a graceful close (the shutdown timeout, a fatal error).
  process.on('exit', release);
  return { file, release };
}

/** Creates the lock with its content in one step (a hard link of a complete file), so readers never see it half-written. */
function tryCreate(file: string): boolean {
  const temporary = `${file}.${process.pid}.tmp`;
  const owner: LockOwner = { pid: process.pid, started_at: new Date().toISOString() };
  fs.writeFileSync(temporary, `${JSON.stringify(owner)}\n`);
  try {
    fs.linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

function readOwner(file: string): LockOwner | null | 'missing' {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const owner = JSON.parse(text) as LockOwner;
    return Number.isInteger(owner.pid) && owner.pid > 0 ? owner : null;
  } catch {
    return null;
  }
}

function isRunning(pid: number): boolean {
  // Our own pid in a lock we do not hold is a leftover of an earlier process that had the same pid (a restarted container).
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function inUseMessage(dataDir: string, file: string, owner: LockOwner | null | 'missing'): string {
  const holder =
    owner && owner !== 'missing'
      ? `another Tagport process (pid ${owner.pid}, started ${owner.started_at})`
      : 'another Tagport process';
  return [
    `The data directory ${dataDir} is in use by ${holder}; nothing was done.`,
    'PGlite allows one process at a time: stop the server first, or use its HTTP API. To use the CLI next to a running server, run Tagport on PostgreSQL (DATABASE_URL).',
    `If no Tagport process is running, delete ${file}.`,
  ].join('\n');
}
