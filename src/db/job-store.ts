import type { PGlite } from '@electric-sql/pglite';
import { fromPglite, PgBoss, type ConstructorOptions } from 'pg-boss';
import { TCP_KEEPALIVE } from './listener.js';

/**
 * How pg-boss reaches the database: on PostgreSQL a small pool of its own; on PGlite the one in-process connection
 * through pg-boss's adapter, whose parameterless statements go through `exec` (pg-boss sends multi-statement blocks)
 * and which LISTENs in process, so workers wake as soon as a job is sent.
 */
export type JobStore = Pick<ConstructorOptions, 'db' | 'backend' | 'connectionString' | 'max'> &
  Partial<typeof TCP_KEEPALIVE>;

export const JOB_SCHEMA = 'pgboss';

export function jobStoreOf(target: { pglite: PGlite } | { connectionString: string; poolSize: number }): JobStore {
  if ('pglite' in target) return { db: fromPglite(target.pglite), backend: 'pglite' };
  // pg-boss hands its options to its pg.Pool: its connections probe a silent peer as the application's do.
  return {
    connectionString: target.connectionString,
    max: Math.max(4, Math.ceil(target.poolSize / 2)),
    ...TCP_KEEPALIVE,
  };
}

/** Creates or upgrades pg-boss's own tables (a few seconds on PGlite: done with the migrations, not at every start). */
export async function installJobSchema(store: JobStore): Promise<void> {
  const boss = new PgBoss({
    ...store,
    schema: JOB_SCHEMA,
    migrate: true,
    supervise: false,
    schedule: false,
    registerInstance: false,
  });
  boss.on('error', () => {});
  await boss.start();
  await boss.stop({ graceful: false });
}
