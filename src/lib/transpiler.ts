import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * bin/tagport.js runs the TypeScript sources through tsx, which compiles each module missing from its disk cache
 * (`os.tmpdir()/tsx-<uid>`) with esbuild's transformSync. esbuild serves that call from a worker thread it starts on
 * first use and keeps for the life of the process: about 30 MB of resident memory in every process started on a cold
 * cache, which is every container start (/tmp is empty). Once start-up has loaded its modules, this stops esbuild
 * (the worker and its service process); a module first imported later from a cold cache starts it again, and the
 * dashboard's bundler (src/web/browser-bundle.ts) starts its own service on its first build. Nothing happens when
 * esbuild was never loaded (tests under vitest, a warm cache).
 */
export function releaseTranspiler(): void {
  let resolved: string;
  try {
    resolved = require.resolve('esbuild');
  } catch {
    return;
  }
  const loaded = require.cache[resolved]?.exports as { stop?: () => Promise<void> } | undefined;
  void loaded?.stop?.().catch(() => {});
}

/** Start-up (the gateway's listener, the set-up check) is done within this time after the API's listener opens. */
const RELEASE_DELAY_MS = 5_000;

/** Stops esbuild a few seconds after the process starts listening, when start-up has loaded what it loads. */
export function releaseTranspilerSoon(): void {
  setTimeout(releaseTranspiler, RELEASE_DELAY_MS).unref();
}
