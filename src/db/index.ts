import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { installJobSchema, jobStoreOf, type JobStore } from './job-store.js';
import { ReconnectingListener, TCP_KEEPALIVE } from './listener.js';
import * as schema from './schema.js';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Unlisten = () => Promise<void>;

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  migrate(): Promise<void>;
  ping(): Promise<void>;
  /**
   * LISTEN/NOTIFY: the same mechanism on PGlite (one process) and PostgreSQL (every instance). On PostgreSQL
   * a lost LISTEN connection is reopened with backoff; `onReconnect` runs once it listens again, because
   * notifications sent in between are lost.
   */
  listen(channel: string, onMessage: (payload: string) => void, onReconnect?: () => void): Promise<Unlisten>;
  notify(channel: string, payload: string): Promise<void>;
  /** Where the job engine (pg-boss) keeps its queues: the same database, through its own connections. */
  jobs: JobStore;
  close(): Promise<void>;
}

export const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const MIGRATION_LOCK_ID = 727_100_001;

export interface DatabaseOptions {
  databaseUrl: string | null;
  pgliteDataDir: string;
  poolSize: number;
  /** An already opened PGlite instance (tests pass a clone of a migrated template). */
  pglite?: PGlite;
  /** How often a LISTEN connection is checked (PostgreSQL); tests shorten it. */
  listenHeartbeatMs?: number;
}

/**
 * Each engine's driver (and its migrator) loads when that engine is opened (migrated): a server on PostgreSQL never
 * loads PGlite and its drizzle driver, nor one on PGlite the node-postgres driver.
 */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize, options.listenHeartbeatMs);
  return openPglite(options.pglite ?? (await createPglite(options.pgliteDataDir)));
}

export async function createPglite(dataDir: string): Promise<PGlite> {
  if (!dataDir.startsWith('memory://')) fs.mkdirSync(dataDir, { recursive: true });
  const { PGlite } = await import('@electric-sql/pglite');
  return PGlite.create(dataDir);
}

async function openPglite(client: PGlite): Promise<Database> {
  const { drizzle } = await import('drizzle-orm/pglite');
  // Cast: both drivers' databases are used through Db, the query result type they have in common.
  const db = drizzle(client, { schema }) as unknown as Db;
  const jobs = jobStoreOf({ pglite: client });
  return {
    kind: 'pglite',
    db,
    jobs,
    migrate: async () => {
      const { migrate } = await import('drizzle-orm/pglite/migrator');
      await migrate(db as never, { migrationsFolder });
      await installJobSchema(jobs);
    },
    ping: async () => {
      await client.query('select 1');
    },
    listen: async (channel, onMessage) => client.listen(channel, onMessage),
    notify: async (channel, payload) => {
      await client.query('select pg_notify($1, $2)', [channel, payload]);
    },
    close: () => client.close(),
  };
}

async function openPostgres(connectionString: string, poolSize: number, heartbeatMs?: number): Promise<Database> {
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const pool = new pg.Pool({ connectionString, max: poolSize, idleTimeoutMillis: 30_000, ...TCP_KEEPALIVE });
  pool.on('error', () => {
    /* idle client errors are retried on next checkout */
  });
  // pg-pool drops its own error listener while a client is checked out (a transaction between two statements):
  // a server restart then emits 'error' with no one listening, which ends the process. The statement in flight, or
  // the next one, fails with the error anyway, and the pool discards a client that is no longer queryable.
  pool.on('connect', (client) => client.on('error', () => {}));
  // Cast: both drivers' databases are used through Db, the query result type they have in common.
  const db = drizzle(pool, { schema }) as unknown as Db;
  const listeners: ReconnectingListener[] = [];
  const jobs = jobStoreOf({ connectionString, poolSize });
  return {
    kind: 'postgres',
    db,
    jobs,
    migrate: async () => {
      const { migrate } = await import('drizzle-orm/node-postgres/migrator');
      const lockClient = await pool.connect();
      try {
        await lockClient.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
        await migrate(db as never, { migrationsFolder });
      } finally {
        await lockClient.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => {});
        lockClient.release();
      }
      await installJobSchema(jobs);
    },
    ping: async () => {
      await pool.query('select 1');
    },
    listen: async (channel, onMessage, onReconnect = () => {}) => {
      const listener = new ReconnectingListener({ connectionString, channel, onMessage, onReconnect, heartbeatMs });
      await listener.start();
      listeners.push(listener);
      return async () => {
        listeners.splice(listeners.indexOf(listener), 1);
        await listener.stop();
      };
    },
    notify: async (channel, payload) => {
      await db.execute(sql`select pg_notify(${channel}, ${payload})`);
    },
    close: async () => {
      await Promise.all(listeners.splice(0).map((listener) => listener.stop()));
      await pool.end();
    },
  };
}
