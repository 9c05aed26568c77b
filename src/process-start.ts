import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ConfigError, type Config } from './config.js';
import { lockDataDirectory } from './db/data-directory-lock.js';
import { openEmbeddedCluster, type EmbeddedCluster } from './db/embedded-postgres.js';
import { openDatabase, type Database } from './db/index.js';

export interface Runtime {
  app: FastifyInstance;
  database: Database;
  close(): Promise<void>;
}

/**
 * Opens the configured database (and migrates it when configured). An on-disk PGlite directory is locked first, so a
 * second process refuses before it reads or writes anything; closing the database releases the lock.
 */
export async function openConfiguredDatabase(config: Config): Promise<Database> {
  const cluster =
    !config.databaseUrl && config.databaseEngine === 'embedded-postgres' ? await startCluster(config) : null;
  const databaseUrl = config.databaseUrl ?? cluster?.url ?? null;
  const lock =
    databaseUrl || config.pgliteDataDir.startsWith('memory://') ? null : lockDataDirectory(config.pgliteDataDir);
  const release = async () => {
    lock?.release();
    await cluster?.stop();
  };
  let database: Database | undefined;
  try {
    database = await openDatabase({
      databaseUrl,
      pgliteDataDir: config.pgliteDataDir,
      poolSize: config.databasePoolSize,
    });
    if (config.runMigrations) await database.migrate();
  } catch (error) {
    await database?.close().catch(() => {});
    await release();
    throw error;
  }
  if (!lock && !cluster) return database;
  const opened = database;
  return {
    ...opened,
    close: async () => {
      try {
        await opened.close();
      } finally {
        await release();
      }
    },
  };
}

/**
 * The embedded PostgreSQL cluster. When it was not asked for by name (the default) and cannot run here (as root with
 * no `postgres` user, no binaries for the platform, a directory PostgreSQL may not use), PGlite is used instead and
 * stderr says why and how to choose.
 */
async function startCluster(config: Config): Promise<EmbeddedCluster | null> {
  try {
    const cluster = await openEmbeddedCluster(config.embeddedPostgresDir, { port: config.embeddedPostgresPort });
    if (cluster.ownership === 'adopted')
      process.stderr.write(
        `tagport: took over the embedded PostgreSQL cluster in ${config.embeddedPostgresDir}, left running by a process that is gone; it stops with the last process using it.\n`,
      );
    return cluster;
  } catch (error) {
    if (!config.databaseEngineFallback || (config.gateway.workers ?? 1) > 1) throw error;
    process.stderr.write(
      `tagport: embedded PostgreSQL could not start (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); using PGlite in ${config.pgliteDataDir}. Set DATABASE_ENGINE=pglite to choose it, or DATABASE_ENGINE=embedded-postgres to make this an error.\n`,
    );
    return null;
  }
}

/**
 * Opens the database, runs migrations and builds the app: what `tagport serve` and the tests start. The app's modules
 * load while the database opens (the CLI's database commands, `tagport migrate`, load none of them); `mark` is told
 * when each step is done.
 */
export async function startRuntime(
  config: Config,
  database?: Database,
  mark: (step: 'app_modules_loaded' | 'database_ready' | 'app_built') => void = () => {},
): Promise<Runtime> {
  const appModule = import('./app.js').then((module) => {
    mark('app_modules_loaded');
    return module;
  });
  appModule.catch(() => {}); // awaited below; unawaited only when the database failed to open first
  const db = database ?? (await openConfiguredDatabase(config));
  mark('database_ready');
  const built = appModule.then(({ buildApp }) => buildApp({ config: withCookieSecret(config), database: db }));
  const app = await built.catch(async (error: unknown) => {
    if (!database) await db.close();
    throw error;
  });
  mark('app_built');
  return {
    app,
    database: db,
    close: async () => {
      await app.close();
      if (!database) await db.close();
    },
  };
}

/** In development without COOKIE_SECRET: the secret kept for this data directory, generated on the first start. */
function withCookieSecret(config: Config): Config {
  if (!config.cookieSecretFile) return config;
  return { ...config, cookieSecret: readOrCreateSecret(config.cookieSecretFile), cookieSecretFile: null };
}

function readOrCreateSecret(file: string): string {
  if (!fs.existsSync(file)) {
    // Written whole, then linked into place: a process starting at the same moment reads either nothing or all of it.
    const temporary = `${file}.${process.pid}.tmp`;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(temporary, `${randomBytes(48).toString('base64url')}\n`, { mode: 0o600 });
    try {
      fs.linkSync(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.rmSync(temporary, { force: true });
    }
  }
  const secret = fs.readFileSync(file, 'utf8').trim();
  if (secret.length < 32)
    throw new ConfigError(
      `${file} does not hold a cookie secret of 32 or more characters; delete it to have one generated, or set COOKIE_SECRET`,
    );
  return secret;
}
