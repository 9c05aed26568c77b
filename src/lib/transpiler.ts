import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/**
 * bin/tagport.js runs the TypeScript sources through tsx, which compiles each module missing from its disk cache
 * (`os.tmpdir()/tsx-<uid>`) with esbuild's transformSync. esbuild serves that call from a worker thread it starts on
 * first use and keeps for the life of the process: about 20 MB of resident memory in every process started on a cold
 * cache, which is every container start (/tmp is empty). Called when the API's listener opens (start-up has loaded its
 * modules by then), this stops esbuild: the worker and any service process. No request has been handled yet, so no
 * bundle of the dashboard's scripts (src/web/browser-bundle.ts, esbuild's service) can be under way; a later bundle or
 * a module first imported later from a cold cache starts esbuild again. Only in a process bin/tagport.js started:
 * elsewhere (tests under vitest, where several apps share a process) esbuild is not tsx's and is left alone.
 */
export function releaseTranspiler(): void {
  if (!process.argv[1]?.endsWith(path.join('bin', 'tagport.js'))) return;
  let resolved: string;
  try {
    resolved = require.resolve('esbuild');
  } catch {
    return;
  }
  const loaded = require.cache[resolved]?.exports as { stop?: () => Promise<void> } | undefined;
  void loaded?.stop?.().catch(() => {});
}
