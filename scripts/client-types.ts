/**
 * Generates the typed client's types (clients/typescript/src/schema.d.ts, not committed) from the OpenAPI document
 * with openapi-typescript. `npm run client:generate` takes the document from the app built in-process (PGlite in
 * memory, no network); the client test suite takes it from the running service's /api/openapi.json.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CLIENT = path.resolve(import.meta.dirname, '../clients/typescript');
export const CLIENT_SCHEMA = path.join(CLIENT, 'src/schema.d.ts');
const bin = (name: string) => path.join(CLIENT, 'node_modules/.bin', name);

/** Writes the types of the document at `source` (a URL or a file) to the client's src/schema.d.ts. */
export async function generateClientTypes(source: string): Promise<void> {
  await run(bin('openapi-typescript'), [source, '--output', CLIENT_SCHEMA], { cwd: CLIENT });
}

/** Type-checks the client and its test suite (test/client) with the client's TypeScript; the output on failure. */
export async function typecheckClient(): Promise<{ ok: boolean; output: string }> {
  try {
    await run(bin('tsc'), ['-p', path.join(CLIENT, 'tsconfig.json')], { cwd: CLIENT });
    return { ok: true, output: '' };
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${stdout}${stderr}`.trim() || String(error) };
  }
}

/** The OpenAPI document the app serves, from the app built in-process on an empty in-memory database. */
async function servedDocument(): Promise<unknown> {
  const [{ buildApp }, { loadConfig }, { openDatabase }] = await Promise.all([
    import('../src/app.js'),
    import('../src/config.js'),
    import('../src/db/index.js'),
  ]);
  const config = loadConfig({ LOG_LEVEL: 'silent', TAGPORT_ROLES: 'api' }, { runMigrations: false });
  const database = await openDatabase({ databaseUrl: null, pgliteDataDir: 'memory://', poolSize: 1 });
  try {
    await database.migrate();
    const app = await buildApp({ config, database });
    try {
      await app.ready();
      return app.swagger();
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
  }
}

async function main(): Promise<void> {
  const directory = await mkdtemp(path.join(tmpdir(), 'tagport-openapi-'));
  try {
    const file = path.join(directory, 'openapi.json');
    await writeFile(file, JSON.stringify(await servedDocument()));
    await generateClientTypes(file);
    console.log(`wrote ${path.relative(process.cwd(), CLIENT_SCHEMA)}`);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
