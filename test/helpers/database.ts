import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/index.js';

export type Backend = 'pglite' | 'postgres';

let template: Promise<PGlite> | null = null;

/** One migrated in-memory PGlite per test file; every test database is a clone of it (~1 s instead of ~3 s + migrations). */
function migratedTemplate(): Promise<PGlite> {
  template ??= (async () => {
    const client = await PGlite.create('memory://');
    const database = await openDatabase({ databaseUrl: null, pgliteDataDir: 'memory://', poolSize: 1, pglite: client });
    await database.migrate();
    return client;
  })();
  return template;
}

export const postgresUrl = process.env.TEST_DATABASE_URL || null;

/** The backends this run covers: PGlite always, PostgreSQL when TEST_DATABASE_URL is set (CI requires it). */
export const backends: Backend[] = postgresUrl ? ['pglite', 'postgres'] : ['pglite'];
if (!postgresUrl && process.env.CI)
  throw new Error('CI must run the suite against PostgreSQL too: set TEST_DATABASE_URL');

export interface TestDatabase {
  database: Database;
  /** Connection string of a PostgreSQL test database, for opening more instances on it. */
  url: string | null;
  drop(): Promise<void>;
}

/** A fresh, migrated, isolated database on the given backend. */
export async function createTestDatabase(backend: Backend): Promise<TestDatabase> {
  if (backend === 'pglite') {
    const client = await (await migratedTemplate()).clone();
    const database = await openDatabase({
      databaseUrl: null,
      pgliteDataDir: 'memory://',
      poolSize: 1,
      pglite: client as PGlite,
    });
    return { database, url: null, drop: () => database.close().catch(() => {}) };
  }
  const name = `tagport_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl! });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(postgresUrl!);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), pgliteDataDir: '', poolSize: 10 });
  await database.migrate();
  return {
    database,
    url: url.toString(),
    drop: async () => {
      await database.close().catch(() => {});
      const cleanup = new pg.Client({ connectionString: postgresUrl! });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}
