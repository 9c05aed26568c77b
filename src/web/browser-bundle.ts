import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

// The dashboard's browser code is TypeScript in src/web/browser (type-checked by its own tsconfig.json). Each page
// script is an entry that esbuild bundles into one ES module, in memory, the first time it is asked for: no build
// step, and processes that never serve a page never bundle.
const here = path.dirname(fileURLToPath(import.meta.url));
/** The repository root: the bundle's comments name each module by its path from here (`// src/web/browser/ui.ts`). */
const root = path.resolve(here, '..', '..');

/** The scripts pages load, by their name under /assets/: app.js on every page, status.js on the status page. */
const ENTRIES: Record<string, string> = {
  'app.js': path.join(here, 'browser', 'app.ts'),
  'status.js': path.join(here, 'browser', 'status.ts'),
};

const bundles = new Map<string, Promise<Buffer>>();

async function bundle(entry: string): Promise<Buffer> {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
  });
  return Buffer.from(result.outputFiles[0].contents);
}

/**
 * The page script of that name, bundled once per process on first use (a failed bundle is tried again next time);
 * undefined for a name no page loads.
 */
export function bundledScript(name: string): Promise<Buffer> | undefined {
  if (!Object.hasOwn(ENTRIES, name)) return undefined;
  let built = bundles.get(name);
  if (!built) {
    built = bundle(ENTRIES[name]);
    bundles.set(name, built);
    built.catch(() => bundles.delete(name));
  }
  return built;
}
