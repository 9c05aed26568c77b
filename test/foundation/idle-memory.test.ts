import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../helpers/database.js';
import { startTagport, stopAll, type TagportProcess } from '../helpers/topology.js';

/**
 * The resident memory of an idle `tagport serve` (every role) on PostgreSQL, started as a container starts it: with
 * an empty temporary directory, so tsx compiles every module (its cache lives in `os.tmpdir()/tsx-<uid>`).
 *
 * VmRSS 20 s after /readyz, kB: 215,752 while esbuild's compiler worker stayed for the life of the process (218,000–
 * 228,000 by hand at 20–75 s); 187,432–194,192 in five runs since it is stopped when the API's listener opens;
 * 177,000–193,000 with tsx's cache already filled. The bound is the 200 MB, read as MiB (204,800 kB).
 */
const MiB = 1024 * 1024;
const RSS_BOUND = 200 * MiB;
const IDLE_MS = 20_000;

function status(pid: number): string {
  return fs.readFileSync(`/proc/${pid}/status`, 'utf8');
}

function residentBytes(pid: number): number {
  const kilobytes = /^VmRSS:\s+(\d+) kB$/m.exec(status(pid));
  if (!kilobytes) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kilobytes[1]) * 1024;
}

/** The names of the process's threads (`/proc/<pid>/task/<tid>/comm`): Node names a worker thread "WorkerThread". */
function threadNames(pid: number): string[] {
  return fs
    .readdirSync(`/proc/${pid}/task`)
    .map((tid) => fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim())
    .sort();
}

describe.runIf(postgresUrl && process.platform === 'linux')('an idle tagport serve on PostgreSQL', () => {
  const started = new Set<TagportProcess>();
  let database: TestDatabase;
  let server: TagportProcess;
  let tmp: string;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // Under the repository: a directory of its own, empty, as /tmp is in a freshly started container.
    tmp = fs.mkdtempSync(path.join(path.resolve('.tmp'), 'idle-memory-'));
    const { NODE_OPTIONS: _chosenByTheRunner, ...env } = process.env;
    server = await startTagport(
      'idle',
      'api,gateway,worker',
      {
        ...env,
        NODE_ENV: 'test',
        TMPDIR: tmp,
        DATABASE_URL: database.url!,
        REDIS_URL: '',
        COOKIE_SECRET: 'idle-memory-test-cookie-secret-0123456789abcdef',
        LOG_LEVEL: 'warn',
      },
      started,
    );
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  }, 180_000);

  afterAll(async () => {
    await stopAll(started);
    await database?.drop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }, 60_000);

  it('runs with an 8 MB semi-space when NODE_OPTIONS chooses no size', () => {
    const argv = fs.readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0');
    expect(argv).toContain('--max-semi-space-size=8');
  });

  it("has stopped esbuild's compiler worker once start-up is over", () => {
    expect(threadNames(server.child.pid!)).not.toContain('WorkerThread');
  });

  it(`stays within ${RSS_BOUND / MiB} MiB of resident memory once idle`, () => {
    const rss = residentBytes(server.child.pid!);
    process.stdout.write(`idle serve on PostgreSQL (cold tsx cache): VmRSS ${Math.round(rss / 1024)} kB\n`);
    expect(server.child.exitCode, server.output().slice(-2000)).toBeNull();
    expect(rss).toBeLessThanOrEqual(RSS_BOUND);
  });
});
