import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CommonCodes, type ErrorDefinition } from '../../../src/lib/errors.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const SCANNED = ['src/http', 'src/modules'];

function sourceFiles(directory: string): string[] {
  return readdirSync(path.join(ROOT, directory), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

const CATALOGUE = 'src/lib/errors.ts';
const files = [CATALOGUE, ...SCANNED.flatMap(sourceFiles)];
const source = new Map(files.map((file) => [file, readFileSync(path.join(ROOT, file), 'utf8')]));
const catalogueFiles = [CATALOGUE, ...files.filter((file) => /^src\/modules\/[^/]+\/errors\.ts$/.test(file))];

/** A code's definition: a shared code (an object) or a module's error factory (a function carrying its code). */
const isDefinition = (value: unknown): value is ErrorDefinition =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  typeof (value as { status?: unknown }).status === 'number' &&
  typeof (value as { code?: unknown }).code === 'string';

/**
 * Every catalogue: an exported object holding code definitions (beside helpers such as `notFound`), by
 * `<file>:<export>`, with its definitions only.
 */
async function catalogues(): Promise<Map<string, Record<string, ErrorDefinition>>> {
  const found = new Map<string, Record<string, ErrorDefinition>>();
  for (const file of catalogueFiles) {
    const module = (await import(path.join(ROOT, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
      const definitions = Object.entries(value).filter(([, entry]) => isDefinition(entry));
      if (definitions.length > 0) found.set(`${file}:${name}`, Object.fromEntries(definitions));
    }
  }
  return found;
}

/** One code string for two statuses: the same word means a different thing to the caller in each place. */
const SAME_CODE_TWO_STATUSES: Record<string, number[]> = {
  resource_missing: [400, 404], // 404 for the path's object; 400 for an object named in the body (a monitor's target)
  tenant_archived: [400, 401], // 401 for a credential of an archived tenant; 400 for changing an archived tenant
};

/** Comparisons with the codes of other, internal catalogues (lib/outbound's refusals). */
const OTHER_USES: Record<string, number> = { https_required: 2 };

describe('error catalogue', () => {
  it('has the shared catalogue in src/lib/errors.ts and one per module that throws', async () => {
    const found = await catalogues();
    expect(found.get(`${CATALOGUE}:CommonCodes`)).toEqual(CommonCodes);
    expect(found.size).toBeGreaterThanOrEqual(8);
  });

  it('builds every error from a catalogue: no error made from a string code outside src/lib/errors.ts', () => {
    const offenders = files.flatMap((file) =>
      [...source.get(file)!.matchAll(/new (?:ApiError|AppError)\([^)]*?'[a-z_]+'/g)].map(
        (match) => `${file}: ${match[0]}`,
      ),
    );
    expect(offenders).toEqual([]);
    const definedOutside = files.filter(
      (file) => !catalogueFiles.includes(file) && /\berrorCode\(/.test(source.get(file)!),
    );
    expect(definedOutside).toEqual([]);
  });

  it('defines each code once, and writes its string nowhere else in src/http or src/modules', async () => {
    const byCode = new Map<string, ErrorDefinition[]>();
    // A catalogue may reuse another's entry (the same definition object): counted once.
    const definitions = new Set([...(await catalogues()).values()].flatMap((catalogue) => Object.values(catalogue)));
    for (const definition of definitions)
      byCode.set(definition.code, [...(byCode.get(definition.code) ?? []), definition]);
    for (const [code, definitions] of byCode) {
      // One code may have several messages (container_deleted), never several statuses but those listed.
      const statuses = [...new Set(definitions.map((definition) => definition.status))].sort();
      expect(statuses, code).toEqual(SAME_CODE_TWO_STATUSES[code] ?? [definitions[0].status]);
      const written = files.reduce((count, file) => count + source.get(file)!.split(`'${code}'`).length - 1, 0);
      expect(written, `'${code}' is written ${written} times`).toBe(definitions.length + (OTHER_USES[code] ?? 0));
    }
  });

  it('has no unused code: every definition is thrown from somewhere in src', async () => {
    const documentation = (file: string) =>
      file.endsWith('/routes.ts') || file === 'src/http/openapi.ts' || file === 'src/http/schemas.ts';
    const thrower = [...source.entries()]
      .filter(([file]) => !documentation(file))
      .map(([, text]) => text)
      .join('\n');
    const everywhere = [...source.values()].join('\n');
    // Referenced by a throwing file, called anywhere (routes throw too), or called inside its own catalogue.
    const used = (names: string, key: string) =>
      new RegExp(`\\b${names}\\.${key}\\b(?!:)`).test(thrower) ||
      new RegExp(`\\b(?:${names}|errors)\\.${key}\\(`).test(everywhere);
    const unused: string[] = [];
    for (const [where, catalogue] of await catalogues()) {
      const name = where.split(':')[1];
      // src/http still calls the shared catalogue by its old name, HttpCodes.
      const names = name === 'CommonCodes' ? '(?:CommonCodes|HttpCodes)' : name;
      for (const key of Object.keys(catalogue)) if (!used(names, key)) unused.push(`${name}.${key}`);
    }
    expect(unused).toEqual([]);
  });
});
