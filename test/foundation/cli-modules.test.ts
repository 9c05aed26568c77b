import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-cli-modules-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * The CLI's own modules, as a hook preloaded into `tagport …` records them: every module it resolved, written to a
 * file when the process exits.
 */
async function modulesOf(args: string[]): Promise<string[]> {
  const out = path.join(dir, `${args.join('-')}.txt`);
  const hook = path.join(dir, 'record-modules.mjs');
  fs.writeFileSync(
    hook,
    [
      "import fs from 'node:fs';",
      "import { registerHooks } from 'node:module';",
      'const seen = new Set();',
      'registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); seen.add(result.url); return result; } });',
      `process.on('exit', () => fs.writeFileSync(${JSON.stringify(out)}, [...seen].join('\\n')));`,
    ].join('\n'),
  );
  await run(process.execPath, [path.resolve('bin/tagport.js'), ...args], {
    env: {
      ...process.env,
      NODE_OPTIONS: `--import ${hook}`,
      DATABASE_URL: '',
      DATABASE_ENGINE: 'pglite',
      PGLITE_DATA_DIR: path.join(dir, 'pglite'),
      LOG_LEVEL: 'warn',
    },
    timeout: 120_000,
  });
  return fs.readFileSync(out, 'utf8').split('\n');
}

describe('what a CLI command loads', () => {
  it('tagport migrate opens and migrates the database without loading the app (routes, pages, services)', async () => {
    const modules = await modulesOf(['migrate']);
    expect(modules.some((url) => url.endsWith('/src/db/index.ts'))).toBe(true);
    expect(modules.filter((url) => /\/src\/(app|services)\.ts$/.test(url))).toEqual([]);
  }, 180_000);
});
