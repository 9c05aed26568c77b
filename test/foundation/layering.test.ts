import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importCycles, importsOf, layeringViolations, readSourceTree } from '../helpers/layering.js';

// The rules are written in src/modules/README.md; this keeps new code from breaking them.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('layering (src/modules/README.md)', () => {
  it('finds no violation in src/', () => {
    expect(layeringViolations(readSourceTree(root))).toEqual([]);
  });

  it('finds no import cycle in src/, type-only imports included', () => {
    expect(importCycles(readSourceTree(root))).toEqual([]);
  });

  it('reports files that import each other, also through a type-only import', () => {
    const tree = new Map([
      ['src/a.ts', "import { b } from './b.js';"],
      ['src/b.ts', "import type { C } from './c/index.js';"],
      ['src/c/index.ts', "export type { A } from '../a.js';"],
      ['src/d.ts', "import { a } from './a.js';"],
    ]);
    expect(importCycles(tree)).toEqual(['src/a.ts → src/b.ts → src/c/index.ts']);
  });

  it("reports a module that imports another module's queries", () => {
    const tree = new Map([
      ['src/modules/monitors/service.ts', "import { findContainer } from '../containers/queries.js';"],
    ]);
    expect(layeringViolations(tree)).toEqual([
      'src/modules/monitors/service.ts imports src/modules/containers/queries.ts: reach another module through its service',
    ]);
  });

  it("allows a module's own service to import its queries", () => {
    const tree = new Map([['src/modules/containers/service.ts', "import * as queries from './queries.js';"]]);
    expect(layeringViolations(tree)).toEqual([]);
  });

  it("reports src/http, the gateway and the CLI importing a module's queries", () => {
    const tree = new Map([
      ['src/http/auth.ts', "import { findSessionByHash } from '../modules/auth/queries.js';"],
      ['src/gateway/server.ts', "import { addUsage } from '../modules/containers/queries.js';"],
      ['src/cli.ts', "import { findTenantById } from './modules/tenants/queries.js';"],
    ]);
    expect(layeringViolations(tree)).toEqual([
      'src/http/auth.ts imports src/modules/auth/queries.ts: reach another module through its service',
      "src/http/auth.ts imports src/modules/auth/queries.ts at run time: src/http may import modules' types only",
      'src/gateway/server.ts imports src/modules/containers/queries.ts: reach another module through its service',
      'src/cli.ts imports src/modules/tenants/queries.ts: reach another module through its service',
    ]);
  });

  it('reports a routes.ts that imports its queries, drizzle or src/db, or reads database.db', () => {
    const tree = new Map([
      [
        'src/modules/containers/routes.ts',
        [
          "import * as queries from './queries.js';",
          "import { eq } from 'drizzle-orm';",
          "import { containers } from '../../db/schema.js';",
          'const rows = await queries.usage(app.database.db, id, from, to);',
        ].join('\n'),
      ],
    ]);
    expect(layeringViolations(tree)).toEqual([
      "src/modules/containers/routes.ts imports src/modules/containers/queries.ts: handlers delegate to the module's service",
      "src/modules/containers/routes.ts imports drizzle-orm: handlers delegate to the module's service",
      "src/modules/containers/routes.ts imports src/db/schema.ts: handlers delegate to the module's service",
      "src/modules/containers/routes.ts uses database.db: handlers delegate to the module's service",
    ]);
  });

  it('reports the gateway importing drizzle or the schema', () => {
    const tree = new Map([
      [
        'src/gateway/server.ts',
        "import { and, eq } from 'drizzle-orm';\nimport { containers } from '../db/schema.js';",
      ],
    ]);
    expect(layeringViolations(tree)).toEqual([
      'src/gateway/server.ts imports drizzle-orm: the gateway reads through the services it is given',
      'src/gateway/server.ts imports src/db/schema.ts: the gateway reads through the services it is given',
    ]);
  });

  it('lets src/http import types of a module, not its code (no runtime circle)', () => {
    const tree = new Map([
      ['src/http/auth.ts', "import type { KeyCredential } from '../modules/auth/credentials.js';"],
      ['src/http/other.ts', "import { AuthService } from '../modules/auth/credentials.js';"],
    ]);
    expect(layeringViolations(tree)).toEqual([
      "src/http/other.ts imports src/modules/auth/credentials.ts at run time: src/http may import modules' types only",
    ]);
  });

  it('reports a module importing src/http/errors.ts, and src/http/errors.ts importing a module (types too)', () => {
    const tree = new Map([
      ['src/modules/domains/errors.ts', "import { notFound } from '../../http/errors.js';"],
      ['src/http/errors.ts', "import type { AuthErrors } from '../modules/auth/errors.js';"],
      ['src/modules/tenants/errors.ts', "import { defineErrors } from '../../lib/errors.js';"],
    ]);
    expect(layeringViolations(tree)).toEqual([
      "src/modules/domains/errors.ts imports src/http/errors.ts: a module's errors come from src/lib/errors.ts",
      'src/http/errors.ts imports src/modules/auth/errors.ts: the HTTP edge answers any AppError without knowing modules',
    ]);
  });
});

describe('importsOf', () => {
  it('reads multi-line, type-only, inline-type, re-export, bare and dynamic imports', () => {
    const source = [
      "import {\n  a,\n  b,\n} from './one.js';",
      "import type { C } from './two.js';",
      "import { type D, type E } from './three.js';",
      "import F, { type G } from './four.js';",
      "export { h } from './five.js';",
      "export type { I } from './six.js';",
      "import './seven.js';",
      "const lazy = await import('./eight.js');",
      "export const tags = ['not', 'an', 'import'];",
    ].join('\n');
    expect(importsOf(source)).toEqual([
      { specifier: './one.js', typeOnly: false },
      { specifier: './two.js', typeOnly: true },
      { specifier: './three.js', typeOnly: true },
      { specifier: './four.js', typeOnly: false },
      { specifier: './five.js', typeOnly: false },
      { specifier: './six.js', typeOnly: true },
      { specifier: './seven.js', typeOnly: false },
      { specifier: './eight.js', typeOnly: false },
    ]);
  });
});
