/**
 * The typed client's types (clients/typescript/src/schema.ts, committed) from the OpenAPI document, with
 * openapi-typescript. `npm run client:generate` takes the document from the app built in-process (PGlite in memory,
 * no network) and writes the file; test/foundation/client-types.test.ts generates it in memory the same way and fails
 * when the committed file differs, so the types are regenerated only when the document changed.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CLIENT = path.resolve(import.meta.dirname, '../clients/typescript');
export const CLIENT_SCHEMA = path.join(CLIENT, 'src/schema.ts');
const bin = (name: string) => path.join(CLIENT, 'node_modules/.bin', name);
const HEADER =
  '// Generated from the OpenAPI document the service serves, by `npm run client:generate`: do not edit.\n' +
  '// test/foundation/client-types.test.ts fails when it no longer matches the document.\n\n';

/** The client's types for an OpenAPI document, as the text of src/schema.ts. */
export async function typesOf(document: unknown): Promise<string> {
  // openapi-typescript is the client package's own dependency (it needs that package's TypeScript 5).
  const module = path.join(CLIENT, 'node_modules/openapi-typescript/dist/index.mjs');
  const { default: openapiTS, astToString } = (await import(pathToFileURL(module).href)) as {
    default: (document: unknown) => Promise<unknown>;
    astToString: (ast: unknown) => string;
  };
  return HEADER + astToString(await openapiTS(document));
}

/** What `npm run client:generate` writes: the types of the document the app serves. */
export async function generatedClientTypes(): Promise<string> {
  return typesOf(await servedDocument());
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
  await writeFile(CLIENT_SCHEMA, await generatedClientTypes());
  console.log(`wrote ${path.relative(process.cwd(), CLIENT_SCHEMA)}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
