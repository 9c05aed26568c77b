/**
 * A worker process for the scan benchmark: what `tagport serve --role worker` runs (the app with the worker role, its
 * job engine and Chromium pool), with a scanner that reaches the benchmark's fixture server only (its hosts, port and
 * certificates come from BENCH_FIXTURE). Prints "ready" once it takes jobs; SIGTERM stops it gracefully.
 */
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/index.js';
import { Scanner } from '../src/scanner/index.js';
import { scannerFromConfig } from '../src/services.js';
import { fixtureScannerOptions } from '../test/fixtures/scanner/server.js';

const fixture = JSON.parse(process.env.BENCH_FIXTURE ?? '{}') as { port: number; caPem: string; leafSpki: string };
const config = loadConfig({ ...process.env, TAGPORT_ROLES: 'worker' }, { runMigrations: false });
const database = await openDatabase({
  databaseUrl: config.databaseUrl,
  pgliteDataDir: config.pgliteDataDir,
  poolSize: config.databasePoolSize,
});
const configured = scannerFromConfig(config);
const scanner = new Scanner({ ...configured.options, ...fixtureScannerOptions(fixture.port, fixture) });
const app = await buildApp({ config, database, scanner });
await app.ready();
process.stdout.write('ready\n');
process.once('SIGTERM', async () => {
  await app.close();
  await database.close();
  process.exit(0);
});
