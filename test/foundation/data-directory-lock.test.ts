import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirectoryInUseError, lockDataDirectory } from '../../src/db/data-directory-lock.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-lock-'));
let counter = 0;
const dataDir = () => path.join(root, `pglite-${++counter}`);

/** A process that is alive until stopped: a stand-in for a running server. */
function otherProcess() {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  return {
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

function writeLock(dir: string, pid: number) {
  fs.writeFileSync(`${dir}.lock`, JSON.stringify({ pid, started_at: '2026-11-23T00:00:00.000Z' }));
}

describe('PGlite data directory lock', () => {
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('writes a lock file with the pid beside the directory and removes it on release', () => {
    const dir = dataDir();
    const lock = lockDataDirectory(dir);
    expect(lock.file).toBe(`${dir}.lock`);
    expect(JSON.parse(fs.readFileSync(lock.file, 'utf8'))).toMatchObject({ pid: process.pid });
    expect(() => lockDataDirectory(dir)).toThrow(DataDirectoryInUseError);
    lock.release();
    expect(fs.existsSync(lock.file)).toBe(false);
    lockDataDirectory(dir).release();
  });

  it('refuses while another live process holds it, naming that pid, and leaves its lock alone', async () => {
    const dir = dataDir();
    const other = otherProcess();
    try {
      writeLock(dir, other.pid);
      expect(() => lockDataDirectory(dir)).toThrow(new RegExp(`in use by another Tagport process \\(pid ${other.pid}`));
      expect(JSON.parse(fs.readFileSync(`${dir}.lock`, 'utf8')).pid).toBe(other.pid);
      expect(fs.readdirSync(root).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    } finally {
      await other.stop();
    }
  });

  it('takes over a stale lock whose process is gone, or an unreadable one', async () => {
    const dir = dataDir();
    const gone = otherProcess();
    await gone.stop();
    writeLock(dir, gone.pid);
    const lock = lockDataDirectory(dir);
    expect(JSON.parse(fs.readFileSync(lock.file, 'utf8')).pid).toBe(process.pid);
    lock.release();

    fs.writeFileSync(`${dir}.lock`, 'garbage');
    lockDataDirectory(dir).release();
  });

  it('does not remove a lock another process took over after this one released it', () => {
    const dir = dataDir();
    const lock = lockDataDirectory(dir);
    writeLock(dir, 1);
    lock.release();
    expect(fs.existsSync(`${dir}.lock`)).toBe(true);
  });
});
