import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a process waits for another one's start or stop of the cluster (initdb included). */
const LOCK_WAIT_MS = 120_000;
const LOCK_POLL_MS = 100;

interface UserEntry {
  pid: number;
  /** The process's start time (Linux), so that a reused pid is not taken for the process that registered. */
  started: string | null;
}

/**
 * The processes using an embedded cluster: one file per process in `<dataDir>.users/`. The cluster belongs to all
 * of them: the first starts it, the last to stop cleanly stops it, and a process that finds it running with no live
 * user (its owner was killed with SIGKILL) takes it over. Starting, joining and leaving happen under a lock file in
 * the same directory, so a process never joins a cluster that another is stopping.
 */
export class ClusterUsers {
  private readonly dir: string;
  /** This user's entry: one per opening, as one process may open the cluster twice (tests, the CLI in process). */
  private readonly entryName = `${process.pid}.${randomBytes(4).toString('hex')}.user`;

  constructor(dataDir: string) {
    this.dir = `${path.resolve(dataDir)}.users`;
  }

  /** Runs `work` while holding the lock; a lock left by a process that is gone is taken over. */
  async locked<T>(work: () => Promise<T>): Promise<T> {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const lock = path.join(this.dir, 'lock');
    const deadline = Date.now() + LOCK_WAIT_MS;
    while (!tryWrite(lock, entryOfThisProcess())) {
      const holder = readEntry(lock);
      if (holder && !isRunning(holder)) fs.rmSync(lock, { force: true });
      else if (Date.now() > deadline) throw new Error(`${lock} is held by pid ${holder?.pid ?? 'unknown'}`);
      else await sleep(LOCK_POLL_MS);
    }
    try {
      return await work();
    } finally {
      fs.rmSync(lock, { force: true });
    }
  }

  /** The pids of the other live users (this process's other openings included); entries of processes that are gone are removed. */
  others(): number[] {
    const alive: number[] = [];
    for (const name of this.entryNames()) {
      const entry = readEntry(path.join(this.dir, name));
      if (entry && isRunning(entry)) alive.push(entry.pid);
      else fs.rmSync(path.join(this.dir, name), { force: true });
    }
    return alive;
  }

  join(): void {
    fs.writeFileSync(this.ownFile(), JSON.stringify(entryOfThisProcess()));
  }

  leave(): void {
    fs.rmSync(this.ownFile(), { force: true });
  }

  private ownFile(): string {
    return path.join(this.dir, this.entryName);
  }

  private entryNames(): string[] {
    return fs.readdirSync(this.dir).filter((name) => name.endsWith('.user') && name !== this.entryName);
  }
}

function entryOfThisProcess(): UserEntry {
  return { pid: process.pid, started: startTimeOf(process.pid) };
}

/** Creates `file` with `entry` only when it does not exist yet. */
function tryWrite(file: string, entry: UserEntry): boolean {
  try {
    fs.writeFileSync(file, JSON.stringify(entry), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function readEntry(file: string): UserEntry | null {
  try {
    const entry = JSON.parse(fs.readFileSync(file, 'utf8')) as UserEntry;
    return Number.isInteger(entry.pid) && entry.pid > 0 ? entry : null;
  } catch {
    return null; // removed meanwhile, or written by a process killed halfway
  }
}

function isRunning(entry: UserEntry): boolean {
  if (entry.pid === process.pid) return entry.started === startTimeOf(process.pid);
  try {
    process.kill(entry.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const started = startTimeOf(entry.pid);
  return entry.started === null || started === null || started === entry.started;
}

/** Field 22 of /proc/<pid>/stat (clock ticks after boot): with the pid, it names one process. Null off Linux. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}
