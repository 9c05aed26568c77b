import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/index.js';
import { openConfiguredDatabase } from '../../src/runtime.js';

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

  it('is refused with an unknown engine name', () => {
    expect(() => loadConfig({ DATABASE_ENGINE: 'sqlite' })).toThrow(
      /DATABASE_ENGINE must be one of pglite, embedded-postgres/,
    );
  });
});
