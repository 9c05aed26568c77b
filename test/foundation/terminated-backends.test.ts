import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresUrl, type TestDatabase } from '../helpers/database.js';
import { waitFor } from '../helpers/processes.js';
import { startTagport, stopAll, type TagportProcess } from '../helpers/topology.js';

/**
 * Item 4a of issue 27, made repeatable: instead of `pg_ctl restart` (whose timing decides which client sees what),
 * every backend of Tagport's database is ended with `pg_terminate_backend` ("terminating connection due to
 * administrator command", what the crash showed) while the process idles with workers on: the pool's clients, the
 * LISTEN client and pg-boss's. Each client must take the error, reconnect, and the process must go on.
 */

const ROUNDS = 5;

describe.runIf(postgresUrl)('every PostgreSQL backend of an idle tagport serve terminated, again and again', () => {
  const started = new Set<TagportProcess>();
  let database: TestDatabase;
  let admin: pg.Client;
  let server: TagportProcess;
  let name: string;

  /** Tagport's backends on its database, by application name (the LISTEN client says `tagport-listen`). */
  async function backends(): Promise<string[]> {
    const { rows } = await admin.query(
      'select application_name from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [name],
    );
    return rows.map((row) => row.application_name as string);
  }

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // The test's own pool on the database would be terminated too: only the server's clients stay.
    await database.database.close();
    name = new URL(database.url!).pathname.slice(1);
    admin = new pg.Client({ connectionString: postgresUrl! });
    await admin.connect();
    server = await startTagport(
      'terminated',
      'api,worker',
      {
        ...process.env,
        NODE_ENV: 'test',
        DATABASE_URL: database.url!,
        REDIS_URL: '',
        COOKIE_SECRET: 'terminated-backends-test-cookie-secret-0123456789',
        LOG_LEVEL: 'warn',
        JOB_POLL_MS: '500',
        JOB_SUPERVISE_SECONDS: '1',
      },
      started,
    );
  }, 120_000);

  afterAll(async () => {
    await stopAll(started);
    await admin?.end();
    await database?.drop();
  }, 60_000);

  it(`survives ${ROUNDS} rounds of pg_terminate_backend on the pool, LISTEN and pg-boss clients`, async () => {
    const alive = () => server.child.exitCode === null && server.child.signalCode === null;
    await waitFor(async () => (await backends()).includes('tagport-listen'), 30_000, 'the LISTEN client');
    for (let round = 1; round <= ROUNDS && alive(); round++) {
      const { rows } = await admin.query(
        'select pg_terminate_backend(pid) as ended from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [name],
      );
      // At least the LISTEN client and one more (pg-boss's polling, the pool's idle clients).
      expect(rows.filter((row) => row.ended).length, `backends ended in round ${round}`).toBeGreaterThanOrEqual(2);
      // The round is over once LISTEN is back and the process answers /readyz (it reads the database) again.
      await waitFor(
        async () =>
          !alive() || ((await backends()).includes('tagport-listen') && (await server.readiness()).status === 200),
        30_000,
        `the server to reconnect after round ${round}: ${server.output().slice(-2000)}`,
      );
      // pg-boss polls every 500 ms: give it time to meet its ended clients before the next round.
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
    expect(alive(), server.output().slice(-3000)).toBe(true);
    expect(server.output()).not.toMatch(/Unhandled 'error' event|uncaught/i);
    expect((await server.readiness()).status).toBe(200);
  }, 240_000);
});
