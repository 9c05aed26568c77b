import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../src/db/index.js';

/** The PostgreSQL server the benchmarks that need one use (a throw-away database is created on it). */
export function benchServer(): string {
  const server = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!server) throw new Error('set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server');
  return server;
}

/** Creates and migrates a throw-away database, runs `use` with it and its URL, then drops it. */
export async function withThrowawayDatabase<T>(use: (database: Database, url: string) => Promise<T>): Promise<T> {
  const server = benchServer();
  const name = `tagport_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), pgliteDataDir: '', poolSize: 20 });
  try {
    await database.migrate();
    return await use(database, url.toString());
  } finally {
    await database.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
