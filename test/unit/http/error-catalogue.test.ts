import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ErrorCodeDefinition, HttpCodes } from '../../../src/http/errors.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const SCANNED = ['src/http', 'src/modules'];

function sourceFiles(directory: string): string[] {
  return readdirSync(path.join(ROOT, directory), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

const files = SCANNED.flatMap(sourceFiles);
const source = new Map(files.map((file) => [file, readFileSync(path.join(ROOT, file), 'utf8')]));
const catalogueFiles = [
  'src/http/errors.ts',
  ...files.filter((file) => /^src\/modules\/[^/]+\/errors\.ts$/.test(file)),
];

const isDefinition = (value: unknown): value is ErrorCodeDefinition =>
  typeof value === 'object' && value !== null && 'status' in value && 'code' in value && 'error' in value;

/** Every catalogue: an exported object whose values are all code definitions, by `<file>:<export>`. */
async function catalogues(): Promise<Map<string, Record<string, ErrorCodeDefinition>>> {
  const found = new Map<string, Record<string, ErrorCodeDefinition>>();
  for (const file of catalogueFiles) {
    const module = (await import(path.join(ROOT, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
      const entries = Object.values(value);
      if (entries.length > 0 && entries.every(isDefinition))
        found.set(`${file}:${name}`, value as Record<string, ErrorCodeDefinition>);
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
const OTHER_USES: Record<string, number> = { https_required: 1 };

describe('error catalogue', () => {
  it('has a catalogue in src/http/errors.ts and one per module that throws', async () => {
    const found = await catalogues();
    expect(found.get('src/http/errors.ts:HttpCodes')).toBe(HttpCodes);
    expect(found.size).toBeGreaterThanOrEqual(8);
  });

  it('builds every error from a catalogue: no ApiError made from a string code outside src/http/errors.ts', () => {
    const offenders = files.flatMap((file) =>
      [...source.get(file)!.matchAll(/new ApiError\([^)]*?'[a-z_]+'/g)].map((match) => `${file}: ${match[0]}`),
    );
    expect(offenders).toEqual([]);
    const definedOutside = files.filter(
      (file) => !catalogueFiles.includes(file) && /\berrorCode\(/.test(source.get(file)!),
    );
    expect(definedOutside).toEqual([]);
  });

  it('defines each code once, and writes its string nowhere else in src/http or src/modules', async () => {
    const byCode = new Map<string, ErrorCodeDefinition[]>();
    for (const catalogue of (await catalogues()).values())
      for (const definition of Object.values(catalogue))
        byCode.set(definition.code, [...(byCode.get(definition.code) ?? []), definition]);
    for (const [code, definitions] of byCode) {
      const statuses = definitions.map((definition) => definition.status).sort();
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
    const unused: string[] = [];
    for (const [where, catalogue] of await catalogues()) {
      const name = where.split(':')[1];
      for (const key of Object.keys(catalogue))
        if (!new RegExp(`\\b${name}\\.${key}\\b(?!:)`).test(thrower)) unused.push(`${name}.${key}`);
    }
    expect(unused).toEqual([]);
  });
});
