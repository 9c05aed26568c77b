import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseEngineOf, loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/index.js';
import { openConfiguredDatabase } from '../../src/process-start.js';

// Under the repository, not the system temp dir: as root PostgreSQL runs as `postgres`, which must reach it.
const root = fs.mkdtempSync(path.join(path.resolve('.tmp'), 'embedded-postgres-'));
fs.chmodSync(root, 0o755);
const dataDir = path.join(root, 'postgres');
const config = loadConfig(
  { LOG_LEVEL: 'silent', DATABASE_ENGINE: 'embedded-postgres', EMBEDDED_POSTGRES_DIR: dataDir },
  { runMigrations: true },
);
const clusterRuns = () => fs.existsSync(path.join(dataDir, 'postmaster.pid'));
const count = async (database: Database) =>
  Number(((await database.db.execute(sql`select count(*)::int as n from tenants`)) as any).rows[0].n);

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('DATABASE_ENGINE=embedded-postgres', () => {
  it('creates and starts a cluster, lets a second process join it, stops it with its starter and keeps the data', async () => {
    const server = await openConfiguredDatabase(config);
    expect(server.kind).toBe('postgres');
    expect(clusterRuns()).toBe(true);
    expect(fs.statSync(`${dataDir}.password`).mode & 0o077).toBe(0);
    await server.db.execute(
      sql`insert into tenants (id, name, plan_id) values ('ten_embedded_probe', 'Embedded probe', 'business')`,
    );

    const cli = await openConfiguredDatabase(config); // as the CLI beside a running server does
    expect(await count(cli)).toBe(1);
    await cli.close();
    expect(clusterRuns()).toBe(true);
    expect(await count(server)).toBe(1);

    await server.close();
    expect(clusterRuns()).toBe(false);

    const restarted = await openConfiguredDatabase(config);
    expect(await count(restarted)).toBe(1);
    await restarted.close();
    expect(clusterRuns()).toBe(false);
  }, 120_000);

  it('is the default, except where PGlite is asked for or already holds the data', () => {
    const pgliteDir = path.join(root, 'pglite');
    expect(databaseEngineOf({}, pgliteDir)).toBe('embedded-postgres');
    expect(databaseEngineOf({ PGLITE_DATA_DIR: 'memory://' }, 'memory://')).toBe('pglite');
    fs.mkdirSync(pgliteDir, { recursive: true });
    fs.writeFileSync(path.join(pgliteDir, 'PG_VERSION'), '17\n');
    expect(databaseEngineOf({}, pgliteDir)).toBe('pglite');
    expect(databaseEngineOf({ DATABASE_ENGINE: 'embedded-postgres' }, pgliteDir)).toBe('embedded-postgres');
    expect(loadConfig({ DATABASE_ENGINE: 'embedded-postgres' }).databaseEngineFallback).toBe(false);
  });

  it('by default falls back to PGlite, saying why, where the cluster cannot start; by name it fails', async () => {
    const blocker = path.join(root, 'not-a-directory');
    fs.writeFileSync(blocker, '');
    const unusable = {
      ...config,
      databaseEngine: 'embedded-postgres' as const,
      embeddedPostgresDir: path.join(blocker, 'postgres'),
      pgliteDataDir: 'memory://',
    };
    await expect(openConfiguredDatabase({ ...unusable, databaseEngineFallback: false })).rejects.toThrow();
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
    try {
      const database = await openConfiguredDatabase({ ...unusable, databaseEngineFallback: true });
      expect(database.kind).toBe('pglite');
      await database.close();
    } finally {
      process.stderr.write = write;
    }
    expect(written.join('')).toMatch(
      /embedded PostgreSQL could not start .*; using PGlite in memory:\/\/\. Set DATABASE_ENGINE=pglite/,
    );
  }, 60_000);

  it('is refused with an unknown engine name', () => {
    expect(() => loadConfig({ DATABASE_ENGINE: 'sqlite' })).toThrow(
      /DATABASE_ENGINE must be one of pglite, embedded-postgres/,
    );
  });
});
