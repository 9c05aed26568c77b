import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/index.js';

export interface Runtime {
  app: FastifyInstance;
  database: Database;
  close(): Promise<void>;
}

export async function openConfiguredDatabase(config: Config): Promise<Database> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDataDir: config.pgliteDataDir, poolSize: config.databasePoolSize });
  if (config.runMigrations) await database.migrate();
  return database;
}

/** Opens the database, runs migrations and builds the app: what `tagport serve` and the tests start. */
export async function startRuntime(config: Config, database?: Database): Promise<Runtime> {
  const db = database ?? (await openConfiguredDatabase(config));
  const app = await buildApp({ config, database: db });
  return {
    app,
    database: db,
    close: async () => {
      await app.close();
      if (!database) await db.close();
    },
  };
}
