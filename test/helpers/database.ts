import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { migrationsFolder, openDatabase, type Database } from '../../src/db/index.js';

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
  const template = await migratedPostgresTemplate();
  await withAdmin((admin) => admin.query(`create database ${name} template ${template}`));
  const database = await openDatabase({ databaseUrl: databaseUrl(name), pgliteDataDir: '', poolSize: 10 });
  return {
    database,
    url: databaseUrl(name),
    drop: async () => {
      await database.close().catch(() => {});
      await withAdmin((admin) => admin.query(`drop database if exists ${name} with (force)`));
    },
  };
}

function databaseUrl(name: string): string {
  const url = new URL(postgresUrl!);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdmin<T>(run: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: postgresUrl! });
  await admin.connect();
  try {
    return await run(admin);
  } finally {
    await admin.end();
  }
}

let postgresTemplate: Promise<string> | null = null;

/**
 * A migrated PostgreSQL database named after the migrations' contents, made once per cluster (the first worker to
 * need it holds an advisory lock while it migrates); test databases are copies of it, made in a fraction of the time
 * the migrations take.
 */
function migratedPostgresTemplate(): Promise<string> {
  postgresTemplate ??= withAdmin(async (admin) => {
    const name = `tagport_template_${migrationsDigest()}`;
    await admin.query('select pg_advisory_lock(hashtext($1))', [name]);
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) {
      const building = `${name}_building`;
      await admin.query(`drop database if exists ${building} with (force)`);
      await admin.query(`create database ${building}`);
      const database = await openDatabase({ databaseUrl: databaseUrl(building), pgliteDataDir: '', poolSize: 2 });
      await database.migrate();
      await database.close();
      await admin.query(`alter database ${building} rename to ${name}`);
    }
    await admin.query('select pg_advisory_unlock(hashtext($1))', [name]);
    return name;
  });
  return postgresTemplate;
}

function migrationsDigest(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(migrationsFolder, { recursive: true, encoding: 'utf8' }).sort()) {
    if (file.endsWith('.sql') || file.endsWith('.json'))
      hash.update(file).update(readFileSync(path.join(migrationsFolder, file)));
  }
  return hash.digest('hex').slice(0, 16);
}
