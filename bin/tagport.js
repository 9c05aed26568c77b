#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader: no build step.

// V8 grows the young generation up to 64 MB per semi-space under the allocation burst of start-up and keeps it, which
// cost an idle instance about 100 MB of resident memory. 8 MB per semi-space keeps the gateway's scavenges short and
// cheap; the process replaces itself once with the flag (before loading anything), unless the operator chose a size
// in NODE_OPTIONS or on the command line.
const SEMI_SPACE_FLAG = '--max-semi-space-size';
const chosen = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((flag) => flag.includes(SEMI_SPACE_FLAG));
if (!chosen && typeof process.execve === 'function') {
  process.execve(process.execPath, [
    process.execPath,
    `${SEMI_SPACE_FLAG}=8`,
    ...process.execArgv,
    ...process.argv.slice(1),
  ]);
}

const { register } = await import('tsx/esm/api');
register();
await import('../src/cli.ts');
