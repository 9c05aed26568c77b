import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const CLIENT = path.resolve('clients/typescript');
const tsc = path.join(CLIENT, 'node_modules/.bin/tsc');

/** The code blocks of the client's README in a language (`ts`, `js`), as written. */
function readmeBlocks(language: string): string[] {
  const readme = fs.readFileSync(path.join(CLIENT, 'README.md'), 'utf8');
  return [...readme.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((match) => match[1]);
}

/**
 * The package as a user gets it: built (tsconfig.build.json) into a scratch node_modules/@tagport/client with its
 * package.json, so `@tagport/client` resolves through the package's `exports` to the compiled dist/ (openapi-fetch
 * from the repository's node_modules).
 */
describe('the typed client as shipped (clients/typescript)', () => {
  // Under the repository, so the scratch package finds openapi-fetch and @types/node in its node_modules.
  fs.mkdirSync('.tmp', { recursive: true });
  const root = fs.mkdtempSync(path.join(path.resolve('.tmp'), 'client-package-'));
  const installed = path.join(root, 'node_modules/@tagport/client');

  beforeAll(async () => {
    fs.mkdirSync(installed, { recursive: true });
    fs.copyFileSync(path.join(CLIENT, 'package.json'), path.join(installed, 'package.json'));
    await run(tsc, ['-p', path.join(CLIENT, 'tsconfig.build.json'), '--outDir', path.join(installed, 'dist')], {
      cwd: CLIENT,
    });
  }, 180_000);
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('builds compiled ESM with declarations that plain JavaScript imports', async () => {
    for (const file of ['index.js', 'index.d.ts', 'schema.d.ts'])
      expect(fs.existsSync(path.join(installed, 'dist', file)), file).toBe(true);
    const script = path.join(root, 'import.mjs');
    fs.writeFileSync(
      script,
      [
        "import { createTagportClient } from '@tagport/client';",
        "const client = createTagportClient({ baseUrl: 'http://127.0.0.1:9/', apiKey: 'tgp_example' });",
        'console.log(typeof createTagportClient, typeof client.GET, typeof client.POST);',
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, [script], { cwd: root });
    expect(stdout.trim()).toBe('function function function');
  }, 60_000);

  it("compiles every TypeScript example of the README as written, against the built package's declarations", async () => {
    const blocks = readmeBlocks('ts');
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    const examples = path.join(root, 'examples');
    fs.mkdirSync(examples);
    const files = blocks.map((code, index) => {
      const file = path.join(examples, `example-${index + 1}.mts`);
      // Each block is a module of its own (top-level await, as a user's script would be).
      fs.writeFileSync(file, code.includes('export ') ? code : `${code}\nexport {};\n`);
      return file;
    });
    fs.writeFileSync(
      path.join(examples, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          types: ['node'],
          lib: ['ES2022', 'DOM'],
        },
        files: files.map((file) => path.basename(file)),
      }),
    );
    const result = await run(tsc, ['-p', path.join(examples, 'tsconfig.json')], { cwd: examples }).then(
      () => '',
      (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
    );
    expect(result).toBe('');
  }, 180_000);
});
