import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const configSource = ['src/config.ts', ...fs.readdirSync(path.join(ROOT, 'src/config')).map((f) => `src/config/${f}`)]
  .map((file) => fs.readFileSync(path.join(ROOT, file), 'utf8'))
  .join('\n');
/** Capitalised strings of the config module that name no variable: a file PostgreSQL keeps in its data directory. */
const NOT_VARIABLES = new Set(['PG_VERSION']);
/** Every variable the config module reads: `env.NAME`, and the names passed to its readers (`integer(env, 'NAME', …)`). */
const read = new Set(
  [...configSource.matchAll(/env\.([A-Z][A-Z0-9_]+)|['"]([A-Z][A-Z0-9_]{2,})['"]/g)]
    .map((m) => m[1] ?? m[2])
    .filter((name) => !NOT_VARIABLES.has(name)),
);
const reference = fs.readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');
/** The variables the reference's tables name in their first column (`A` / `B` rows name several). */
const documented = new Set(
  reference
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1])),
);

describe('docs/configuration.md', () => {
  it('documents every variable the config module reads', () => {
    expect([...read].filter((name) => !documented.has(name)).sort()).toEqual([]);
  });

  it('documents no variable the config module does not read', () => {
    expect([...documented].filter((name) => !read.has(name)).sort()).toEqual([]);
  });
});
